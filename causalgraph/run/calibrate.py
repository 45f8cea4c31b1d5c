"""The readers of a run weighed before any topic is solved: gold-free calibration needs every answered topic's
edge scores at once (readers/calibration.py), so the topics are analysed (through the cache) and scored first."""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from ..analysis.analyse import analyse_topic
from ..data import LABELS, DataError, Topic
from ..learn.calibration import calibrate_readers, option_evidence
from ..learn.scorer import edge_scores, reads_documents
from ..readers.base import ReaderJudgements
from ..readers.calibration import MIN_OPEN, ReaderCalibration, fit_all_with_gold
from .batch import Settings, scorer_for


def calibrated_settings(topics: list[Topic], settings: Settings, weight: int | None = None,
                        calibrations: Mapping[str, ReaderCalibration] | None = None) -> Settings:
    """`settings` with its readers weighed for these topics: at `weight` percent where given (their raw
    log-odds), else by their `calibrations` (by reader name) and, for the others, without gold on these
    topics, in the regime of `settings.priors` ("none": a user's own topics, readers/calibration.py UserTrust)."""
    if not settings.readers:
        return settings
    analyses, edges = scored_topics(topics, settings) if weight is None else ([], [])
    without, params = settings.rules()
    readers = calibrate_readers(settings.readers, analyses, edges, weight, calibrations, without=without, params=params,
                                regime=settings.priors)
    return replace(settings, readers=readers)



def scored_topics(topics: list[Topic], settings: Settings) -> tuple[list, list]:
    """The topics' analyses (through the cache of `settings`) and edge scores by the scorer of its priors."""
    scorer, encoder = scorer_for(settings.model, settings.priors)
    documents = reads_documents(scorer)
    analyses = [settings.cache.analyse(topic)[0] if settings.cache is not None else analyse_topic(topic, encoder, documents)
                for topic in topics]
    return analyses, [edge_scores(a.table, scorer) for a in analyses]


def calibrate_on_own_labels(topics: list[Topic], readers: tuple[ReaderJudgements, ...], settings: Settings,
                            where: str) -> tuple[ReaderCalibration, ...]:
    """Each reader fitted on the gold answers of a user's own labelled `topics` (named by `where`), under the
    shipped scorer and rules of `settings.priors` (no retraining): on the options the rules leave open, as
    `answer` weighs readers, the regime recorded. DataError when a reader judged fewer than MIN_OPEN labelled
    open options, too few for an estimate."""
    analyses, edges = scored_topics(topics, settings)
    without, params = settings.rules()
    prior, settled = option_evidence(analyses, edges, without, params)
    gold = {(q.qid, label): label in q.gold for t in topics for q in t.questions if q.gold
            for label in LABELS if label != q.none_label}
    method = f"gold answers of {where}"
    fitted = fit_all_with_gold(readers, gold, prior, settled, method=method)
    for cal in fitted:
        if cal.fallback:
            raise DataError(where, None, f"reader {cal.reader}: {cal.options} labelled open options, fewer than "
                                         f"the {MIN_OPEN} an estimate needs; label more topics, or let `answer` "
                                         "weigh the reader without gold")
    return tuple(replace(cal, method=f"{method} ({cal.options} labelled open options)", regime=settings.priors)
                 for cal in fitted)
