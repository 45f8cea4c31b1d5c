"""The library in three lines: load a reasoner (the shipped edge scorer and rules, readers as arguments), answer
topics, read each answer's labels and explanation.

    import causalgraph as cg
    reasoner = cg.Reasoner.load()
    for answer in reasoner.answer(cg.demo_topics()):
        print(answer.qid, answer.labels, answer.explanation["options"]["A"]["rules"])
"""

from __future__ import annotations

import logging
import os
from collections.abc import Iterable, Iterator
from contextlib import closing
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Mapping, Protocol

from .config import DEFAULT_MODEL, DEMO_DATA
from .data import MAX_DOCUMENT_CHARS, DataError, Topic, load_data, load_split
from .data.load import warn_without_documents
from .learn.scorer import Scorer, reads_documents
from .readers.base import ReaderJudgements, check_reader_names
from .readers.trust import ReaderCalibration, TrustSettings
from .reason.groups import PRIORS
from .reason.solve import SolverParams
from .run.advice import thin_topics
from .run.batch import Answer, Settings, cache_fits, cache_for, scorer_for
from .run.checks import (AUTO, checked_document_chars, checked_priors, checked_reader_weight, checked_topic_ids,
                         checked_topics, checked_workers, priors_for)
from .run.pipeline import Run, prepare


class Reader(Protocol):
    """A reader object (say `CrossEncoderReader` or `LLMReader`): judges the options of the topics it is given."""

    def judge(self, topics: list[Topic], progress: bool = True) -> ReaderJudgements: ...


log = logging.getLogger(__name__)


def load_topics(path: str | os.PathLike, split: str | None = None, topics: Iterable[int] | None = None,
                max_document_chars: int = MAX_DOCUMENT_CHARS) -> list[Topic]:
    """Topics with their questions and documents: your own (a folder holding questions.jsonl and, optionally,
    docs.json, or one JSON or YAML topic file; no split), or one split of an AER data folder in either layout
    (default test); `topics` restricts to those ids. Each document is read up to `max_document_chars`
    characters (as `--max-document-chars`), a longer one cut with a warning. DataError, naming the file and
    line, on bad input; TypeError or ValueError naming the argument for a bad one."""
    return load_data(path, split, checked_topic_ids(topics), checked_document_chars(max_document_chars))


def demo_topics() -> list[Topic]:
    """The built-in demo topic (8 labelled questions, 3 documents), which ships with the package."""
    return load_split(DEMO_DATA, "sample")


