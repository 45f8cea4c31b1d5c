"""The size blend's bands chosen by grouped CV: held-out topics of every size answered with the structure and
the evidence scorers' log-odds mixed at each weight and precision bias of a grid, and each band of topic sizes
given the setting that scores best on its held-out questions."""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import GroupKFold

from ..analysis.analyse import TopicAnalysis
from ..data import question_score
from ..reason.solve import SolverParams, solve_analysis
from .scorer import SizeBand, _logit

# Upper bounds of the bands of topic sizes (questions), the last band taking any larger topic. The labelled
# topics are cut to sizes in each band (cut_topic) so that every band has held-out topics to choose by.
BAND_LIMITS: tuple[int | None, ...] = (4, 14, 39, None)
BAND_SIZES = (1, 3, 5, 10, 20, 40)  # sizes of the cut topics, beside the whole and the test-shaped ones
WEIGHTS = (0.0, 0.25, 0.5, 0.75, 1.0)  # the structure scorer's share of the log-odds
BIASES = (100, 150, 200, 250, 300)


@dataclass(frozen=True)
class HeldOutPair:
    """Held-out topics (cut from the labelled ones) with both scorers' held-out edge probabilities."""

    topics: list[TopicAnalysis]
    structure: list[dict[tuple[int, int], float]]
    evidence: list[dict[tuple[int, int], float]]

    def question_topics(self) -> np.ndarray:
        """The original topic of every question, in solving order."""
        return np.array([q.topic_id for a in self.topics for q in a.topic.questions])

    def question_bands(self, limits=BAND_LIMITS) -> np.ndarray:
        """The band (index into `limits`) of every question's topic, in solving order."""
        return np.array([band_of(len(a.topic.questions), limits) for a in self.topics for q in a.topic.questions])


def band_of(questions: int, limits=BAND_LIMITS) -> int:
    return next(i for i, limit in enumerate(limits) if limit is None or questions <= limit)


def blended(structure: dict, evidence: dict, weight: float, documents: bool = True) -> dict:
    """The size blend's probabilities at one weight (see SizeBlend.predict_proba)."""
    w = weight if documents else 1.0
    return {p: float(1 / (1 + np.exp(-(w * _logit(np.array(structure[p])) + (1 - w) * _logit(np.array(evidence[p]))))))
            for p in structure}


def setting_scores(held: HeldOutPair, weight: float, bias: int, without: frozenset[str] = frozenset(),
                   none_prior: int | None = None) -> np.ndarray:
    """Per-question scores of the answer set program over the held-out topics at one setting."""
    out = []
    params = SolverParams(bias=bias, none_prior=none_prior)
    for analysis, s, e in zip(held.topics, held.structure, held.evidence):
        edges = blended(s, e, weight, bool(analysis.topic.documents))
        solution = solve_analysis(analysis, edges, without, params)
        out += [question_score(solution.answers[q.qid], q.gold or frozenset()) for q in analysis.topic.questions]
    return np.array(out)


def grid_scores(held: HeldOutPair, without: frozenset[str] = frozenset(), none_prior: int | None = None,
                progress=None) -> dict[tuple[float, int], np.ndarray]:
    """Per-question scores at every (weight, bias) of WEIGHTS x BIASES."""
    out = {}
    for weight, bias in itertools.product(WEIGHTS, BIASES):
        out[(weight, bias)] = setting_scores(held, weight, bias, without, none_prior)
        if progress is not None:
            progress.update()
    return out


def choose(by_setting: dict[tuple[float, int], np.ndarray], bands: np.ndarray, mask: np.ndarray,
           limits=BAND_LIMITS) -> tuple[SizeBand, ...]:
    """Each band's setting with the best mean score over its questions in `mask` (ties: the more structure,
    then the smaller bias; a band with no such question takes the setting best over all of them)."""
    chosen = []
    overall = max(by_setting, key=lambda s: (by_setting[s][mask].mean(), s[0], -s[1]))
    for i, limit in enumerate(limits):
        where = mask & (bands == i)
        best = max(by_setting, key=lambda s: (by_setting[s][where].mean(), s[0], -s[1])) if where.any() else overall
        chosen.append(SizeBand(limit, best[0], best[1]))
    return tuple(chosen)


def nested_band_scores(by_setting: dict[tuple[float, int], np.ndarray], held: HeldOutPair, folds: int,
                       limits=BAND_LIMITS) -> tuple[np.ndarray, list[tuple[SizeBand, ...]]]:
    """Per-question scores when each outer fold (grouped by original topic) answers its questions with the bands
    chosen on the other folds' held-out questions; and the bands of each fold."""
    topics, bands = held.question_topics(), held.question_bands(limits)
    scores, chosen = np.zeros(len(topics)), []
    for train, test in GroupKFold(n_splits=folds).split(topics, groups=topics):
        mask = np.zeros(len(topics), dtype=bool)
        mask[train] = True
        fold_bands = choose(by_setting, bands, mask, limits)
        chosen.append(fold_bands)
        for i, band in enumerate(fold_bands):
            where = test[bands[test] == i]
            scores[where] = by_setting[(band.structure, band.bias)][where]
    return scores, chosen
