"""What the rest of causalgraph asks of reader trust: the readers of a run weighed for the fusion, and readers
fitted on the gold answers of a user's own labelled topics."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Sequence

from ...data import LABELS, DataError, Topic
from ..base import ReaderJudgements
from .calibration import MIN_OPEN, OptionEvidence, ReaderCalibration
from .channel import answer_log_odds, estimate_answers_without_gold, fit_answers_with_gold
from .options import estimate_without_gold, fit_all_with_gold, open_keys
from .settings import TrustSettings

log = logging.getLogger(__name__)

MADE_ON = {"aer": "the benchmark's topics", "none": "a user's own topics"}


def weigh_readers(readers: Sequence[ReaderJudgements], evidence: OptionEvidence | None,
                  settings: TrustSettings = TrustSettings()) -> tuple[ReaderJudgements, ...]:
    """The readers as fusion weighs them, by `settings` (TrustSettings): at `settings.weight` where given (their
    raw log-odds; `evidence` may then be None), else each by its calibration, given or estimated without gold on
    the `evidence` of the answered topics (run.pipeline.option_evidence), its judgements carrying the log-odds it
    gives them. A given calibration made for the other regime is kept, with a warning."""
    if not readers:
        return ()
    if settings.weight is not None:
        return tuple(ReaderJudgements(r.reader, r.judgements, settings.weight) for r in readers)
    assert evidence is not None  # estimates rest on the answered topics' evidence
    prior, settled = evidence
    given = settings.calibrations or {}
    for cal in given.values():
        if cal.regime != settings.regime:
            log.warning("reader %s: its calibration was made on %s (regime %r); these are answered under priors %r",
                        cal.reader, MADE_ON[cal.regime], cal.regime, settings.regime)
    if settings.regime == "none":  # a user's own topics: each reader by how often its answers are right
        fitted = tuple(given.get(r.reader) or estimate_answers_without_gold(r, prior, settled, settings.channel)
                       for r in readers)
    else:
        fitted = estimate_without_gold(readers, prior, settled, settings)
    for cal in fitted:
        log.info("reader %s: %s", cal.reader, cal.reliability())
    return tuple(answer_log_odds(cal, r, prior, settled, settings.channel) if cal.answers_right is not None
                 else cal.apply(r) for cal, r in zip(fitted, readers))


def fit_to_labels(readers: Sequence[ReaderJudgements], evidence: OptionEvidence, topics: Sequence[Topic],
                  regime: str, where: str) -> tuple[ReaderCalibration, ...]:
    """Each reader fitted on the gold answers of a user's own labelled `topics` (named by `where`), on their
    `evidence`: on the options the rules leave open, as `answer` weighs readers, or in the `regime` "none" the
    share of its answers that are exactly right (the channel of whole answers, channel.py); the regime
    recorded. DataError when a reader judged fewer than MIN_OPEN labelled open options, too few for an
    estimate."""
    prior, settled = evidence
    gold = {(q.qid, label): label in q.gold for t in topics for q in t.questions if q.gold
            for label in LABELS if label != q.none_label}
    method = f"gold answers of {where}"
    for reader in readers:
        labelled = sum(k in gold for k in open_keys(reader, prior, settled))
        if labelled < MIN_OPEN:
            raise DataError(where, None, f"reader {reader.reader}: {labelled} labelled open options, fewer than "
                                         f"the {MIN_OPEN} an estimate needs; label more topics, or let `answer` "
                                         "weigh the reader without gold")
    if regime == "none":  # how often each reader's whole answer is right
        answers = {q.qid: q.gold for t in topics for q in t.questions if q.gold}
        return tuple(fit_answers_with_gold(r, answers, method) for r in readers)
    return tuple(replace(cal, method=f"{method} ({cal.options} labelled open options)", regime=regime)
                 for cal in fit_all_with_gold(readers, gold, prior, settled, method=method))
