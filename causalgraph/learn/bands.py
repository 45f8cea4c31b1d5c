"""The size blend trained and its bands chosen by grouped CV: the structure and the evidence scorers fitted in
folds grouped by topic, held-out topics of every size answered with their log-odds mixed at each weight and
precision bias of a grid, and each band of topic sizes given the setting that scores best on its held-out
questions."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from functools import partial

import numpy as np
from joblib import Parallel, delayed
from sklearn.model_selection import GroupKFold

from ..analysis.analyse import TopicAnalysis, subset_analysis
from ..analysis.table import FEATURE_GROUPS
from ..config import DEFAULT_MODEL
from ..data import question_score
from ..graph.features import QUESTION_FEATURES, STRUCTURE_FEATURES
from ..reason.groups import PRIORS
from ..reason.solve import SolverParams, solve_analysis
from .crossval import SIZE_COPIES, TopicShape, cut_topic, fit_scorer, fold_scorers, resized_sets, sized_copies
from .scorer import EdgeScorer, SizeBand, SizeBlend, edge_scores, load_scorer, mix

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


def blended(structure: dict, evidence: dict, weight: float) -> dict:
    """The size blend's probabilities at one weight (see SizeBlend.predict_proba)."""
    pairs = list(structure)
    mixed = mix(np.array([structure[p] for p in pairs]), np.array([evidence[p] for p in pairs]),
                np.full(len(pairs), weight))
    return dict(zip(pairs, map(float, mixed)))


def _grid_part(held: HeldOutPair, priors: str) -> dict[tuple[float, int], np.ndarray]:
    """Per-question scores of the held-out topics at every (weight, bias) of WEIGHTS x BIASES under the rules
    of `priors` (a topic without documents: the structure scorer alone, as SizeBlend scores it)."""
    without, none_prior = PRIORS[priors]
    out: dict[tuple[float, int], list[float]] = {s: [] for s in itertools.product(WEIGHTS, BIASES)}
    for analysis, s, e in zip(held.topics, held.structure, held.evidence):
        for weight, bias in out:
            edges = blended(s, e, weight if analysis.topic.documents else 1.0)
            solution = solve_analysis(analysis, edges, without, SolverParams(bias=bias, none_prior=none_prior))
            out[(weight, bias)] += [question_score(solution.answers[q.qid], q.gold or frozenset())
                                    for q in analysis.topic.questions]
    return {k: np.array(v) for k, v in out.items()}


def grid_scores(held: HeldOutPair, priors: str = "aer", workers: int = 1) -> dict[tuple[float, int], np.ndarray]:
    """Per-question scores at every (weight, bias) of WEIGHTS x BIASES, the topics shared among `workers`
    processes."""
    n = len(held.topics)
    bounds = np.linspace(0, n, min(workers, max(n, 1)) + 1).astype(int)
    parts = [HeldOutPair(held.topics[a:b], held.structure[a:b], held.evidence[a:b])
             for a, b in zip(bounds[:-1], bounds[1:])]
    done = Parallel(n_jobs=len(parts))(delayed(_grid_part)(p, priors)
                                       for p in parts) if len(parts) > 1 else [_grid_part(parts[0], priors)]
    return {k: np.concatenate([d[k] for d in done]) for k in done[0]}


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


# The evidence groups the shipped evidence scorer reads: the size curve's rows for the told and dependency-cue
# groups do not add to them (docs/lab/scorer.md, "Topic size").
SHIPPED_GROUPS = ("documents", "dates")
# Features that read where the topic's questions offer None: construction features, left out with --priors none.
NONE_STRUCTURE = ("cause_none_share", "target_none_share")


def scorer_kinds(priors: str = "aer", groups: tuple[str, ...] = SHIPPED_GROUPS):
    """(structure scorer, evidence scorer) factories for a construction-prior setting: without the None-structure
    features for "none"."""
    drop = set(NONE_STRUCTURE) if priors == "none" else set()
    structure = tuple(f for f in QUESTION_FEATURES if f not in drop)
    evidence = tuple(f for f in STRUCTURE_FEATURES + sum((FEATURE_GROUPS[g] for g in groups), ()) if f not in drop)
    return partial(EdgeScorer, features=structure), partial(EdgeScorer, features=evidence)


def for_priors(analyses: list[TopicAnalysis], shapes: list[TopicShape],
               priors: str) -> tuple[list[TopicAnalysis], list[TopicShape]]:
    """The labelled topics and answered shapes to learn a setting from: as they are for "aer"; for "none", only
    the questions that do not offer None (where None is offered, the benchmark's gold is None by construction)."""
    if priors == "aer":
        return analyses, shapes
    kept = [[i for i, q in enumerate(a.topic.questions) if q.none_label is None] for a in analyses]
    return ([subset_analysis(a, k) for a, k in zip(analyses, kept) if k],
            [TopicShape(s.questions - s.none_offered, 0) for s in shapes if s.questions > s.none_offered])


