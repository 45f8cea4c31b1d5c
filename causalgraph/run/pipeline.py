"""One run over a list of topics, the one path every answer takes: each topic analysed once (through the cache),
the readers weighed on those analyses, then each topic scored and solved, in this process, in worker processes
or on Dask. `Reasoner.run` (api.py) prepares one; `answer` and `visualize` read what they show from it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import partial
from typing import Generator, Mapping

from ..data import LABELS, DataError, Topic
from ..learn.calibration import calibrate_readers, option_evidence
from ..learn.scorer import edge_scores, reads_documents
from ..readers.base import ReaderJudgements
from ..readers.calibration import (MIN_OPEN, ReaderCalibration, fit_all_with_gold, fit_answers_with_gold,
                                   open_keys)
from .batch import Analysed, Settings, SolvedTopic, analyse, answer_one, auto_workers, scorer_for, solve_one
from .parallel import Outcome, map_ordered


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


def prepare(topics: list[Topic], settings: Settings, weight: int | None = None,
            calibrations: Mapping[str, ReaderCalibration] | None = None) -> Run:
    """A run of the topics with `settings`, its readers weighed for these topics: at `weight` percent where given
    (their raw log-odds), else by their `calibrations` (by reader name) and, for the others, without gold on
    these topics, which needs every topic's edge scores at once (readers/calibration.py): the topics are then
    analysed here, once."""
    analysed: list[Analysed | None] = [None] * len(topics)
    if not settings.readers:
        return Run(tuple(topics), settings, tuple(analysed))
    edges = []
    if weight is None:
        scorer = scorer_for(settings.model, settings.priors)[0]
        for i, topic in enumerate(topics):
            analysed[i] = made = analyse(topic, settings)
            edges.append(edge_scores(made.analysis.table, scorer))
    without, params = settings.rules()
    analyses = [a.analysis for a in analysed if a is not None]
    readers = calibrate_readers(settings.readers, analyses, edges, weight, calibrations, without=without, params=params,
                                regime=settings.priors)
    return Run(tuple(topics), replace(settings, readers=readers), tuple(analysed))


def calibrate_on_own_labels(topics: list[Topic], readers: tuple[ReaderJudgements, ...], settings: Settings,
                            where: str) -> tuple[ReaderCalibration, ...]:
    """Each reader fitted on the gold answers of a user's own labelled `topics` (named by `where`), under the
    shipped scorer and rules of `settings.priors` (no retraining): on the options the rules leave open, as
    `answer` weighs readers, or under priors "none" the share of its answers that are exactly right (the
    channel of whole answers, readers/calibration.py: UserTrust); the regime recorded. DataError when a reader
    judged fewer than MIN_OPEN labelled open options, too few for an estimate."""
    scorer = scorer_for(settings.model, settings.priors)[0]
    analyses = [analyse(topic, settings).analysis for topic in topics]
    without, params = settings.rules()
    prior, settled = option_evidence(analyses, [edge_scores(a.table, scorer) for a in analyses], without, params)
    gold = {(q.qid, label): label in q.gold for t in topics for q in t.questions if q.gold
            for label in LABELS if label != q.none_label}
    method = f"gold answers of {where}"
    for reader in readers:
        labelled = sum(k in gold for k in open_keys(reader, prior, settled))
        if labelled < MIN_OPEN:
            raise DataError(where, None, f"reader {reader.reader}: {labelled} labelled open options, fewer than "
                                         f"the {MIN_OPEN} an estimate needs; label more topics, or let `answer` "
                                         "weigh the reader without gold")
    if settings.priors == "none":  # the regime "none": how often each reader's whole answer is right
        answers = {q.qid: q.gold for t in topics for q in t.questions if q.gold}
        return tuple(fit_answers_with_gold(r, answers, method) for r in readers)
    return tuple(replace(cal, method=f"{method} ({cal.options} labelled open options)", regime=settings.priors)
                 for cal in fit_all_with_gold(readers, gold, prior, settled, method=method))
