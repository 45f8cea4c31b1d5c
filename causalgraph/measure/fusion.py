"""Fusion measured: the answer set program's held-out scores with a reader's judgements at each weight of a
grid, and the weight chosen in each outer fold by the score on its training topics."""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import GroupKFold

from ..data import question_score
from ..readers.base import Judgement, ReaderJudgements
from ..reason.solve import SolverParams, solve_analysis

READER_WEIGHTS = (0, 25, 50, 100, 200, 400, 800)


def scores_by_weight(scored, edges, judgements: dict[tuple[str, str], Judgement], bias: int, reader: str = "reader",
                     weights=READER_WEIGHTS) -> dict[int, np.ndarray]:
    """Per-question scores of the fused program (the held-out topics `scored` with their held-out `edges`)
    for every weight of the grid; weight 0 is the structure model alone."""
    out = {}
    for weight in weights:
        judged = ReaderJudgements(reader, judgements, weight)
        row = []
        for analysis, e in zip(scored, edges):
            readers = (judged.for_questions(q.qid for q in analysis.topic.questions),) if weight else ()
            solution = solve_analysis(analysis, e, params=SolverParams(bias=bias), readers=readers)
            row += [question_score(solution.answers[q.qid], q.gold) for q in analysis.topic.questions]
        out[weight] = np.array(row)
    return out


def nested_choice(by_setting: dict, topics: np.ndarray, folds: int, size=lambda w: w) -> tuple[float, list]:
    """Mean held-out score when each outer fold (grouped by topic) takes the setting (a weight, or a tuple of
    weights) that scores best on its training topics; ties go to the smaller `size(setting)`."""
    held, chosen = nested_held(by_setting, topics, folds, size)
    return float(held.mean()), chosen


def nested_held(by_setting: dict, topics: np.ndarray, folds: int, size=lambda w: w) -> tuple[np.ndarray, list]:
    """`nested_choice`'s per-question held-out scores, and the settings chosen."""
    held, chosen = np.zeros(len(topics)), []
    for train, test in GroupKFold(n_splits=folds).split(topics, groups=topics):
        best = max(by_setting, key=lambda w: (by_setting[w][train].mean(), -size(w)))
        chosen.append(best)
        held[test] = by_setting[best][test]
    return held, chosen


def question_topics(scored) -> np.ndarray:
    """The topic id of every question of the analyses, in solving order."""
    return np.array([q.topic_id for a in scored for q in a.topic.questions])
