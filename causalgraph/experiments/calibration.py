"""Readers' fusion measured under folds grouped by topic: each reader alone, at a fixed weight, calibrated
without gold on the answered topics, and calibrated from the gold answers of the other folds' topics; and the
scale on the readers' log-likelihood ratios chosen by nested grouped CV."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from sklearn.model_selection import GroupKFold
from tqdm import tqdm

from ..config import DEFAULT_MODEL
from ..data import LABELS, question_score
from ..learn.calibration import calibrate_readers
from ..learn.crossval import held_out_regimes
from ..learn.scorer import load_scorer, reads_documents
from ..readers.base import ReaderJudgements
from ..readers.calibration import DEFAULT_SCALE, SCALES, Key, ReaderCalibration, fit_all_with_gold
from ..reason.solve import SolverParams, solve_analysis
from .fusion import nested_choice
from .inputs import labelled_analyses

ReaderSetting = Callable[[list, list, set[int]], tuple[ReaderJudgements, ...]]


def answered_sets(scored: list, edges: list) -> list[tuple[list, list]]:
    """The held-out analyses as runs of `answer`: the i-th copy of every topic answered together (whole topics:
    one run), so gold-free calibration sees a split's worth of topics, as it does at test time."""
    seen: Counter = Counter()
    runs: dict[int, tuple[list, list]] = {}
    for analysis, e in zip(scored, edges):
        i = seen[analysis.topic.topic_id]
        seen[analysis.topic.topic_id] += 1
        runs.setdefault(i, ([], []))
        runs[i][0].append(analysis)
        runs[i][1].append(e)
    return [runs[i] for i in sorted(runs)]


def gold_of(runs: list[tuple[list, list]], topics: set[int] | None = None) -> dict[Key, bool]:
    """The gold label of every real option of the runs' questions (of `topics` only, where given)."""
    return {(q.qid, label): label in q.gold for analyses, _ in runs for a in analyses for q in a.topic.questions
            if (topics is None or q.topic_id in topics) and q.gold
            for label in LABELS if label != q.none_label}


def fused_scores(runs, setting: ReaderSetting, bias: int, judged: set[str], folds: int) -> tuple[np.ndarray, np.ndarray]:
    """Per-question scores of the questions in `judged` (and their topics), the runs solved with the readers that
    `setting(analyses, edges, training_topics)` returns for each outer fold's held-out topics."""
    topic_ids = sorted({a.topic.topic_id for analyses, _ in runs for a in analyses})
    splits = list(GroupKFold(n_splits=min(folds, len(topic_ids))).split(topic_ids, groups=topic_ids))
    scores, topics = [], []
    for train, test in splits:
        held, training = {topic_ids[i] for i in test}, {topic_ids[i] for i in train}
        for analyses, edges in runs:
            part = [(a, e) for a, e in zip(analyses, edges) if a.topic.topic_id in held]
            readers = setting([a for a, _ in part], [e for _, e in part], training)
            for a, e in part:
                qids = {q.qid for q in a.topic.questions}
                solution = solve_analysis(a, e, params=SolverParams(bias=bias),
                                          readers=tuple(r.for_questions(qids) for r in readers))
                for q in a.topic.questions:
                    if q.qid in judged:
                        scores.append(question_score(solution.answers[q.qid], q.gold))
                        topics.append(q.topic_id)
    return np.array(scores), np.array(topics)


def structure_only(analyses, edges, training) -> tuple:
    return ()


def fixed_weight(readers: Sequence[ReaderJudgements], weight: int) -> ReaderSetting:
    """Each reader's raw log-odds at a fixed weight."""
    return lambda analyses, edges, training: tuple(ReaderJudgements(r.reader, r.judgements, weight) for r in readers)


def without_gold(readers: Sequence[ReaderJudgements], scale: float | None, runs) -> ReaderSetting:
    """Gold-free calibration on the answered topics of each run: EM over all the run's topics (those of the other
    folds included, whose gold it never reads), as `answer` calibrates over the split it answers."""
    by_analysis = {}
    for analyses, edges in runs:
        calibrated = calibrate_readers(readers, analyses, edges, scale=scale)
        by_analysis.update({id(a): calibrated for a in analyses})
    return lambda analyses, edges, training: by_analysis[id(analyses[0])] if analyses else ()


def with_gold(readers: Sequence[ReaderJudgements], scale: float | None, runs) -> ReaderSetting:
    """Calibration from the gold answers of the training topics (the other folds'), as `calibrate` does."""
    def setting(analyses, edges, training):
        cals = fit_all_with_gold(readers, gold_of(runs, training), scale, "gold answers of other topics")
        return tuple(c.apply(r) for c, r in zip(cals, readers))
    return setting


