"""Edge-scorer variants under one grouped-by-topic 5-fold CV over train + dev + sample, with the precision bias
fixed at the shipped scorer's: edge AUC and AER score on whole held-out topics and on held-out topics cut to
the test split's shapes (sizes and None offers), with topic-bootstrap 95% intervals.

Variants: the shipped scorer (training adds copies cut to the test split's shapes); no training copies;
copies cut to the test split's sizes only (questions drawn at random, so None stays as rare as in the
labelled topics); the document evidence features switched on; and a learned question-only signal stacked
as one more feature (logistic regression over frozen embeddings of the two texts, [u, v, u*v, |u-v|], whose
scores for training topics come from an inner grouped CV so no topic's feature saw its own labels). Then the
AUC of each document evidence feature alone, on the pairs of the topics that have documents.

    python -m lab.scorer.compare_scorers --data ../shared/aer
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace
from functools import partial

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import GroupKFold

from causalgraph.analysis.analyse import TopicAnalysis, subset_analysis
from lab.common import labelled_cv, run_benchmark

from causalgraph.measure.inputs import describe_held, shipped_bias
from causalgraph.analysis.table import FEATURES, PairTable
from causalgraph.graph.features import QUESTION_FEATURES, SIZE_FEATURES, STRUCTURE_FEATURES
from causalgraph.learn.crossval import (TRAIN_COPIES, FoldResult, bootstrap_interval, fit_scorer, held_out_edges,
                                        held_out_scores)
from causalgraph.learn.scorer import EdgeScorer
from causalgraph.reason.solve import SolverParams
from causalgraph.text.embed import encode

HEAD = "question_head"


@dataclass(frozen=True)
class HeadTable(PairTable):
    """A pair table with the question-only head's score as one more named column."""

    head: np.ndarray | None = None

    def frame(self):
        return super().frame().assign(**{HEAD: self.head})


def size_only_copies(analyses, shapes, copies: int, seed: int) -> list[list[TopicAnalysis]]:
    """Copies with the split's topic sizes, their questions drawn at random (None offers not matched)."""
    rng = random.Random(seed)
    out = []
    for a in analyses:
        n = len(a.topic.questions)
        out.append([subset_analysis(a, rng.sample(range(n), min(rng.choice(shapes).questions, n)))
                    for _ in range(copies)])
    return out


def text_pairs(a: TopicAnalysis) -> np.ndarray:
    """[u, v, u*v, |u-v|] of the cause and target embeddings of every candidate pair."""
    vectors = encode([a.graph.nodes[n]["text"] for n in a.graph], a.encoder)
    u = vectors[[e for e, _ in a.table.pairs]]
    v = vectors[[t for _, t in a.table.pairs]]
    return np.hstack([u, v, u * v, np.abs(u - v)])


def keys(a: TopicAnalysis) -> list[tuple[str, str]]:
    return [(a.graph.nodes[e]["norm"], a.graph.nodes[t]["norm"]) for e, t in a.table.pairs]


def with_head(a: TopicAnalysis, scores: dict) -> TopicAnalysis:
    """The analysis with the question-only score (looked up by the pair's texts) as one more feature column."""
    table = HeadTable(a.table.pairs, a.table.structure, a.table.evidence, np.array([scores[k] for k in keys(a)]))
    return replace(a, table=table)


def head_scores(analyses, pairs_x, train: list[int], score: list[int]) -> dict[int, dict]:
    """Fit the question-only head on `train` topics; its P(cause) by pair texts for each `score` topic."""
    x = np.vstack([pairs_x[i] for i in train])
    y = np.concatenate([analyses[i].gold() for i in train])
    head = LogisticRegression(max_iter=2000).fit(x, y)
    return {i: dict(zip(keys(analyses[i]), head.predict_proba(pairs_x[i])[:, 1])) for i in score}


