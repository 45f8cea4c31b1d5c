"""The readers of a run weighed before any topic is solved: gold-free calibration needs every answered topic's
edge scores at once (readers/calibration.py), so the topics are analysed (through the cache) and scored first."""

from __future__ import annotations

from dataclasses import replace
from typing import Mapping

from ..analysis.analyse import analyse_topic
from ..data import Topic
from ..learn.calibration import calibrate_readers
from ..learn.scorer import edge_scores, reads_documents
from ..readers.calibration import ReaderCalibration
from .batch import Settings, scorer_for


def calibrated_settings(topics: list[Topic], settings: Settings, weight: int | None = None,
                        calibrations: Mapping[str, ReaderCalibration] | None = None) -> Settings:
    """`settings` with its readers weighed for these topics: at `weight` percent where given (their raw
    log-odds), else by their `calibrations` (by reader name) and, for the others, without gold on these
    topics."""
    if not settings.readers:
        return settings
    analyses, edges = [], []
    if weight is None:
        scorer, encoder = scorer_for(settings.model, settings.priors)
        documents = reads_documents(scorer)
        for topic in topics:
            analysis = (settings.cache.analyse(topic)[0] if settings.cache is not None
                        else analyse_topic(topic, encoder, documents))
            analyses.append(analysis)
            edges.append(edge_scores(analysis.table, scorer))
    without, params = settings.rules()
    readers = calibrate_readers(settings.readers, analyses, edges, weight, calibrations, without=without, params=params)
    return replace(settings, readers=readers)

