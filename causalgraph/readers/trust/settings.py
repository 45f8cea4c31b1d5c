"""How fusion is told to trust the readers of a run: the one settings object of reader trust."""

from __future__ import annotations

import os
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

from ..base import ReaderJudgements
from .calibration import DEPENDENCE, MIN_OPEN, SCALE, ReaderCalibration, load_calibrations, match_calibrations
from .channel import AnswerChannel


@dataclass(frozen=True)
class TrustSettings:
    """How the readers are weighed (weigh.weigh_readers). `weight`: every reader's raw log-odds at that percent,
    nothing estimated. Otherwise a reader named in `calibrations` (by reader name; read from `calibration_file`,
    which an unmatched calibration's error names) keeps its calibration, and the others are estimated without
    gold under the `regime` of the answered topics: "aer", the benchmark's topics, by EM over their open options
    (options.py: the estimated log-likelihood ratios times `scale`; a reader judged on fewer than `min_open` of
    them gets the fallback; the `dependence` held, or None: fitted per reader), or "none", a user's own topics,
    each reader as a channel of whole answers (channel.py, `channel`: its model's constants)."""

    weight: int | None = None
    calibrations: Mapping[str, ReaderCalibration] | None = None
    calibration_file: str = "reader_calibration"
    regime: str = "aer"
    scale: float = SCALE
    min_open: int = MIN_OPEN
    dependence: float | None = DEPENDENCE
    channel: AnswerChannel = AnswerChannel()

    @classmethod
    def given(cls, weight: int | None = None,
              calibration: str | os.PathLike | Mapping[str, ReaderCalibration] | None = None) -> TrustSettings:
        """The settings of a reader `weight` (percent) and a `calibration`: a file written by `calibrate` (read
        here, DataError naming it when it is not one), or calibrations by reader name."""
        if isinstance(calibration, (str, os.PathLike)):
            return cls(weight, load_calibrations(calibration), str(calibration))
        return cls(weight, calibration)

    def for_run(self, readers: Sequence[ReaderJudgements], regime: str) -> TrustSettings:
        """These settings for a run of `readers` under the priors `regime`, the calibrations matched to them
        (calibration.match_calibrations: DataError naming the file for one that matches no reader)."""
        calibrations = self.calibrations
        if calibrations is not None and readers:
            calibrations = match_calibrations(readers, calibrations, self.calibration_file)
        return replace(self, calibrations=calibrations, regime=regime)