def blend_copies(analyses: list[TopicAnalysis], shapes: list[TopicShape]) -> tuple[list, list, list | None]:
    """The copies of each topic that `train` uses: the structure scorer's training copies (cut to the answered
    split's `shapes`; none without shapes), the evidence scorer's (those and the sized copies), and the
    held-out copies cut to `shapes` (None without shapes)."""
    extra, held = resized_sets(analyses, shapes)
    extra = extra or [[] for _ in analyses]
    return extra, [a + b for a, b in zip(extra, sized_copies(analyses, SIZE_COPIES, shapes))], held


def shipped_bands(model=DEFAULT_MODEL) -> tuple[SizeBand, ...]:
    """The size bands of `model`'s scorer (for a single scorer, one band: all structure, at its bias)."""
    scorer = load_scorer(model)[0]
    return scorer.bands if isinstance(scorer, SizeBlend) else (SizeBand(None, 1.0, scorer.bias_for(10**9)),)


def fold_blends(analyses: list[TopicAnalysis], copies: tuple, folds: int, bands: tuple[SizeBand, ...],
                seed: int | None = None) -> list[SizeBlend]:
    """For each topic, the size blend fitted as `train` fits the shipped one, with the topics' `blend_copies`, on
    the folds of a grouped CV without it (with a `seed`, the topics shuffled into the folds), its log-odds mixed
    by `bands`."""
    extra, sized, _ = copies
    make_structure, make_evidence = scorer_kinds()
    ids = [a.topic.topic_id for a in analyses]
    cv = GroupKFold(n_splits=folds, shuffle=True, random_state=seed) if seed is not None else GroupKFold(folds)
    models: dict[int, SizeBlend] = {}
    for train, test in cv.split(ids, groups=ids):
        blend = SizeBlend(fit_scorer(make_structure, [analyses[i] for i in train], [extra[i] for i in train]),
                          fit_scorer(make_evidence, [analyses[i] for i in train], [sized[i] for i in train]), bands)
        models.update({ids[i]: blend for i in test})
    return [models[i] for i in ids]


@dataclass
class BlendReport:
    """What training measured: the held-out topics by size (`keys[i]`: the size, "whole" or "test-shaped", of
    held.topics[i]), the per-question scores of every setting, the nested per-question scores and the bands each
    outer fold chose."""

    held: HeldOutPair
    keys: list
    by_setting: dict[tuple[float, int], np.ndarray]
    nested: np.ndarray
    fold_bands: list[tuple[SizeBand, ...]]
    question_keys: np.ndarray = field(init=False)

    def __post_init__(self):
        self.question_keys = np.array([str(k) for k, a in zip(self.keys, self.held.topics) for _ in a.topic.questions])


def train_blend(analyses: list[TopicAnalysis], shapes: list[TopicShape], folds: int, priors: str = "aer",
                workers: int = 1, progress=None) -> tuple[SizeBlend, BlendReport]:
    """The size blend for a construction-prior setting, fitted on every labelled topic with its bands chosen on the
    held-out topics of every size (cut to BAND_SIZES, whole, and cut to the answered split's `shapes`), and the
    report of its nested grouped CV. `progress`: a callable given a line as each step ends."""
    say = progress or (lambda line: None)
    analyses, shapes = for_priors(analyses, shapes, priors)
    make_structure, make_evidence = scorer_kinds(priors)
    extra, sized, held_copies = blend_copies(analyses, shapes)
    say(f"{priors}: copies made")
    structure = fold_scorers(analyses, folds, make_structure, extra)
    evidence = fold_scorers(analyses, folds, make_evidence, sized)
    say(f"{priors}: fold scorers fitted")
    keys: list = []
    topics, s_edges, e_edges = [], [], []
    cuts = [(k, [cut_topic(a, k) for a in analyses]) for k in BAND_SIZES] + [("whole", [[a] for a in analyses])]
    cuts += [("test-shaped", held_copies)] if held_copies else []
    for key, per_topic in cuts:
        for pieces, s, e in zip(per_topic, structure, evidence):
            for piece in pieces:
                keys.append(key)
                topics.append(piece)
                s_edges.append(edge_scores(piece.table, s))
                e_edges.append(edge_scores(piece.table, e))
    held = HeldOutPair(topics, s_edges, e_edges)
    by_setting = grid_scores(held, priors, workers)
    say(f"{priors}: {len(by_setting)} settings solved over {len(topics)} held-out topics")
    nested, fold_bands = nested_band_scores(by_setting, held, folds)
    bands = choose(by_setting, held.question_bands(), np.ones(len(nested), dtype=bool))
    blend = SizeBlend(fit_scorer(make_structure, analyses, extra), fit_scorer(make_evidence, analyses, sized), bands)
    return blend, BlendReport(held, keys, by_setting, nested, fold_bands)