def evaluate(name, analyses, folds, held, bias, fit_fold) -> str:
    """One table row. `fit_fold(train, test)` returns a scorer and a function mapping (analysis, its topic
    index) to the analysis the scorer reads."""
    topics = np.array([a.topic.topic_id for a in analyses])
    probs, gold, regimes = [], [], {"whole": ([], []), "shaped": ([], [])}
    for train, test in GroupKFold(n_splits=folds).split(topics, groups=topics):
        scorer, view = fit_fold(list(train), list(test))
        for i in test:
            a = view(analyses[i], i)
            probs.append(scorer.predict_proba(a.table.frame())[:, 1])
            gold.append(a.gold())
            for regime, copies in (("whole", [a]), ("shaped", [view(c, i) for c in held[i]])):
                scored, edges = held_out_edges(copies, [scorer] * len(copies))
                result = held_out_scores(scored, edges, params=SolverParams(bias=bias))
                regimes[regime][0].append(result.scores)
                regimes[regime][1].append(result.topics)
    cells = [name, f"{roc_auc_score(np.concatenate(gold), np.concatenate(probs)):.3f}"]
    for scores, topic_ids in regimes.values():
        result = FoldResult(name, np.concatenate(scores), np.concatenate(topic_ids))
        low, high = bootstrap_interval(result)
        cells.append(f"{result.mean:.4f} ({low:.3f}-{high:.3f})")
    return "| " + " | ".join(cells) + " |"


def evidence_feature_aucs(analyses) -> list[tuple[str, float]]:
    """Each evidence feature's AUC alone over the candidate pairs of the topics with documents."""
    documented = [a for a in analyses if a.topic.documents]
    gold = np.concatenate([a.gold() for a in documented])
    values = np.vstack([a.table.evidence for a in documented])
    names = FEATURES[len(STRUCTURE_FEATURES):]
    return [(n, roc_auc_score(gold, values[:, i])) for i, n in enumerate(names) if len(set(values[:, i])) > 1]


def main() -> None:
    args, analyses, shapes, extra, held = labelled_cv(__doc__)
    sized = size_only_copies(analyses, shapes, TRAIN_COPIES, seed=1)
    bias = shipped_bias()
    topics = np.array([a.topic.topic_id for a in analyses])

    def plain(make=EdgeScorer, copies=extra):
        def fit_fold(train, test):
            scorer = fit_scorer(make, [analyses[i] for i in train], [copies[i] for i in train] if copies else None)
            return scorer, lambda a, i: a
        return fit_fold

    pairs_x = [text_pairs(a) for a in analyses]

    def stacked(train, test):
        inner = {}
        for fit_idx, score_idx in GroupKFold(n_splits=args.folds - 1).split(topics[train], groups=topics[train]):
            inner.update(head_scores(analyses, pairs_x, [train[j] for j in fit_idx], [train[j] for j in score_idx]))
        outer = head_scores(analyses, pairs_x, train, test)
        scorer = fit_scorer(partial(EdgeScorer, features=(*QUESTION_FEATURES, HEAD)),
                            [with_head(analyses[i], inner[i]) for i in train],
                            [[with_head(c, inner[i]) for c in extra[i]] for i in train])
        return scorer, lambda a, i: with_head(a, outer[i])

    print(f"Grouped-by-topic {args.folds}-fold CV over {len(analyses)} topics, bias {bias}; held-out topics cut to "
          f"the test split's shapes ({describe_held(held, shapes)})\n")
    print("| edge scorer | edge AUC | whole held-out topics | held-out cut to test shapes |\n|---|---|---|---|")
    variants = [("shipped: copies cut to test shapes", plain()), ("no training copies", plain(copies=None)),
                ("copies cut to test sizes only", plain(copies=sized)),
                ("+ document evidence features",
                 plain(partial(EdgeScorer, features=tuple(f for f in FEATURES if f not in SIZE_FEATURES)))),
                ("+ question-only embedding head", stacked)]
    for name, fit_fold in variants:
        print(evaluate(name, analyses, args.folds, held, bias, fit_fold), flush=True)
    documented = sum(len(a.table.pairs) for a in analyses if a.topic.documents)
    print(f"\nEvidence features alone, AUC over the {documented} pairs of topics with documents\n")
    print("| feature | AUC |\n|---|---|")
    for name, auc in evidence_feature_aucs(analyses):
        print(f"| {name} | {auc:.3f} |")


if __name__ == "__main__":
    run_benchmark(main)