def scale_choice(makes: Sequence[Callable[[float], ReaderSetting]], runs, bias: int, judged: set[str], folds: int,
                 scales=SCALES) -> tuple[list[dict[float, float]], float, list]:
    """For each setting maker (one per reader), the fused score at each scale; and the nested grouped-CV score
    over all of them pooled, each outer fold taking the scale that scores best on its training topics (with the
    scales chosen)."""
    means, topics = [], []
    pooled: dict[float, list[np.ndarray]] = {s: [] for s in scales}
    for make in makes:
        row = {}
        for s in scales:
            scores, t = fused_scores(runs, make(s), bias, judged, folds)
            row[s] = float(scores.mean())
            pooled[s].append(scores)
        topics.append(t)
        means.append(row)
    all_topics = np.concatenate(topics)
    nested, chosen = nested_choice({s: np.concatenate(v) for s, v in pooled.items()}, all_topics,
                                   min(folds, len(np.unique(all_topics))))
    return means, nested, chosen


def reader_alone(runs, reader: ReaderJudgements, judged: set[str]) -> float:
    """The reader's own answers scored as they are (labels it chose; probabilities above one half); an empty
    answer scores 0."""
    scores = []
    for analyses, _ in runs:
        for a in analyses:
            for q in a.topic.questions:
                if q.qid in judged:
                    chosen = frozenset(label for label in LABELS if _chooses(reader.judgements.get((q.qid, label))))
                    scores.append(question_score(chosen, q.gold))
    return float(np.mean(scores)) if scores else float("nan")


def _chooses(judgement) -> bool:
    if judgement is None:
        return False
    return bool(judgement.verdict) if judgement.probability is None else judgement.probability > 0.5


@dataclass(frozen=True)
class CalibrationReport:
    """What `calibrate` measured: the structure model alone, each reader alone, the gold-free default, the fused
    score at each scale with gold calibration, the nested choice, and the calibrations it writes."""

    regime: str
    structure: float
    alone: dict[str, float]
    without_gold: float
    by_scale: dict[float, float]
    nested: float
    chosen: list
    calibrations: tuple[ReaderCalibration, ...]

    def table(self) -> str:
        rows = ["| setting | fused CV score |", "|---|---|", f"| structure model alone | {self.structure:.4f} |"]
        rows += [f"| reader {name} alone | {score:.4f} |" for name, score in self.alone.items()]
        rows.append(f"| no gold, scale by topic size (the default without --reader-calibration) | {self.without_gold:.4f} |")
        rows += [f"| gold of the other folds' topics, scale {s:g} | {v:.4f} |" for s, v in self.by_scale.items()]
        rows.append(f"| nested: each outer fold's best scale ({', '.join(f'{c:g}' for c in self.chosen)}) | {self.nested:.4f} |")
        return "\n".join(rows)


def calibration_cv(analyses, models, held, readers: Sequence[ReaderJudgements], bias: int, folds: int,
                   scales=SCALES, progress: bool = True) -> CalibrationReport:
    """Grouped CV of the readers' gold calibration at each scale on held-out topics (the copies cut to the
    answered split's shapes where `held` is given), scored on the questions the readers judged; the
    calibrations fitted on all their gold at the best scale (ties: the smaller)."""
    name, scored, edges = list(held_out_regimes(analyses, models, held))[-1]
    runs = answered_sets(scored, edges)
    judged = {k[0] for r in readers for k in r.judgements}
    steps = tqdm(total=len(scales) + 2, desc="calibrating", unit="setting", disable=not progress, file=sys.stderr)
    with steps:
        structure = fused_scores(runs, structure_only, bias, judged, folds)[0].mean()
        steps.update()
        free = fused_scores(runs, without_gold(readers, DEFAULT_SCALE, runs), bias, judged, folds)[0].mean()
        steps.update()
        by_scale: dict[float, np.ndarray] = {}
        for s in scales:
            by_scale[s], topics = fused_scores(runs, with_gold(readers, s, runs), bias, judged, folds)
            steps.update()
    nested, chosen = nested_choice(by_scale, topics, min(folds, len(np.unique(topics))))
    means = {s: float(v.mean()) for s, v in by_scale.items()}
    best = max(scales, key=lambda s: (round(means[s], 10), -s))
    calibrations = fit_all_with_gold(readers, gold_of(runs), best, f"gold answers, scale chosen by {folds}-fold "
                                     "grouped CV")
    return CalibrationReport(name, float(structure), {r.reader: reader_alone(runs, r, judged) for r in readers},
                             float(free), means, nested, chosen, calibrations)


def answer_analyses(topics, model=DEFAULT_MODEL, progress: bool = True) -> list:
    """The topics' analyses as `answer` makes them with the scorer of `model` (documents read only where it uses
    them), through the cache folder that `answer` uses."""
    scorer, encoder = load_scorer(model)
    return labelled_analyses(topics, encoder, progress, reads_documents(scorer))
