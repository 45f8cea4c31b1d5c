"""Answering one topic: its settings, the per-topic task (analysis through the cache, edge scoring, solving,
explanations) with the time of each stage, and how many processes a run of topics is worth."""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from ..analysis.analyse import ANALYSIS_STAGES, TopicAnalysis, analyse_topic
from ..analysis.cache import AnalysisCache
from ..config import DEFAULT_MODEL
from ..data import Topic
from ..learn.scorer import (Scorer, edge_scores, evidence_effects, load_scorer, reads_documents, reads_statements,
                            second_encoder, with_scorer_bias)
from ..learn.user import VERSUS_CANDIDATES
from ..readers.base import ReaderJudgements
from ..readers.trust import TrustSettings
from ..reason.explain import evidence_record, explain_question, reason_line
from ..reason.groups import PRIORS, checked_groups
from ..reason.solve import Solution, SolverParams, solve_analysis
from .checks import checked_priors, checked_time_limit
from .parallel import PARALLEL_CHARS

STAGES = ("analysis", "scoring", "solving")  # and the analysis by ANALYSIS_STAGES where it was computed


@dataclass(frozen=True)
class Settings:
    """What every topic is answered with, checked once where it is built (run.checks); small and picklable, as
    it travels to the workers. The pipeline, the solver and reader trust take it whole."""

    model: Path = DEFAULT_MODEL
    without: frozenset[str] = frozenset()
    params: SolverParams = SolverParams()
    time_limit: float | None = None
    cache: AnalysisCache | None = None
    readers: tuple[ReaderJudgements, ...] = ()  # fused with the edge scores (rules/readers.lp)
    explain: bool = True  # what decided each option, and each question's confidence (rules/explain.lp, confidence.lp)
    priors: str = "aer"  # the benchmark's construction priors kept ("aer") or not ("none"): reason.groups.PRIORS
    trust: TrustSettings = TrustSettings()  # how the readers are weighed (readers/trust/; run.pipeline.prepare)

    def __post_init__(self):
        object.__setattr__(self, "without", checked_groups(self.without))
        checked_priors(self.priors)
        checked_time_limit(self.time_limit)

    def rules(self) -> tuple[frozenset[str], SolverParams]:
        """The rule groups switched off and the solver's constants, with those of the `priors` setting (an
        explicit none-prior keeps its value)."""
        groups, none_prior = PRIORS[self.priors]
        keep = self.params.none_prior is not None or none_prior is None
        return self.without | groups, self.params if keep else replace(self.params, none_prior=none_prior)


@dataclass(frozen=True)
class Answer:
    """One question's answer: its labels and its explanation record (each option's edge score, readers' judgements
    and the rule atoms that forced or excluded it; `answer --explain` writes one a line)."""

    qid: str
    labels: frozenset[str]
    explanation: dict

    @property
    def reason(self) -> str:
        """One line: each option with its scores and what decided it, whether the answer is a forced guess, and
        its confidence."""
        return reason_line(self.explanation)

    def submission(self) -> dict:
        """The task's submission line: {"id", "answer": "A,C"}."""
        return {"id": self.qid, "answer": ",".join(sorted(self.labels))}


@dataclass(frozen=True)
class TopicAnswer:
    """The answers of a topic's questions, in input order, and the seconds per stage."""

    topic_id: int
    answers: tuple[Answer, ...]
    seconds: dict[str, float]
    cached: bool


@lru_cache(maxsize=4)
def scorer_for(model: Path, priors: str = "aer") -> tuple[Scorer, str]:
    """(scorer for the `priors` setting, encoder name) of a model file, loaded once per process."""
    return load_scorer(model, priors)


@dataclass(frozen=True)
class Analysed:
    """A topic's analysis, whether it came from the cache, and the seconds of analysing it ("analysis", and
    each of ANALYSIS_STAGES where it was computed)."""

    analysis: TopicAnalysis
    cached: bool
    seconds: dict[str, float]


def cache_for(root: str | os.PathLike, scorer: Scorer, encoder: str) -> AnalysisCache:
    """The analysis cache under `root` for what the scorer reads: its encoder, whether the documents, and with
    which second encoder (learn.scorer.second_encoder)."""
    return AnalysisCache.open(root, encoder, reads_documents(scorer), second_encoder(scorer), reads_statements(scorer))


def cache_fits(cache: AnalysisCache, scorer: Scorer, encoder: str) -> bool:
    """Whether the cache holds analyses as the scorer reads them (`cache_for`)."""
    return ((cache.encoder, cache.documents, cache.second, cache.statements)
            == (encoder, reads_documents(scorer), second_encoder(scorer), reads_statements(scorer)))


def analyse(topic: Topic, settings: Settings) -> Analysed:
    """The topic's analysis, through the cache where `settings` has one (its documents read only where the
    scorer uses them, and read twice where it reads them so)."""
    scorer, encoder = scorer_for(settings.model, settings.priors)
    documents, second = reads_documents(scorer), second_encoder(scorer)
    if settings.cache is not None and not cache_fits(settings.cache, scorer, encoder):
        raise ValueError(f"the cache is for encoder {settings.cache.encoder!r} (documents read: "
                         f"{settings.cache.documents}, second reading: {settings.cache.second}), the model uses "
                         f"{encoder!r} (documents read: {documents}, second reading: {second})")
    start = time.perf_counter()
    stages = dict.fromkeys(ANALYSIS_STAGES, 0.0)
    if settings.cache is None:
        analysis, cached = analyse_topic(topic, encoder, documents, seconds=stages, second_encoder=second,
                                         statements=reads_statements(scorer)), False
    else:
        analysis, cached = settings.cache.analyse(topic, stages)
    return Analysed(analysis, cached, {"analysis": time.perf_counter() - start, **stages})


