"""Does an evidence scorer trained on user-style topics answer them better than the shipped one (trained on the
AER topics)? Folds leave one topic out over the tuning sets (default ../shared/user-train and ../shared/user-dev);
the validation set (default ../shared/user-dev-2) is scored by a scorer fitted on all tuning topics and never
tunes anything. The precision bias is chosen on the held-out answers of the first tuning set only (user-train),
so the second (user-dev) is scored at a bias it did not choose. Reports the option AUC (every candidate pair's
held-out probability against its gold) and the AER score of the solved answers under priors none.

    python benchmarks/user_scorer.py --cache-dir /tmp/user-cache
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np
from sklearn.metrics import roc_auc_score

import causalgraph as cg
from causalgraph.analysis.cache import AnalysisCache
from causalgraph.config import DEFAULT_MODEL
from causalgraph.data.metric import question_score
from causalgraph.learn.scorer import EdgeScorer, edge_scores, pair_frame
from causalgraph.reason.groups import PRIORS
from causalgraph.reason.solve import SolverParams, solve_analysis
from causalgraph.run.batch import scorer_for
from labelled import print_table, run_benchmark
from user_topics import topic_folders

SHARED = Path(__file__).resolve().parents[2] / "shared"
BIASES = range(-100, 301, 25)  # precision biases tried (log-odds x 100)


def analyses(roots: list[Path], cache_dir: str | None) -> dict[str, list]:
    """Each set's topic analyses, read as `answer` reads them under priors none."""
    _, encoder = scorer_for(Path(DEFAULT_MODEL).resolve(), "none")
    cache = AnalysisCache.open(cache_dir, encoder) if cache_dir else None
    found = {}
    for root in roots:
        topics = [cg.load_topics(folder)[0] for folder in topic_folders(root)]
        found[root.name] = [cache.analyse(t)[0] if cache else cg.analysis.analyse.analyse_topic(t, encoder) for t in topics]
    return found


def score(analysis, probabilities: dict, bias: int) -> list[float]:
    """The AER score of each question of the topic, solved under priors none at this bias."""
    without, none_prior = PRIORS["none"]
    solution = solve_analysis(analysis, probabilities, without, SolverParams(bias=bias, none_prior=none_prior))
    return [question_score(solution.answers[q.qid], q.gold) for q in analysis.topic.questions]


def held_out(train: list, test: list, features: tuple[str, ...]) -> list[dict]:
    """The probabilities of the `test` topics' pairs by a scorer fitted on the `train` topics' pairs."""
    scorer = EdgeScorer(features=features, max_iter=100, max_leaf_nodes=4)
    scorer.fit(pair_frame([a.table for a in train]), np.concatenate([a.gold() for a in train]))
    return [edge_scores(a.table, scorer) for a in test]


def sets_parser(doc: str) -> argparse.ArgumentParser:
    """The options of a benchmark over user-style sets: the tuning sets, the validation set and the cache."""
    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tune", nargs="+", type=Path, default=[SHARED / "user-train", SHARED / "user-dev"])
    parser.add_argument("--validate", type=Path, default=SHARED / "user-dev-2")
    parser.add_argument("--cache-dir", help="the analysis cache (default: none)")
    return parser


def main() -> int:
    args = sets_parser(__doc__).parse_args()
    sets = analyses([*args.tune, args.validate], args.cache_dir)
    shipped = scorer_for(Path(DEFAULT_MODEL).resolve(), "none")[0]
    features = tuple(f for f in shipped.features if f != "cause_is_target")
    tuning = [a for root in args.tune for a in sets[root.name]]
    probabilities = {"shipped": {id(a): edge_scores(a.table, shipped) for s in sets.values() for a in s}}
    trained = {}
    for i, a in enumerate(tuning):
        trained[id(a)] = held_out(tuning[:i] + tuning[i + 1:], [a], features)[0]
    for a, p in zip(sets[args.validate.name], held_out(tuning, sets[args.validate.name], features)):
        trained[id(a)] = p
    probabilities["trained on user-style topics"] = trained
    first = sets[args.tune[0].name]
    rows = []
    for name, probs in probabilities.items():
        bias = max(BIASES, key=lambda b: sum(s for a in first for s in score(a, probs[id(a)], b)))
        cells = []
        for root in [*args.tune, args.validate]:
            topic_analyses = sets[root.name]
            gold = np.concatenate([a.gold() for a in topic_analyses])
            p = np.concatenate([[probs[id(a)][pair] for pair in a.table.pairs] for a in topic_analyses])
            cells += [roc_auc_score(gold, p), float(np.mean([s for a in topic_analyses for s in score(a, probs[id(a)], bias)]))]
        rows.append((f"{name} (bias {bias})", cells))
    print_table("scorer", [f"{root.name} {what}" for root in [*args.tune, args.validate] for what in ("AUC", "score")], rows)
    return 0


if __name__ == "__main__":
    run_benchmark(main)
