"""Variants of the scorer of a user's own topics (`--priors none`, learn/user.py) that were measured and not
shipped, held out as lab/user/user_scorer.py holds them out: each tuning topic (default ../shared/user-train and
../shared/user-dev) scored by a scorer fitted on the other tuning topics and answered at the bias chosen on their
held-out answers; the validation set (default ../shared/user-dev-2) by one fitted on every tuning topic, at the
bias chosen on all of them. Every variant reads the topics once, with the model's encoder, as the scorer of a
user's topic did before it read them twice ("shipped": that scorer of one reading). The variants:
- the statements' margins taken over the mean of the question's other options, not the best of them (so that two
  options stated as causes do not cancel each other's margin), or left out;
- a logistic regression (standardised features, missing values as 0) in place of the small boosted trees;
- the labelled AER topics (train, dev and sample, topics 11-36 with train-evidence/) added to the training
  topics, their summed sample weight a share of the user-style topics';
- the documents read with a second encoder (`--second-encoder`, default all-mpnet-base-v2, which the install
  brings): the shipped scorer's features fitted on that reading alone, and the two scorers' log-odds
  averaged (each fitted on its own reading of the same topics), as they are and times 1.5 (since shipped:
  learn/user.py, ReadingBlend).
A last table asks whether the second-ranked option of a question could be taken on its probability: how often it
is a cause, by the held-out probability the shipped features give it.

    python -m lab.user.user_scorer_variants --cache-dir /tmp/user-cache
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.impute import SimpleImputer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from causalgraph.analysis.analyse import analyse_topic
from causalgraph.analysis.cache import AnalysisCache
from causalgraph.config import DEFAULT_MODEL
from causalgraph.data import load_labelled
from causalgraph.data.odds import logit
from causalgraph.evidence.statements import STATEMENT_FEATURES
from causalgraph.graph.features import versus_other_options
from causalgraph.learn.scorer import EdgeScorer
from causalgraph.learn.user import BIASES, USER_PARAMS, chosen_biases, topic_scores, user_features
from causalgraph.run.batch import scorer_for
from causalgraph.text.embed import MPNET, resolve_model_path
from lab.common import SHARED, run_benchmark
from lab.user.user_scorer import analyses, answer_shapes, option_auc, option_probabilities, sets_parser

SHIPPED = user_features()
VERSUS_BEST = tuple(f"{f}_minus_best_other" for f in STATEMENT_FEATURES)
VERSUS_MEAN = tuple(f"{f}_minus_mean_other" for f in STATEMENT_FEATURES)


def with_mean_margins(analysis) -> pd.DataFrame:
    """The topic's pair table with each statement feature less its mean over the question's other options (averaged
    over the questions offering the pair), as VERSUS_MEAN."""
    frame = analysis.table.frame().copy()
    for feature, column in zip(STATEMENT_FEATURES, VERSUS_MEAN):
        margin, _ = versus_other_options(analysis.graph, dict(zip(analysis.table.pairs, frame[feature])), np.mean)
        frame[column] = [margin.get(p, 0.0) for p in analysis.table.pairs]
    return frame


def boosted(features: tuple[str, ...]) -> Callable[[], EdgeScorer]:
    """The user-topic scorer's boosted trees over `features`."""
    return lambda: EdgeScorer(features=features, **USER_PARAMS)


def logistic(c: float) -> Callable:
    """A logistic regression of inverse regularisation `c` over standardised features, missing values as 0."""
    return lambda: make_pipeline(SimpleImputer(strategy="constant", fill_value=0.0, keep_empty_features=True),
                                 StandardScaler(), LogisticRegression(C=c, max_iter=2000))


class Fits:
    """The tuning and validation topics' tables, and fits of a model over them with optional extra topics."""

    def __init__(self, tuning: list, validation: list, extra: list | None = None):
        self.tuning, self.validation = tuning, validation
        self.frames = [with_mean_margins(a) for a in tuning]
        self.gold = [a.gold() for a in tuning]
        self.validation_frames = [with_mean_margins(a) for a in validation]
        self.extra = (pd.concat([with_mean_margins(a) for a in extra]),
                      np.concatenate([a.gold() for a in extra])) if extra else None

    def fit(self, make: Callable, columns: tuple[str, ...], topics: list[int], extra_share: float):
        """`make()` fitted on the `topics` (tuning indices) and, with `extra_share`, the extra topics weighed so."""
        X = pd.concat([self.frames[i] for i in topics])[list(columns)]
        y = np.concatenate([self.gold[i] for i in topics])
        weight = np.ones(len(y))
        if extra_share and self.extra is not None:
            ex, ey = self.extra
            X, y = pd.concat([X, ex[list(columns)]]), np.concatenate([y, ey])
            weight = np.concatenate([weight, np.full(len(ey), extra_share * len(weight) / len(ey))])
        model = make()
        return (model.fit(X, y, sample_weight=weight) if isinstance(model, EdgeScorer)
                else model.fit(X, y, logisticregression__sample_weight=weight))

    @staticmethod
    def probabilities(model, frame: pd.DataFrame, analysis, columns: tuple[str, ...]) -> dict:
        return dict(zip(analysis.table.pairs, map(float, model.predict_proba(frame[list(columns)])[:, 1])))

    def held_out(self, make: Callable, columns: tuple[str, ...],
                 extra_share: float = 0.0) -> tuple[list[dict], list[dict]]:
        """Each tuning topic's probabilities by a fit on the other tuning topics; the validation topics' by one fit on
        every tuning topic."""
        n = len(self.tuning)
        held = [self.probabilities(self.fit(make, columns, [j for j in range(n) if j != i], extra_share),
                                   self.frames[i], self.tuning[i], columns) for i in range(n)]
        model = self.fit(make, columns, list(range(n)), extra_share)
        return held, [self.probabilities(model, f, a, columns) for f, a in zip(self.validation_frames, self.validation)]


