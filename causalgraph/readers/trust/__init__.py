"""Reader trust: how far fusion trusts each reader (another system's answers, an LLM's, the cross-encoder's)
beside causalgraph's own edge probabilities, all of it in this package. The words, one to a concept:

- trust: the whole matter; TrustSettings (settings.py) says how the readers of a run are trusted.
- calibration: one reader's trust as estimated or fitted (ReaderCalibration, calibration.py), what it makes
  each judgement carry, and the calibration file that `calibrate` writes and `answer --reader-calibration` reads.
- weight: the percent by which fusion scales a reader's log-odds (a calibration's scale times its discount, or
  the `--reader-weight` given); weighing the readers (weigh.py) gives each its calibration and weight.
- estimate, fit: a calibration without gold, on the answered topics; with gold, on labelled ones.
- regime: the topics a calibration is for. "aer", the benchmark's (options.py: a reader's reliability on the
  options the rules leave open, by EM with the structure model and the other readers); "none", a user's own
  (channel.py: a reader as a channel of whole answers, right on a share of the questions, `answers_right`).

What the pipeline, the API and the commands use is exported here; the lab reaches into the modules."""

from .calibration import (MIN_OPEN, SCALE, Key, OptionEvidence, ReaderCalibration, load_calibrations,
                          match_calibrations, write_calibrations)
from .channel import AnswerChannel
from .settings import TrustSettings
from .weigh import fit_to_labels, weigh_readers

__all__ = ["MIN_OPEN", "SCALE", "AnswerChannel", "Key", "OptionEvidence", "ReaderCalibration", "TrustSettings",
           "fit_to_labels", "load_calibrations", "match_calibrations", "weigh_readers", "write_calibrations"]