@dataclass(frozen=True)
class SolvedTopic:
    """A topic scored and solved: its analysis, the edge probabilities, the solution, the readers' judgements of
    its questions, what moved each pair's score (pair_evidence; None unless the settings explain) and the
    seconds of each stage."""

    topic: Topic
    analysis: TopicAnalysis
    probabilities: dict[tuple[int, int], float]
    solution: Solution
    readers: tuple[ReaderJudgements, ...]
    evidence: dict[tuple[int, int], list[dict]] | None
    seconds: dict[str, float]
    cached: bool


def solve_one(topic: Topic, settings: Settings, analysed: Analysed | None = None) -> SolvedTopic:
    """Score and solve one topic, from its analysis where given, else analysed (or read from the cache) here."""
    analysed = analysed or analyse(topic, settings)
    scorer = scorer_for(settings.model, settings.priors)[0]
    seconds = dict(analysed.seconds)
    readers = tuple(r.for_questions(q.qid for q in topic.questions) for r in settings.readers)
    probabilities, solution = answer_topic(analysed.analysis, scorer, settings, seconds)
    versus = VERSUS_CANDIDATES if settings.priors == "none" else ()
    evidence = pair_evidence(analysed.analysis, scorer, probabilities, versus) if settings.explain else None
    return SolvedTopic(topic, analysed.analysis, probabilities, solution, readers, evidence, seconds, analysed.cached)


def answer_one(item: tuple[Topic, Analysed | None], settings: Settings) -> TopicAnswer:
    """The answers of one topic (with its analysis where already made), with what decided each option."""
    topic, analysed = item
    solved = solve_one(topic, settings, analysed)
    documents = reads_documents(scorer_for(settings.model, settings.priors)[0])
    answers = tuple(
        Answer(q.qid, solved.solution.answers[q.qid],
               {**explain_question(q, solved.analysis.graph, solved.probabilities, solved.solution, solved.readers,
                                   solved.evidence),
                "documents": len(topic.documents), "documents_read": documents, "priors": settings.priors})
        for q in topic.questions
    )
    return TopicAnswer(topic.topic_id, answers, solved.seconds, solved.cached)


def pair_evidence(analysis: TopicAnalysis, scorer: Scorer, probabilities: dict[tuple[int, int], float],
                  versus_candidates: tuple[str, ...] = ()) -> dict[tuple[int, int], list[dict]]:
    """For every candidate pair, what in the documents moved its score (reason.explain.evidence_record), from
    its edge `probabilities` by the scorer; the groups `versus_candidates` against the topic's candidates
    (learn.scorer.evidence_effects)."""
    effects = evidence_effects(analysis.table, scorer, probabilities, versus_candidates)
    sources = dict(zip(analysis.doc_evidence.pairs, analysis.doc_evidence.sources))
    texts = analysis.graph.nodes
    return {(e, t): evidence_record(effects[e, t], sources.get((e, t), ()), analysis.extraction,
                                    (texts[e]["text"], texts[t]["text"])) for e, t in analysis.table.pairs}




def auto_workers(topics: list[Topic], cache: AnalysisCache | None, documents: bool, cpus: int | None = None) -> int:
    """How many processes answer the topics by default: two (at most the CPUs) where at least two topics must be
    analysed and their documents hold PARALLEL_CHARS characters or more, else one."""
    todo = [t for t in topics if cache is None or not cache.path(t).is_file()]
    chars = sum(len(d.content) for t in todo for d in t.documents) if documents else 0
    return min(2, cpus or os.cpu_count() or 1) if len(todo) >= 2 and chars >= PARALLEL_CHARS else 1


def answer_topic(analysis: TopicAnalysis, scorer: Scorer, settings: Settings = Settings(),
                 seconds: dict[str, float] | None = None) -> tuple[dict[tuple[int, int], float], Solution]:
    """Score every candidate edge and solve the topic with `settings` (the rules of its priors setting; the
    scorer's bias unless its params set one), fusing its readers' judgements on the topic's questions; returns
    the edge probabilities and the solution. `seconds`, where given, gets the seconds of scoring and of solving."""
    start = time.perf_counter()
    probabilities = edge_scores(analysis.table, scorer)
    scored = time.perf_counter()
    without, params = settings.rules()
    readers = tuple(r.for_questions(q.qid for q in analysis.topic.questions) for r in settings.readers)
    solution = solve_analysis(analysis, probabilities, without,
                              with_scorer_bias(params, scorer, len(analysis.topic.questions)),
                              settings.time_limit, readers, explain=settings.explain)
    if seconds is not None:
        seconds.update(scoring=scored - start, solving=time.perf_counter() - scored)
    return probabilities, solution