SHARPEN = (1.0, 1.5)  # the averaged log-odds times these: an average of two scorers is less extreme than either


def averaged(first: list[dict], second: list[dict], sharpen: float = 1.0) -> list[dict]:
    """Per topic, each pair's probability with the mean of the two scorers' log-odds, times `sharpen`."""
    return [{k: float(expit(sharpen * (logit(p[k], 1e-4) + logit(q[k], 1e-4)) / 2)) for k in p}
            for p, q in zip(first, second)]


def main() -> int:
    parser = sets_parser(__doc__)
    parser.add_argument("--aer", type=Path, default=SHARED / "aer", help="the AER data folder (its labelled topics)")
    parser.add_argument("--second-encoder", default=MPNET,
                        help="the encoder of the second reading (default: %(default)s; '' for none)")
    args = parser.parse_args()
    if args.second_encoder:
        resolve_model_path(args.second_encoder)  # its weights found before the long part, or one line naming them
    sets = analyses([*args.tune, args.validate], args.cache_dir)
    tuning = [a for root in args.tune for a in sets[root.name]]
    names = [root.name for root in args.tune for _ in sets[root.name]]
    _, encoder = scorer_for(Path(DEFAULT_MODEL).resolve(), "none")
    cache = AnalysisCache.open(args.cache_dir, encoder) if args.cache_dir else None
    aer = [cache.analyse(t)[0] if cache else analyse_topic(t, encoder) for t in load_labelled(args.aer, evidence=True)]
    fits = Fits(tuning, sets[args.validate.name], aer)
    base = tuple(f for f in SHIPPED if f not in VERSUS_BEST)
    variants = [("shipped", boosted(SHIPPED), SHIPPED, 0.0),
                ("statements' margins over the mean of the other options", boosted(base + VERSUS_MEAN),
                 base + VERSUS_MEAN, 0.0),
                ("without the statements' margins", boosted(base), base, 0.0),
                ("logistic regression, C 0.03", logistic(0.03), SHIPPED, 0.0),
                ("logistic regression, C 0.1", logistic(0.1), SHIPPED, 0.0)]
    variants += [(f"with the AER topics, weighed {share:g} of the user-style topics", boosted(SHIPPED), SHIPPED, share)
                 for share in (0.25, 1.0)]
    print("| scorer | AUC, tuning / validation | set | questions | score | several labels (gold has several) | None "
          "chosen where right | None chosen where wrong | answers with a wrong label | of them, with several labels |")
    print("|---|---|---|---|---|---|---|---|---|---|")

    def report(label: str, held: list[dict], validation: list[dict]) -> None:
        """The variant's rows: each tuning set at the biases chosen on the other topics, the validation set at the
        bias chosen on all of them."""
        nested, everything = chosen_biases({b: [sum(topic_scores(a, p, b)) for a, p in zip(tuning, held)]
                                            for b in BIASES})
        aucs = f"{option_auc(tuning, held):.4f} / {option_auc(fits.validation, validation):.4f}"
        for root in args.tune:
            ids = [i for i, name in enumerate(names) if name == root.name]
            print(f"| {label} | {aucs} | {root.name} | "
                  f"{answer_shapes([tuning[i] for i in ids], [held[i] for i in ids], [nested[i] for i in ids])} |")
        print(f"| {label} | {aucs} | {args.validate.name} | "
              f"{answer_shapes(fits.validation, validation, [everything] * len(validation))} |", flush=True)

    shipped_held, shipped_validation = fits.held_out(*variants[0][1:])
    report(variants[0][0], shipped_held, shipped_validation)
    for label, make, columns, share in variants[1:]:
        report(label, *fits.held_out(make, columns, share))
    if args.second_encoder:  # the same topics read with a second encoder, and the two scorers averaged
        second = analyses([*args.tune, args.validate], args.cache_dir, args.second_encoder)
        held, validation = Fits([a for root in args.tune for a in second[root.name]],
                                second[args.validate.name]).held_out(
            boosted(SHIPPED), SHIPPED)
        report(f"the documents read with {args.second_encoder}", held, validation)
        for k in SHARPEN:
            report(f"the shipped scorer and that one averaged (mean log-odds, times {k:g})",
                   averaged(shipped_held, held, k), averaged(shipped_validation, validation, k))
    # the second-ranked option of each tuning question, by the shipped features' held-out probabilities
    bins = (0.0, 0.2, 0.3, 0.4, 0.5, 0.6, 1.0)
    rows = []
    for analysis, p in zip(tuning, shipped_held):
        for q in analysis.topic.questions:
            options = option_probabilities(analysis, p, q)
            first, second = sorted(options, key=options.get, reverse=True)[:2]
            rows.append((options[second], second in q.gold, first in q.gold))
    table = np.array(rows, dtype=float)
    print("\n| probability of the second-ranked option | questions | it is a cause | it is a cause, where the first is "
          "|")
    print("|---|---|---|---|")
    for low, high in zip(bins, bins[1:]):
        inside = (table[:, 0] > low) & (table[:, 0] <= high)
        both = inside & (table[:, 2] > 0)
        print(f"| {low:.1f}-{high:.1f} | {inside.sum()} | {table[inside, 1].mean():.2f} | {table[both, 1].mean():.2f} "
              "|")
    return 0


if __name__ == "__main__":
    run_benchmark(main)
