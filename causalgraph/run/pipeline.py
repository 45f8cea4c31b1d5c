"""One run over a list of topics, the one path every answer takes: each topic analysed once (through the cache),
the readers weighed on those analyses, then each topic scored and solved, in this process, in worker processes
or on Dask. `Reasoner.run` (api.py) prepares one; `answer` and `visualize` read what they show from it. Reader
trust (readers/trust/) is asked here what it needs: the evidence of the answered topics (option_evidence)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Generator, Iterable, Mapping

from ..analysis.analyse import TopicAnalysis
from ..data import Topic
from ..learn.scorer import edge_scores, reads_documents
from ..readers.base import ReaderJudgements
from ..readers.trust import Key, OptionEvidence, ReaderCalibration, fit_to_labels, weigh_readers
from ..reason.settled import settled_options
from .batch import Analysed, Settings, SolvedTopic, analyse, answer_one, auto_workers, scorer_for, solve_one
from .parallel import Outcome, map_ordered

PRIOR_CLIP = 0.01  # structure probabilities are held within [0.01, 0.99] as priors


@dataclass(frozen=True)
class Run:
    """The topics, the settings they are answered with (readers weighed) and the analyses already made, which
    the answers reuse rather than read the documents again."""

    topics: tuple[Topic, ...]
    settings: Settings
    analysed: tuple[Analysed | None, ...]

    @property
    def reads_documents(self) -> bool:
        """Whether the scorer uses the documents (else analysis reads none)."""
        return reads_documents(scorer_for(self.settings.model, self.settings.priors)[0])

    def auto_workers(self) -> int:
        """The processes worth starting for the topics not analysed yet (batch.auto_workers)."""
        todo = [t for t, a in zip(self.topics, self.analysed) if a is None]
        return auto_workers(todo, self.settings.cache, self.reads_documents)

    def outcomes(self, workers: int = 1, scheduler: str = "local",
                 address: str | None = None) -> Generator[Outcome, None, None]:
        """An Outcome (value: batch.TopicAnswer) per topic, in input order; see parallel.map_ordered for the
        schedulers. Close it (contextlib.closing) to stop what has not finished."""
        return map_ordered(partial(answer_one, settings=self.settings), list(zip(self.topics, self.analysed)),
                           workers, scheduler, address)

    def solve(self, index: int = 0) -> SolvedTopic:
        """The topic at `index` scored and solved here, with everything the page shows."""
        return solve_one(self.topics[index], self.settings, self.analysed[index])


def option_evidence(analyses: Iterable[TopicAnalysis], edges: Iterable[Mapping[tuple[int, int], float]],
                    settings: Settings = Settings()) -> OptionEvidence:
    """What reader trust rests on (readers/trust/), for every real option of the analysed topics: the structure
    model's probability that it directly caused its target (the prior), and the options the rules settle
    whatever the evidence says, with their label (reason/settled.py: the real options of a question that offers
    None, a repeated option, a pair rejected where None is the answer, ...) under the rules the topics are
    answered with (`settings.rules()`)."""
    prior: dict[Key, float] = {}
    settled: dict[Key, bool] = {}
    without, params = settings.rules()
    for analysis, scores in zip(analyses, edges):
        for qid, slots in analysis.graph.graph["questions"].items():
            for label, event in slots.options.items():
                p = scores.get((event, slots.target), PRIOR_CLIP)
                prior[(qid, label)] = min(max(p, PRIOR_CLIP), 1 - PRIOR_CLIP)
        settled.update(settled_options(analysis.graph, analysis.after, analysis.timeline, without, params))
    return prior, settled


def prepare(topics: list[Topic], settings: Settings) -> Run:
    """A run of the topics with `settings`, its readers weighed for these topics by `settings.trust`
    (readers/trust/, the regime that of `settings.priors`): at `trust.weight` percent where given (their raw
    log-odds), else by the calibrations it gives (by reader name) and, for the others, without gold on these
    topics, which needs every topic's edge scores at once: the topics are then analysed here, once."""
    analysed: list[Analysed | None] = [None] * len(topics)
    if not settings.readers:
        return Run(tuple(topics), settings, tuple(analysed))
    trust = settings.trust.for_run(settings.readers, settings.priors)
    evidence = None
    if trust.weight is None:
        scorer = scorer_for(settings.model, settings.priors)[0]
        edges = []
        for i, topic in enumerate(topics):
            analysed[i] = made = analyse(topic, settings)
            edges.append(edge_scores(made.analysis.table, scorer))
        evidence = option_evidence([a.analysis for a in analysed if a is not None], edges, settings)
    return Run(tuple(topics), replace(settings, readers=weigh_readers(settings.readers, evidence, trust)),
               tuple(analysed))


def calibrate_on_own_labels(topics: list[Topic], readers: tuple[ReaderJudgements, ...], settings: Settings,
                            where: str) -> tuple[ReaderCalibration, ...]:
    """Each reader fitted on the gold answers of a user's own labelled `topics` (named by `where`; readers/trust:
    fit_to_labels), under the shipped scorer and rules of `settings.priors` (no retraining). DataError when a
    reader judged too few labelled open options for an estimate."""
    scorer = scorer_for(settings.model, settings.priors)[0]
    analyses = [analyse(topic, settings).analysis for topic in topics]
    evidence = option_evidence(analyses, [edge_scores(a.table, scorer) for a in analyses], settings)
    return fit_to_labels(readers, evidence, topics, settings.priors, where)
