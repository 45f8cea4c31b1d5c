"""Readers' fusion measured under folds grouped by topic, on topics in which every question has the reader's
judgement: each labelled topic cut to the questions the readers judged (their split's, say dev's), answered with
the edge scores of a structure model that did not see the topic. Settings: the structure alone, the reader
alone, fixed weights (the best chosen by nested grouped CV), calibrated from the gold answers of the other folds'
topics (as `calibrate` does), and calibrated without gold on the answered topics (the default)."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import dataclass
from typing import Callable, Sequence

import numpy as np
from sklearn.model_selection import GroupKFold
from tqdm import tqdm

from ..analysis.analyse import TopicAnalysis, subset_analysis
from ..config import DEFAULT_MODEL
from ..data import LABELS, question_score
from ..learn.bands import blend_copies, fold_blends, shipped_bands
from ..learn.crossval import TopicShape
from ..learn.scorer import edge_scores, load_scorer, reads_documents
from ..readers.base import ReaderJudgements
from ..readers.trust import MIN_OPEN, SCALE, Key, ReaderCalibration, TrustSettings, weigh_readers
from ..readers.trust.calibration import vote
from ..readers.trust.options import fit_all_with_gold
from ..reason.solve import SolverParams, solve_analysis
from ..run.pipeline import option_evidence
from .fusion import READER_WEIGHTS, nested_choice, nested_held
from .inputs import labelled_analyses

ReaderSetting = Callable[[list, list, set[int]], tuple[ReaderJudgements, ...]]
Run = tuple[list, list]  # topics answered (and calibrated) together: their analyses and edge scores
SCALES = (0.75, 1.0, 1.25, 1.5, 2.0)


def answer_analyses(topics, model=DEFAULT_MODEL, progress: bool = True) -> list:
    """The topics' analyses as `answer` makes them with the scorer of `model` (documents read only where it uses
    them), through the cache folder that `answer` uses."""
    scorer, encoder = load_scorer(model)
    return labelled_analyses(topics, encoder, progress, reads_documents(scorer))


def judged_topics(analyses: Sequence[TopicAnalysis], qids: set[str]) -> list[TopicAnalysis]:
    """Each topic cut to its questions in `qids` (the questions the readers judged); topics without one are left
    out."""
    pieces = []
    for a in analyses:
        keep = [i for i, q in enumerate(a.topic.questions) if q.qid in qids]
        if keep:
            pieces.append(a if len(keep) == len(a.topic.questions) else subset_analysis(a, keep))
    return pieces


def structure_edges(analyses: list[TopicAnalysis], pieces: Sequence[TopicAnalysis], folds: int,
                    shapes: list[TopicShape] | None = None, seed: int | None = None, copies=None) -> list[dict]:
    """The structure model of the readers' measurements, the one place they take it from: the edge scores of each
    of `pieces` (topics cut from `analyses`) by the scorer of grouped CV over `analyses` that did not see its
    topic. It is the kind `train` ships: the size blend, fitted as `train` fits it with copies of the labelled
    topics cut to `shapes` (default: the pieces' own shapes; `copies`: those copies made once for several
    calls, learn.bands.blend_copies), with the shipped scorer's bands. With a `seed`, the topics are shuffled
    into the folds (a repeat of the CV)."""
    copies = copies or blend_copies(analyses, shapes or [TopicShape.of(p.topic) for p in pieces])
    models = dict(zip([a.topic.topic_id for a in analyses],
                      fold_blends(analyses, copies, folds, shipped_bands(), seed)))
    return [edge_scores(p.table, models[p.topic.topic_id]) for p in pieces]


def answered_sets(scored: list, edges: list) -> list[Run]:
    """Held-out copies as runs of `answer`: the i-th copy of every topic answered together (whole topics: one
    run), so gold-free calibration sees a split's worth of topics, as it does at test time."""
    seen: Counter = Counter()
    runs: dict[int, tuple[list, list]] = {}
    for analysis, e in zip(scored, edges):
        i = seen[analysis.topic.topic_id]
        seen[analysis.topic.topic_id] += 1
        runs.setdefault(i, ([], []))
        runs[i][0].append(analysis)
        runs[i][1].append(e)
    return [runs[i] for i in sorted(runs)]


def gold_of(runs: Sequence[Run], topics: set[int] | None = None) -> dict[Key, bool]:
    """The gold label of every real option of the runs' questions (of `topics` only, where given)."""
    return {(q.qid, label): label in q.gold for analyses, _ in runs for a in analyses for q in a.topic.questions
            if (topics is None or q.topic_id in topics) and q.gold
            for label in LABELS if label != q.none_label}


Bias = int | Callable[[int], int]  # a precision bias, or one by the number of a topic's questions


