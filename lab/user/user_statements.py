"""The scorer of a user's own topics (`--priors none`, learn/user.py) with the trained reader's statements
(evidence/reading.py, group "read statements") beside, or in place of, the connectives' (evidence/statements.py,
group "statements"); with the documents read twice (all-MiniLM-L6-v2 and all-mpnet-base-v2, a scorer per reading,
as shipped) or once (all-MiniLM-L6-v2 alone). Folds leave one topic out over the tuning sets (default
../shared/user-train and ../shared/user-dev): each tuning topic is scored by a scorer fitted on the other tuning topics
and answered at the precision bias chosen on the other tuning topics' held-out answers (nested, as `train --user-topics`
reports it). The validation set (default ../shared/user-dev-2) is scored by a scorer fitted on every tuning topic, at
the bias chosen on all their held-out answers; it tunes nothing.

    python -m lab.user.user_statements --cache-dir /tmp/user-cache
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

import causalgraph as cg
from causalgraph.analysis.cache import AnalysisCache
from causalgraph.analysis.table import FEATURE_GROUPS
from causalgraph.config import DEFAULT_MODEL
from causalgraph.learn.scorer import edge_scores, second_encoder
from causalgraph.learn.user import BIASES, chosen_biases, fit, topic_scores, user_features
from causalgraph.run.batch import scorer_for
from lab.user.user_scorer import option_auc, sets_parser
from lab.user.user_topics import topic_folders

SHIPPED = user_features()
READ = FEATURE_GROUPS["read statements"]
WITHOUT_CONNECTIVES = tuple(f for f in SHIPPED if f not in FEATURE_GROUPS["statements"])
VARIANTS = {  # label: (features, read twice)
    "shipped: connectives, read twice": (SHIPPED, True),
    "connectives + trained reader, read twice": (SHIPPED + READ, True),
    "trained reader in place of connectives, read twice": (WITHOUT_CONNECTIVES + READ, True),
    "connectives, read once": (SHIPPED, False),
    "connectives + trained reader, read once": (SHIPPED + READ, False),
    "trained reader in place of connectives, read once": (WITHOUT_CONNECTIVES + READ, False),
}


def main() -> None:
    args = sets_parser(__doc__).parse_args()
    scorer, encoder = scorer_for(DEFAULT_MODEL, "none")
    cache = AnalysisCache.open(args.cache_dir, encoder, second=second_encoder(scorer),
                               statements=True) if args.cache_dir else None

    def analyse(root):
        topics = [cg.load_topics(folder)[0] for folder in topic_folders(root)]
        return [cache.analyse(t)[0] if cache else cg.analysis.analyse.analyse_topic(
            t, encoder, second_encoder=second_encoder(scorer), statements=True) for t in topics]

    tuned = [a for root in args.tune for a in analyse(root)]
    names = [root.name for root in args.tune for _ in topic_folders(root)]
    validated = analyse(args.validate)
    print("| features | " + " | ".join(f"{r.name} (held out, nested bias)" for r in args.tune)
          + f" | {args.validate.name} (never tuned on) | option AUC, tuning held out | bias |")
    print("|---|" + "---|" * (len(args.tune) + 3))
    once = lambda analyses: [replace(a, second=None) for a in analyses]
    for label, (features, twice) in VARIANTS.items():
        tune, validate = (tuned, validated) if twice else (once(tuned), once(validated))
        held = [edge_scores(a.table, fit(tune[:i] + tune[i + 1:], features=features)) for i, a in enumerate(tune)]
        by_bias = {b: [topic_scores(a, p, b) for a, p in zip(tune, held)] for b in BIASES}
        nested, bias = chosen_biases({b: [sum(s) for s in scores] for b, scores in by_bias.items()})
        per_set = {r.name: [s for i, b in enumerate(nested) if names[i] == r.name for s in by_bias[b][i]]
                   for r in args.tune}
        final = fit(tune, bias, features=features)
        valid = [s for a in validate for s in topic_scores(a, edge_scores(a.table, final), bias)]
        print(f"| {label} | " + " | ".join(f"{np.mean(per_set[r.name]):.4f}" for r in args.tune)
              + f" | {np.mean(valid):.4f} | {option_auc(tune, held):.4f} | {bias} |", flush=True)


if __name__ == "__main__":
    main()
