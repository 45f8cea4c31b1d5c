"""Cross-validation with folds grouped by topic, and a topic-level bootstrap interval."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import GroupKFold

from .data import question_score
from .pipeline import TopicAnalysis, answer_topic
from .reason import SolverParams
from .scoring import EdgeScorer


@dataclass(frozen=True)
class FoldResult:
    """Per-question scores of one configuration, with the topic of each question."""

    name: str
    scores: np.ndarray
    topics: np.ndarray

    @property
    def mean(self) -> float:
        return float(self.scores.mean())


def fold_scorers(analyses: list[TopicAnalysis], folds: int, make_scorer=EdgeScorer) -> list[EdgeScorer]:
    """For each topic, a scorer fitted on the folds that do not contain it."""
    topics = np.array([a.topic.topic_id for a in analyses])
    models: list[EdgeScorer | None] = [None] * len(analyses)
    for train, test in GroupKFold(n_splits=folds).split(topics, groups=topics):
        scorer = make_scorer().fit([analyses[i].table for i in train], [analyses[i].gold() for i in train])
        for i in test:
            models[i] = scorer
    return models


def held_out_scores(
    analyses: list[TopicAnalysis],
    models: list[EdgeScorer],
    name: str = "full",
    without: frozenset[str] = frozenset(),
    params: SolverParams = SolverParams(),
) -> FoldResult:
    """Answer every topic with its held-out scorer and score each question against gold."""
    scores, topics = [], []
    for analysis, model in zip(analyses, models):
        _, solution = answer_topic(analysis, model, without, params)
        for q in analysis.topic.questions:
            scores.append(question_score(solution.answers[q.qid], q.gold))
            topics.append(q.topic_id)
    return FoldResult(name, np.array(scores), np.array(topics))


def bootstrap_interval(result: FoldResult, n: int = 2000, seed: int = 0) -> tuple[float, float]:
    """95% interval of the mean score, resampling whole topics (questions of a topic are not independent)."""
    rng = np.random.default_rng(seed)
    ids = np.unique(result.topics)
    sums = np.array([result.scores[result.topics == t].sum() for t in ids])
    counts = np.array([(result.topics == t).sum() for t in ids])
    picks = rng.integers(0, len(ids), size=(n, len(ids)))
    means = sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    return float(np.percentile(means, 2.5)), float(np.percentile(means, 97.5))


BIAS_GRID = (0, 50, 100, 150)


def choose_bias(analyses: list[TopicAnalysis], folds: int, make_scorer=EdgeScorer, grid=BIAS_GRID) -> int:
    """The precision bias with the best grouped-CV score on these topics (first of ties)."""
    models = fold_scorers(analyses, folds, make_scorer)
    means = [held_out_scores(analyses, models, params=SolverParams(bias=b)).mean for b in grid]
    return grid[int(np.argmax(means))]


def nested_held_out_scores(analyses: list[TopicAnalysis], folds: int, make_scorer=EdgeScorer,
                           grid=BIAS_GRID) -> tuple[FoldResult, list[int]]:
    """Grouped CV in which each outer fold chooses its bias by an inner grouped CV on its training topics,
    so the score of the held-out topics never informs any choice. Returns the result and the biases."""
    topics = np.array([a.topic.topic_id for a in analyses])
    scores, ids, chosen = [], [], []
    for train, test in GroupKFold(n_splits=folds).split(topics, groups=topics):
        inner = [analyses[i] for i in train]
        bias = choose_bias(inner, folds - 1, make_scorer, grid)
        chosen.append(bias)
        scorer = make_scorer().fit([a.table for a in inner], [a.gold() for a in inner])
        held = held_out_scores([analyses[i] for i in test], [scorer] * len(test), params=SolverParams(bias=bias))
        scores.append(held.scores)
        ids.append(held.topics)
    return FoldResult("nested", np.concatenate(scores), np.concatenate(ids)), chosen