def fused_scores(runs: Sequence[Run], setting: ReaderSetting, bias: Bias, folds: int,
                 judged: set[str] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per-question scores (of the questions in `judged`, default all) and their topics, the runs solved with the
    readers that `setting(analyses, edges, training_topics)` returns for each outer fold's held-out topics."""
    topic_ids = sorted({a.topic.topic_id for analyses, _ in runs for a in analyses})
    splits = list(GroupKFold(n_splits=min(folds, len(topic_ids))).split(topic_ids, groups=topic_ids))
    scores, topics = [], []
    for train, test in splits:
        held, training = {topic_ids[i] for i in test}, {topic_ids[i] for i in train}
        for analyses, edges in runs:
            part = [(a, e) for a, e in zip(analyses, edges) if a.topic.topic_id in held]
            if not part:
                continue
            readers = setting([a for a, _ in part], [e for _, e in part], training)
            for a, e in part:
                qids = {q.qid for q in a.topic.questions}
                n = len(a.topic.questions)
                solution = solve_analysis(a, e, params=SolverParams(bias=bias(n) if callable(bias) else bias),
                                          readers=tuple(r.for_questions(qids) for r in readers))
                for q in a.topic.questions:
                    if judged is None or q.qid in judged:
                        scores.append(question_score(solution.answers[q.qid], q.gold))
                        topics.append(q.topic_id)
    return np.array(scores), np.array(topics)


def structure_only(analyses, edges, training) -> tuple:
    return ()


def fixed_weight(readers: Sequence[ReaderJudgements], weight: int) -> ReaderSetting:
    """Each reader's raw log-odds at a fixed weight."""
    return lambda analyses, edges, training: tuple(ReaderJudgements(r.reader, r.judgements, weight) for r in readers)


def without_gold(readers: Sequence[ReaderJudgements], runs: Sequence[Run], scale: float = SCALE,
                 min_open: int = MIN_OPEN, evidence: Sequence | None = None) -> ReaderSetting:
    """Gold-free calibration on the answered topics of each run: EM over the open options of all the run's
    topics (those of the other folds included, whose gold it never reads), as `answer` calibrates over the
    split it answers. `evidence`: each run's `option_evidence`, where it is at hand."""
    trust = TrustSettings(scale=scale, min_open=min_open)
    return per_run(runs,
                   lambda analyses, edges, known: weigh_readers(readers, known or option_evidence(analyses, edges),
                                                                      trust), evidence)


def per_run(runs: Sequence[Run], weighed: Callable[[list, list, tuple | None], tuple[ReaderJudgements, ...]],
            evidence: Sequence | None = None) -> ReaderSetting:
    """A setting that weighs the readers once per run, for all of the run's topics (those of the other folds
    included): `weighed(analyses, edges, known)` returns them, `known` being the run's `option_evidence` where
    it is at hand (else None)."""
    by_analysis = {}
    for (analyses, edges), known in zip(runs, evidence or [None] * len(runs)):
        out = weighed(analyses, edges, known)
        by_analysis.update({id(a): out for a in analyses})
    return lambda analyses, edges, training: by_analysis[id(analyses[0])] if analyses else ()


def with_gold(readers: Sequence[ReaderJudgements], runs: Sequence[Run], scale: float = SCALE) -> ReaderSetting:
    """Calibration from the gold answers of the open options of the training topics (the other folds'), as
    `calibrate` does, applied to the held-out topics."""
    evidence = [option_evidence(analyses, edges) for analyses, edges in runs]
    prior = {k: p for run_prior, _ in evidence for k, p in run_prior.items()}
    settled = {k: s for _, run_settled in evidence for k, s in run_settled.items()}

    def setting(analyses, edges, training):
        cals = fit_all_with_gold(readers, gold_of(runs, training), prior, settled, TrustSettings(scale=scale),
                                 "gold answers of other topics")
        return tuple(c.apply(r) for c, r in zip(cals, readers))
    return setting


def nested_weight(runs: Sequence[Run], readers: Sequence[ReaderJudgements], bias: Bias, folds: int,
                  weights=READER_WEIGHTS, judged: set[str] | None = None) -> tuple[np.ndarray, list, dict[int, float]]:
    """The fixed weight chosen by nested grouped CV (each outer fold takes the weight best on its training
    topics; weight 0 is the structure alone): its per-question held-out scores (in `fused_scores`' order, of the
    questions in `judged`), the weights chosen, and each weight's mean."""
    by_weight = {}
    for w in weights:
        by_weight[w], topics = fused_scores(runs, fixed_weight(readers, w) if w else structure_only, bias, folds,
                                            judged)
    held, chosen = nested_held(by_weight, topics, min(folds, len(np.unique(topics))))
    return held, chosen, {w: float(s.mean()) for w, s in by_weight.items()}


def reader_alone(runs: Sequence[Run], reader: ReaderJudgements, judged: set[str] | None = None) -> float:
    """The reader's own answers scored as they are (labels it chose; probabilities above one half); an empty
    answer scores 0."""
    scores = []
    for analyses, _ in runs:
        for a in analyses:
            for q in a.topic.questions:
                if judged is None or q.qid in judged:
                    chosen = frozenset(label for label in LABELS if _chooses(reader.judgements.get((q.qid, label))))
                    scores.append(question_score(chosen, q.gold))
    return float(np.mean(scores)) if scores else float("nan")


def _chooses(judgement) -> bool:
    return judgement is not None and vote(judgement) > 0.5


def open_rates(runs: Sequence[Run], reader: ReaderJudgements) -> tuple[int, float, float]:
    """Against gold, on the open options the reader judged: how many, its sensitivity and its specificity (a
    probability above one half counting as a yes)."""
    votes, gold = [], []
    for analyses, edges in runs:
        prior, settled = option_evidence(analyses, edges)
        labels = gold_of([(analyses, edges)])
        for k in prior:
            if k not in settled and k in reader.judgements and k in labels:
                votes.append(_chooses(reader.judgements[k]))
                gold.append(labels[k])
    v, g = np.array(votes, bool), np.array(gold, bool)
    return len(v), float((v & g).sum() / max(g.sum(), 1)), float((~v & ~g).sum() / max((~g).sum(), 1))


def scale_choice(makes: Sequence[Callable[[float], ReaderSetting]], runs, bias: Bias, folds: int,
                 scales=SCALES, judged: set[str] | None = None) -> tuple[list[dict[float, float]], float, list]:
    """For each setting maker (one per reader), the fused score (of the questions in `judged`) at each scale; and
    the nested grouped-CV score over all of them pooled, each outer fold taking the scale that scores best on its
    training topics (with the scales chosen)."""
    means, topics = [], []
    pooled: dict[float, list[np.ndarray]] = {s: [] for s in scales}
    for make in makes:
        row = {}
        for s in scales:
            scores, t = fused_scores(runs, make(s), bias, folds, judged)
            row[s] = float(scores.mean())
            pooled[s].append(scores)
        topics.append(t)
        means.append(row)
    all_topics = np.concatenate(topics)
    nested, chosen = nested_choice({s: np.concatenate(v) for s, v in pooled.items()}, all_topics,
                                   min(folds, len(np.unique(all_topics))))
    return means, nested, chosen


@dataclass(frozen=True)
class CalibrationReport:
    """What `calibrate` measured: the structure model alone, each reader alone, the gold-free default, the fused
    score at each scale with gold calibration, the nested choice, and the calibrations it writes."""

    topics: int
    questions: int
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
        rows.append(f"| no gold, scale {SCALE:g} (the default without --reader-calibration) | {self.without_gold:.4f} "
                    "|")
        rows += [f"| gold of the other folds' topics, scale {s:g} | {v:.4f} |" for s, v in self.by_scale.items()]
        rows.append(f"| nested: each outer fold's best scale ({', '.join(f'{c:g}' for c in self.chosen)}) | "
                    f"{self.nested:.4f} |")
        return "\n".join(rows)


def calibration_cv(analyses, readers: Sequence[ReaderJudgements], bias: Bias, folds: int, scales=SCALES,
                   progress: bool = True) -> CalibrationReport:
    """Grouped CV of the readers' gold calibration at each scale, on the labelled topics cut to the questions the
    readers judged (each answered with the edge scores of `structure_edges`); the calibrations fitted on all
    their gold at the best scale (ties: the smaller)."""
    pieces = judged_topics(analyses, {k[0] for r in readers for k in r.judgements})
    runs = [(pieces, structure_edges(analyses, pieces, folds))]
    steps = tqdm(total=len(scales) + 2, desc="calibrating", unit="setting", disable=not progress, file=sys.stderr)
    with steps:
        structure = fused_scores(runs, structure_only, bias, folds)[0].mean()
        steps.update()
        free = fused_scores(runs, without_gold(readers, runs), bias, folds)[0].mean()
        steps.update()
        by_scale: dict[float, np.ndarray] = {}
        for s in scales:
            by_scale[s], topics = fused_scores(runs, with_gold(readers, runs, s), bias, folds)
            steps.update()
    nested, chosen = nested_choice(by_scale, topics, min(folds, len(np.unique(topics))))
    means = {s: float(v.mean()) for s, v in by_scale.items()}
    best = max(scales, key=lambda s: (round(means[s], 10), -s))
    prior, settled = option_evidence(*runs[0])
    calibrations = fit_all_with_gold(readers, gold_of(runs), prior, settled, TrustSettings(scale=best),
                                     f"gold answers, scale chosen by {folds}-fold grouped CV")
    return CalibrationReport(len(pieces), sum(len(p.topic.questions) for p in pieces), float(structure),
                             {r.reader: reader_alone(runs, r) for r in readers}, float(free), means, nested, chosen,
                             calibrations)