@dataclass(frozen=True)
class Reasoner:
    """An edge scorer, the rule groups kept, the solver's constants, the readers fused with the edge scores and the
    priors setting: what `causalgraph answer` answers with. Build one with `Reasoner.load`."""

    settings: Settings
    reader_objects: tuple[Reader, ...] = ()
    auto_priors: bool = False  # each call to answer() takes the priors setting its topics were built for

    @classmethod
    def load(cls, model: str | os.PathLike = DEFAULT_MODEL, without: Iterable[str] = (),
             params: SolverParams | None = None, readers: Iterable[ReaderJudgements | Reader] = (),
             time_limit: float | None = None, cache_dir: str | os.PathLike | None = None,
             reader_weight: int | None = None,
             reader_calibration: str | os.PathLike | Mapping[str, ReaderCalibration] | None = None,
             priors: str = AUTO, explain: bool = True) -> Reasoner:
        """The scorer of `model` (default: the shipped one), with the rule groups of `without` switched off
        (of none, consistency, priors, optimize), `params` (default: the scorer's precision bias) and `readers`:
        judgements already made (`ReaderJudgements`), or reader objects, which judge the topics being answered.
        `time_limit` caps the seconds of solving per topic, as `--time-limit` does (a positive number; the
        answer may then depend on timing). `cache_dir` keeps each topic's analysis on disk, as `answer` does
        (default: no cache).
        Readers are weighed as `answer` weighs them: at `reader_weight` percent where given, else by
        `reader_calibration` (a file written by `calibrate`, or calibrations by reader name) and, for readers it
        does not name, without gold on the topics being answered.
        `priors` is "aer" for the benchmark's topics (its construction priors, and the scorer that reads them),
        "none" for a topic not built the benchmark's way (your own): the scorer trained without the None
        structure, and no construction prior, so None is chosen only where no option has the evidence; "auto"
        (the default) takes the one the answered topics were built for, as `answer` does: "aer" for topics of
        an AER data folder, "none" for your own. Without `explain`, what decided each option is not solved for
        (the explanation then holds the edge scores alone).
        ValueError (or OSError) naming the model file when it cannot be loaded, and ValueError for a
        `time_limit` that is not a positive number, an unknown `priors`, or a `reader_weight` that `--reader-weight`
        refuses (TypeError for one that is no integer)."""
        reader_weight, priors = checked_reader_weight(reader_weight), checked_priors(priors, auto=True)
        readers = tuple(readers)
        judged = tuple(r for r in readers if isinstance(r, ReaderJudgements))
        objects = tuple(r for r in readers if not isinstance(r, ReaderJudgements))
        for reader in objects:
            if not callable(getattr(reader, "judge", None)):
                raise TypeError("a reader is ReaderJudgements or has a judge(topics) method, got "
                                f"{type(reader).__name__}")
        # checked where it is built (run.checks); "aer" until answer() picks, under AUTO
        settings = Settings(Path(model).resolve(), frozenset(without), params or SolverParams(), time_limit, None,
                            judged,
                            explain, "aer" if priors == AUTO else priors,
                            TrustSettings.given(reader_weight, reader_calibration))
        for each in PRIORS if priors == AUTO else (priors,):
            scorer_for(settings.model, each)  # every setting it may answer with loads, or ValueError
        if cache_dir is not None:
            settings = replace(settings, cache=cache_for(Path(cache_dir), *scorer_for(settings.model, settings.priors)))
        return cls(settings, objects, priors == AUTO)

    def with_readers(self, readers: Iterable[ReaderJudgements | Reader]) -> Reasoner:
        """This reasoner with `readers` added (judgements already made, or reader objects)."""
        readers = tuple(readers)
        judged = tuple(r for r in readers if isinstance(r, ReaderJudgements))
        objects = tuple(r for r in readers if not isinstance(r, ReaderJudgements))
        return replace(self, settings=replace(self.settings, readers=self.settings.readers + judged),
                       reader_objects=self.reader_objects + objects)

    def settings_for(self, topics: Iterable[Topic]) -> Settings:
        """What these topics are answered with: `settings`, or with `auto_priors` the priors setting they were
        built for (ValueError for topics of AER data and your own together), with a cache for its scorer."""
        if not self.auto_priors:
            return self.settings
        settings = replace(self.settings, priors=priors_for(topics))
        scorer, encoder = scorer_for(settings.model, settings.priors)
        cache = settings.cache
        if cache is not None and not cache_fits(cache, scorer, encoder):
            settings = replace(settings, cache=cache_for(cache.root, scorer, encoder))
        return settings

    @property
    def scorer(self) -> Scorer:
        """The edge scorer of `settings.priors` (with `auto_priors`, "aer" until `settings_for` picks): P(E
        directly caused T) of every candidate edge."""
        return scorer_for(self.settings.model, self.settings.priors)[0]

    @property
    def reads_documents(self) -> bool:
        """Whether answering reads the topics' documents (only when the scorer uses a document feature)."""
        return reads_documents(self.scorer)

    def answer(self, topics: Iterable[Topic], workers: int = 1) -> Iterator[Answer]:
        """The answer of every question of the topics, topic by topic in input order, each topic solved at once.
        `topics` is read in full before the first answer (the readers judge, and are weighed on, all of them
        together), so it must be finite: pass a list, or call answer() on batches of an endless stream.
        `workers` > 1 answers topics in that many processes. A topic that fails raises DataError for its input
        (naming the file), else RuntimeError naming it;
        under priors "auto", topics of AER data and your own together raise ValueError.
        Like `answer`, it warns (logging, logger `causalgraph.api`) when small topics are answered without a reader.
        TypeError or ValueError, naming the argument, for topics that are no Topic objects or workers that are no
        whole number from 1."""
        topics, workers = checked_topics(topics), checked_workers(workers)
        with closing(self.run(topics).outcomes(workers)) as outcomes:
            for topic, outcome in zip(topics, outcomes):
                outcome.replay_logs()
                if isinstance(outcome.error, DataError):  # the topic's input, named in the message
                    raise outcome.error
                if outcome.error is not None:
                    raise RuntimeError(f"topic {topic.topic_id}: {outcome.failure}") from outcome.error
                yield from outcome.value.answers

    def run(self, topics: list[Topic], advise: bool = True) -> Run:
        """A run of the topics (run.pipeline.Run): the settings they are answered with, the reader objects'
        judgements and every reader weighed on them, and the analyses that took. Warns (logging) about
        topics without documents, and (`advise`) about small topics answered without a reader."""
        warn_without_documents(topics)
        settings = self.settings_for(topics)
        if self.reader_objects:
            judged = tuple(reader.judge(topics, progress=False) for reader in self.reader_objects)
            settings = replace(settings, readers=settings.readers + judged)
        check_reader_names([r.reader for r in settings.readers])
        run = prepare(topics, settings)
        if advise and (thin := thin_topics(topics, bool(run.settings.readers), run.reads_documents)[1]):
            log.warning(thin)
        return run
