"""Cross-validation of the whole path with scikit-learn's folds grouped by topic, and a topic-level bootstrap
interval."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import GroupKFold, cross_val_predict, cross_validate

from ..data import question_score
from ..analysis.analyse import TopicAnalysis, subset_analysis
from ..reason.solve import SolverParams, solve_analysis
from .scorer import EdgeScorer, Scorer, edge_scores, pair_frame, with_scorer_bias


@dataclass(frozen=True)
class FoldResult:
    """Per-question scores of one configuration, with the topic of each question."""

    name: str
    scores: np.ndarray
    topics: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.scores.mean())


@dataclass(frozen=True)
class TopicShape:
    """How many questions a topic holds, and how many of them offer None."""

    questions: int
    none_offered: int

    @classmethod
    def of(cls, topic) -> "TopicShape":
        return cls(len(topic.questions), sum(q.none_label is not None for q in topic.questions))


def none_split(analysis: TopicAnalysis) -> tuple[list[bool], list[int], list[int]]:
    """Whether each question of the topic offers None, and the indices of those that do and of the others."""
    offers = [q.none_label is not None for q in analysis.topic.questions]
    return offers, [i for i, o in enumerate(offers) if o], [i for i, o in enumerate(offers) if not o]


def resized_copies(analyses: list[TopicAnalysis], shapes: list[TopicShape], copies: int,
                   seed: int = 0) -> list[list[TopicAnalysis]]:
    """For each topic, `copies` versions restricted to a random subset of its questions, each with the
    shape of a topic drawn from `shapes` (those of the split to be answered), as far as the topic's own None
    and other questions go: test topics hold fewer questions per event, and offer None 2.5 times as often,
    and the structure features depend on both."""
    rng = random.Random(seed)
    out = []
    for a in analyses:
        offers, none, other = none_split(a)
        topic_copies = []
        for _ in range(copies):
            shape = rng.choice(shapes)
            k = min(shape.none_offered, len(none))
            picked = rng.sample(none, k) + rng.sample(other, min(shape.questions - k, len(other)))
            topic_copies.append(subset_analysis(a, picked))
        out.append(topic_copies)
    return out


TRAIN_COPIES, HELD_COPIES = 6, 3


def resized_sets(analyses: list[TopicAnalysis], shapes: list[TopicShape]) -> tuple[list | None, list | None]:
    """Per-topic copies cut to `shapes`: TRAIN_COPIES added to training, HELD_COPIES scored in place of the
    held-out topics; (None, None) without shapes. Seeded, so every command gets the same copies."""
    if not shapes:
        return None, None
    return resized_copies(analyses, shapes, TRAIN_COPIES, seed=1), resized_copies(analyses, shapes, HELD_COPIES, seed=2)


def cut_topic(analysis: TopicAnalysis, k: int | None, seed: int = 0) -> list[TopicAnalysis]:
    """The topic's questions in a seeded random order, cut into topics of `k` questions (the last may hold
    fewer), so that each question is answered once at that size; the topic itself when `k` is None or at
    least its size."""
    n = len(analysis.topic.questions)
    if k is None or k >= n:
        return [analysis]
    order = list(range(n))
    random.Random(f"{seed}/{analysis.topic.topic_id}/{k}").shuffle(order)
    return [subset_analysis(analysis, order[i:i + k]) for i in range(0, n, k)]


# Sizes of the copies that teach a size-aware scorer topics from a question alone up to about the test split's.
SIZE_COPIES = (1, 2, 3, 5, 8, 13, 21)


def sized_copies(analyses: list[TopicAnalysis], sizes: tuple[int, ...], shapes: list[TopicShape],
                 seed: int = 3) -> list[list[TopicAnalysis]]:
    """For each topic and each size k, as many copies of k of its questions as cover the topic about once;
    each question of a copy offers None with the None share of a topic drawn from `shapes` (the answered
    split's), as far as the topic's own None questions go; without `shapes`, a copy is a plain random subset."""
    rng = random.Random(seed)
    out = []
    for a in analyses:
        offers, none, other = none_split(a)
        topic_copies = []
        for k in sizes:
            k = min(k, len(offers))
            for _ in range(-(-len(offers) // k)):
                if shapes:
                    shape = rng.choice(shapes)
                    want = sum(rng.random() < shape.none_offered / shape.questions for _ in range(k))
                    want = max(min(want, len(none)), k - len(other))
                    picked = rng.sample(none, want) + rng.sample(other, k - want)
                else:
                    picked = rng.sample(range(len(offers)), k)
                topic_copies.append(subset_analysis(a, picked))
        out.append(topic_copies)
    return out


def training_data(analyses: list[TopicAnalysis], extra: list[list[TopicAnalysis]] | None = None):
    """(X, y, groups) over the pairs of the topics and of their `extra` copies; a copy's pairs carry its topic's
    id as their group, so grouped folds keep a topic and its copies on the same side."""
    rows = [(a, a.topic.topic_id) for a in analyses]
    rows += [(c, a.topic.topic_id) for a, cs in zip(analyses, extra or [[]] * len(analyses)) for c in cs]
    X = pair_frame([a.table for a, _ in rows])
    y = np.concatenate([a.gold() for a, _ in rows]).astype(int) if rows else np.zeros(0, dtype=int)
    groups = np.concatenate([np.full(len(a.table.pairs), t) for a, t in rows]) if rows else np.zeros(0, dtype=int)
    return X, y, groups


def fit_scorer(make_scorer, analyses: list[TopicAnalysis], extra=None) -> EdgeScorer:
    """A scorer fitted on the pairs of the topics and their `extra` copies."""
    X, y, _ = training_data(analyses, extra)
    return make_scorer().fit(X, y)


def fold_scorers(analyses: list[TopicAnalysis], folds: int, make_scorer=EdgeScorer,
                 extra: list[list[TopicAnalysis]] | None = None) -> list[EdgeScorer]:
    """For each topic, the scorer that scikit-learn's grouped CV fitted on the folds without it (and without
    its copies in `extra`)."""
    X, y, groups = training_data(analyses, extra)
    fitted = cross_validate(make_scorer(), X, y, groups=groups, cv=GroupKFold(n_splits=folds), scoring="roc_auc",
                            return_estimator=True, return_indices=True)
    fold_of = {}
    for scorer, test in zip(fitted["estimator"], fitted["indices"]["test"]):
        fold_of.update({int(t): scorer for t in np.unique(groups[test])})
    return [fold_of[a.topic.topic_id] for a in analyses]


def held_out_probabilities(analyses: list[TopicAnalysis], folds: int, make_scorer=EdgeScorer,
                           extra: list[list[TopicAnalysis]] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """(gold, P(cause)) of every pair of the topics, each predicted by scikit-learn's `cross_val_predict`
    with folds grouped by topic (a topic's copies in `extra` stay in its fold)."""
    X, y, groups = training_data(analyses, extra)
    p = cross_val_predict(make_scorer(), X, y, groups=groups, cv=GroupKFold(n_splits=folds), method="predict_proba")
    n = sum(len(a.table.pairs) for a in analyses)  # the topics' own pairs come first
    return y[:n], p[:n, 1]


def held_out_scores(
    analyses: list[TopicAnalysis],
    scores: list[dict[tuple[int, int], float]],
    name: str = "full",
    without: frozenset[str] = frozenset(),
    params: SolverParams = SolverParams(),
    scorers: list[Scorer] | None = None,
) -> FoldResult:
    """Solve every topic with its held-out edge scores and score each question against gold; where `params` sets
    no precision bias, each topic takes that of its scorer in `scorers` for its size."""
    results, topics = [], []
    for i, (analysis, edges) in enumerate(zip(analyses, scores)):
        topic_params = with_scorer_bias(params, scorers[i], len(analysis.topic.questions)) if scorers else params
        solution = solve_analysis(analysis, edges, without, topic_params)
        for q in analysis.topic.questions:
            results.append(question_score(solution.answers[q.qid], q.gold or frozenset()))
            topics.append(q.topic_id)
    return FoldResult(name, np.array(results), np.array(topics))


def bootstrap_interval(result: FoldResult, n: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% interval of the mean score, resampling whole topics (questions of a topic are not independent)."""
    means = resampled_means(result.scores[None, :], result.topics, n, seed)[:, 0]
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


def resampled_means(scores: np.ndarray, topics: np.ndarray, n: int = 2000, seed: int = 0) -> np.ndarray:
    """Each row of per-question `scores` (rows x questions) averaged over the questions of `n` draws of whole
    topics with replacement: draws x rows, the same draws for every row."""
    ids = np.unique(topics)
    sums = np.array([[row[topics == t].sum() for t in ids] for row in scores])
    counts = np.array([(topics == t).sum() for t in ids])
    picks = np.random.default_rng(seed).integers(0, len(ids), size=(n, len(ids)))
    return (sums[:, picks].sum(axis=2) / counts[picks].sum(axis=1)).T


def per_copy(models: list, held: list[list[TopicAnalysis]] | None) -> list:
    """Each topic's held-out scorer once for each of its `held` copies (`models` itself without copies)."""
    return models if held is None else [m for m, cs in zip(models, held) for _ in cs]


def held_out_edges(analyses, models, held=None) -> tuple[list[TopicAnalysis], list[dict]]:
    """The topics (or their `held` copies) with the edge scores of their held-out scorers."""
    if held is not None:
        analyses = [c for cs in held for c in cs]
    return analyses, [edge_scores(a.table, m) for a, m in zip(analyses, per_copy(models, held))]


def held_out_regimes(analyses, models, held=None):
    """("whole", topics, their held-out edge scores), then, where `held` copies are given (see resized_sets),
    ("test-shaped", the copies, their edge scores)."""
    yield ("whole", *held_out_edges(analyses, models))
    if held is not None:
        yield ("test-shaped", *held_out_edges(analyses, models, held))
