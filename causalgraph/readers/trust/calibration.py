"""A calibration: one reader's trust as fusion reads it, estimated or fitted (options.py: the benchmark's regime,
channel.py: a user's own topics), and where it came from; what each judgement then carries in the fusion (a yes
log(sens / (1 - spec)), a no log((1 - sens) / spec), a probability its Platt map, a fallback its raw log-odds);
and the calibration file that `calibrate` writes and `answer --reader-calibration` reads. The constants below
were measured or chosen in docs/lab/readers.md, "Real readers" (`python -m lab.readers.real_readers`)."""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Iterable, Mapping, Sequence

import numpy as np

from ...data import DataError
from ...data.load import read_text
from ...data.odds import logit
from ..base import HARD_LOG_ODDS, Judgement, ReaderJudgements

Key = tuple[str, str]  # (question id, label)
# What the trust in the readers of some topics rests on: the structure model's probability that each real option
# directly caused its target (the prior), and the options the rules settle whatever the evidence says, with their
# label (run.pipeline.option_evidence).
OptionEvidence = tuple[dict[Key, float], dict[Key, bool]]

# The slope with which real readers' votes follow the structure log-odds beyond the truth: fitted against gold
# on the open options of the dev-only topics, pooled over the seven dev readers not trained on train.
DEPENDENCE = 0.38
# The scale on the estimated log-likelihood ratios, chosen on the same readers by nested grouped CV where every
# question is judged, as on the test split (with one question in six judged, 1.5 does better).
SCALE = 1.25
# The guard: a reader judged on fewer open options than MIN_OPEN gets FALLBACK_WEIGHT (percent) on its raw
# log-odds, both chosen on the dev questions cut into small topics.
MIN_OPEN = 100
FALLBACK_WEIGHT = 50
# A typical reader before any evidence (sensitivity 0.75 and specificity 0.85 at structure log-odds 0), worth
# PRIOR_OPTIONS options of each kind: pseudo-votes that pull `cause` and `other` towards it (as a Beta prior pulls
# a rate), and a Gaussian prior of precision PRIOR_PRECISION on the dependence where gold fits it.
TYPICAL = (0.75, 0.15)
PRIOR_OPTIONS = 2.0
PRIOR_PRECISION = 1.0
MAX_LOG_ODDS = 600  # x 100: no single judgement carries more than 6 nats
SCORE_CAP = 6.0  # a probability's log-odds are read within +-6
PROBIT = 1.7  # a normal spread of log-odds against a logistic vote: sigmoid(1.7 t) is close to Phi(t)
MIN_SPREAD = 0.5
ITERATIONS = 200
MIN_SHARED = 20  # options two readers must share before their error correlation counts
KINDS = ("answers", "probabilities")
# The regimes: "aer", the benchmark's topics under its construction priors (options.py), and "none", a user's own
# topic under priors "none" (channel.py). A calibration records the regime it was made for.
REGIMES = ("aer", "none")


@dataclass(frozen=True)
class ReaderCalibration:
    """One reader's fusion parameters and where they came from (`method`; `options`: the open options the
    estimate rests on). Answers: a vote's probability is sigmoid(`cause` + `dependence` x) on a cause and
    sigmoid(`other` + `dependence` x) on any other option, x the structure log-odds. Probabilities: their
    log-odds spread by `spread` around `cause` and `other` (plus the dependence's share of x). `sensitivity`
    and `specificity` (of a yes, or of a probability above one half) are the model's means over the open
    options. `fallback`: too few open options to estimate, so the reader's raw log-odds count. The solver
    weighs the log-odds by `weight` percent (`scale` times the correlation `discount`). `regime`: the topics it
    was made for, "aer" (the benchmark's) or "none" (a user's own, priors "none"; channel.py). `answers_right`: in
    the regime "none", how often the reader's whole answer is right (AnswerChannel; `options` then counts the
    questions it rests on), which fusion reads question by question (channel.answer_log_odds)."""

    reader: str
    kind: str
    method: str
    options: int
    cause: float | None = None
    other: float | None = None
    spread: float | None = None
    dependence: float = DEPENDENCE
    sensitivity: float | None = None
    specificity: float | None = None
    scale: float = SCALE
    discount: float = 1.0
    fallback: bool = False
    regime: str = "aer"
    answers_right: float | None = None

    @property
    def weight(self) -> int:
        """The weight (percent) of the reader's log-odds in the fusion."""
        return int(round(100 * self.scale * self.discount))

    def log_odds(self, judgement: Judgement) -> int:
        """The log-likelihood ratio x 100 that this judgement carries in the fusion, capped at +-MAX_LOG_ODDS: a
        yes log(sensitivity / (1 - specificity)), a no log((1 - sensitivity) / specificity) (a probability, of a
        reader that answers, weighs the two by itself); a probability's Platt map; a fallback's raw log-odds."""
        if self.fallback or self.sensitivity is None or self.specificity is None:
            return replace(judgement, calibrated=None).log_odds()
        if self.kind == "probabilities" and self.spread:  # a reader of probabilities read through its normal model
            slope, intercept = self.platt()
            ratio = slope * score(judgement) + intercept
        else:
            sens, spec, v = self.sensitivity, self.specificity, vote(judgement)
            ratio = v * math.log(sens / (1 - spec)) + (1 - v) * math.log((1 - sens) / spec)
        return int(round(max(-MAX_LOG_ODDS, min(MAX_LOG_ODDS, 100 * ratio))))

    def platt(self) -> tuple[float, float]:
        """A reader of probabilities: the slope and intercept of its log-likelihood ratio in logit(p), where the
        structure model is undecided (x = 0)."""
        assert self.cause is not None and self.other is not None and self.spread  # a reader of probabilities states all
        slope = (self.cause - self.other) / self.spread ** 2
        return slope, -slope * (self.cause + self.other) / 2

    def ratios(self, x: np.ndarray, judgements: Sequence[Judgement]) -> np.ndarray:
        """The model's log-likelihood ratios of judgements on options of structure log-odds `x` (the EM's
        evidence), capped at +-MAX_LOG_ODDS / 100."""
        assert self.cause is not None and self.other is not None  # an estimated calibration states both
        if self.kind == "probabilities" and self.spread:
            slope, intercept = self.platt()
            z = np.array([score(j) for j in judgements])
            ratio = slope * (z - self.dependence * self.spread / PROBIT * x) + intercept
        else:
            ratio = vote_log_odds(self.cause, self.other, self.dependence, x, np.array([vote(j) for j in judgements]))
        return np.clip(ratio, -MAX_LOG_ODDS / 100, MAX_LOG_ODDS / 100)

    def apply(self, reader: ReaderJudgements) -> ReaderJudgements:
        """The reader's judgements carrying their calibrated log-odds, weighted by this calibration."""
        judgements = {k: replace(j, calibrated=self.log_odds(j)) for k, j in reader.judgements.items()}
        return ReaderJudgements(reader.reader, judgements, self.weight, self)

    def reliability(self) -> str:
        """One line: the reliability on the open options, how it was estimated, what a judgement carries, and
        the weight."""
        weight = f"weight {self.weight}%"
        if self.discount < 1:
            weight += f" ({100 * self.scale:.0f}% x {self.discount:.2f} for errors shared with other readers)"
        if self.answers_right is not None:
            return (f"its answers right on {100 * self.answers_right:.0f}% of questions, estimated on {self.options} "
                    f"questions ({self.method}); a label carries how far its answer moves the label's odds beside the "
                    f"structure model's; {weight}; regime {self.regime!r}")
        if self.fallback:
            return f"not estimated: {self.method}; the default {weight} on its raw log-odds"
        if self.kind == "probabilities" and self.spread:
            slope, intercept = self.platt()
            carries = f"probabilities recalibrated as {slope:.2f} x logit(p) {intercept:+.2f}"
        else:
            carries = (f"a yes carries {self.log_odds(Judgement(verdict=True)) / 100:+.2f}, a no "
                       f"{self.log_odds(Judgement(verdict=False)) / 100:+.2f}")
        return (f"sensitivity {self.sensitivity:.2f}, specificity {self.specificity:.2f} on {self.options} "
                f"{'open ' * (self.regime == 'aer')}options ({self.method}); {carries}; {weight}; regime "
                f"{self.regime!r}")

    def as_record(self) -> dict:
        return {k: v for k, v in vars(self).items() if v is not None}

    @classmethod
    def from_record(cls, record: object, path: str | os.PathLike, where: str) -> "ReaderCalibration":
        """A calibration from its JSON record; DataError naming the file and the reader's entry if it is not one."""
        if not isinstance(record, dict):
            raise DataError(path, where, f"expected an object, got {type(record).__name__}")
        unknown = set(record) - {f for f in cls.__dataclass_fields__}
        if unknown:
            raise DataError(path, where, f"unknown field {sorted(unknown)[0]!r} (a calibration of an older "
                                         "causalgraph? run `calibrate` again)")
        fallback = record.get("fallback", False)
        # an estimate states its model; a fallback and a channel of whole answers (answers_right) have none
        required = ("reader", "kind", "method", "options") + (() if fallback or "answers_right" in record
                                                               else ("cause", "other", "sensitivity", "specificity"))
        for name in required:
            if name not in record:
                raise DataError(path, where, f"missing field {name!r}")
        if not isinstance(record["reader"], str) or not record["reader"]:
            raise DataError(path, where, "reader must be a non-empty string")
        if not isinstance(record["method"], str):
            raise DataError(path, where, f"method must be a text, got {record['method']!r}")
        options = record["options"]
        if (isinstance(options, bool) or not isinstance(options, (int, float)) or not math.isfinite(options)
                or options != int(options) or options < 0):
            raise DataError(path, where, f"options must be a whole number, 0 or more, got {options!r}")
        if record["kind"] not in KINDS:
            raise DataError(path, where, f"kind must be one of {', '.join(KINDS)}, got {record['kind']!r}")
        if not isinstance(fallback, bool):
            raise DataError(path, where, f"fallback must be true or false, got {fallback!r}")
        if "answers_right" in record:
            if not (isinstance(record["answers_right"], (int, float)) and not isinstance(record["answers_right"], bool)
                    and 0 < record["answers_right"] < 1):
                raise DataError(path, where, f"answers_right must lie strictly between 0 and 1, got "
                                             f"{record['answers_right']!r}")
            if record.get("regime") != "none":
                raise DataError(path, where, "answers_right belongs to the regime 'none'")
        for name in ("cause", "other", "spread", "dependence", "sensitivity", "specificity", "scale",
                     "discount"):
            value = record.get(name, 0)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise DataError(path, where, f"{name} must be a finite number, got {value!r}")
        if record.get("regime", "aer") not in REGIMES:
            raise DataError(path, where, f"regime must be one of {', '.join(REGIMES)}, got {record['regime']!r}")
        if (record["kind"] == "probabilities" and record.get("regime", "aer") == "aer" and not fallback
                and not record.get("spread", 0) > 0):
            raise DataError(path, where, "a reader of probabilities needs a positive spread")
        if not record.get("spread", MIN_SPREAD) >= MIN_SPREAD:
            raise DataError(path, where,
                            f"spread must be at least {MIN_SPREAD} (the fit's floor), got {record['spread']!r}")
        if not all(0 < record[n] < 1 for n in ("sensitivity", "specificity") if n in record):
            raise DataError(path, where, "sensitivity and specificity must lie strictly between 0 and 1")
        if not (0 <= record.get("scale", SCALE) <= 100 and 0 < record.get("discount", 1.0) <= 1):
            raise DataError(path, where, "scale must lie in [0, 100] and discount in (0, 1]")
        return cls(**{**record, "options": int(options)})


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-z))


def vote(judgement: Judgement) -> float:
    """A judgement as a vote for "cause": its probability, or 1.0 for a yes and 0.0 otherwise."""
    return judgement.probability if judgement.probability is not None else float(bool(judgement.verdict))


def score(judgement: Judgement) -> float:
    """A judgement as log-odds of "cause": its probability's (within +-SCORE_CAP), or a hard verdict's."""
    if judgement.probability is None:
        return HARD_LOG_ODDS / 100 if judgement.verdict else -HARD_LOG_ODDS / 100
    return max(-SCORE_CAP, min(SCORE_CAP, logit(judgement.probability)))


def vote_log_odds(cause: float, other: float, dependence: float, x: np.ndarray, votes: np.ndarray) -> np.ndarray:
    """log P(vote | cause, x) / P(vote | not a cause, x) of (soft) votes at structure log-odds x."""
    a, b = cause + dependence * x, other + dependence * x
    yes = np.logaddexp(0, -b) - np.logaddexp(0, -a)  # log sigmoid(a) - log sigmoid(b)
    no = np.logaddexp(0, b) - np.logaddexp(0, a)  # log (1 - sigmoid(a)) - log (1 - sigmoid(b))
    return votes * yes + (1 - votes) * no


def kind_of(reader: ReaderJudgements) -> str:
    """'probabilities' when most of the reader's judgements are probabilities, else 'answers'."""
    probabilities = sum(j.probability is not None for j in reader.judgements.values())
    return "probabilities" if 2 * probabilities > len(reader.judgements) else "answers"


def write_calibrations(calibrations: Iterable[ReaderCalibration], extra: dict | None = None) -> str:
    """The text of a calibration file: {"readers": [record, ...], ...extra}."""
    return json.dumps({"readers": [c.as_record() for c in calibrations], **(extra or {})}, indent=1) + "\n"


def load_calibrations(path: str | os.PathLike) -> dict[str, ReaderCalibration]:
    """The calibrations of a file written by `calibrate`, by reader name; DataError naming the file (and the
    entry) when it is not one."""
    path = Path(path)
    text = read_text(path)  # DataError naming a device, a pipe that never ends or bytes that are not UTF-8
    try:
        data = json.loads(text)
    except RecursionError:
        raise DataError(path, None, "JSON nested too deeply") from None
    except json.JSONDecodeError as err:
        raise DataError(path, f"line {err.lineno}", f"not JSON ({err.msg})") from None
    except ValueError as err:  # a number of more digits than int() reads
        raise DataError(path, None, f"not JSON ({err})") from None
    if not isinstance(data, dict) or not isinstance(data.get("readers"), list):
        raise DataError(path, None, 'expected {"readers": [...]} as written by `causalgraph calibrate`')
    out: dict[str, ReaderCalibration] = {}
    for i, record in enumerate(data["readers"]):
        cal = ReaderCalibration.from_record(record, path, f"readers[{i}]")
        if cal.reader in out:
            raise DataError(path, f"readers[{i}]", f"a second calibration of reader {cal.reader!r}")
        out[cal.reader] = cal
    if not out:
        raise DataError(path, None, "no reader calibrated")
    return out


def match_calibrations(readers: Sequence[ReaderJudgements], calibrations: Mapping[str, ReaderCalibration],
                       path: str | os.PathLike) -> dict[str, ReaderCalibration]:
    """The calibrations by the name of the reader they apply to: by name, or the file's only calibration when a
    single reader is given. DataError naming the file when a calibration matches no reader."""
    if len(calibrations) == 1 and len(readers) == 1:
        (cal,) = calibrations.values()
        return {readers[0].reader: replace(cal, reader=readers[0].reader)}
    names = {r.reader for r in readers}
    unmatched = sorted(set(calibrations) - names)
    if unmatched:
        raise DataError(path, None, f"calibrates reader {unmatched[0]!r}, which is not among the readers given "
                                    f"({', '.join(sorted(names)) or 'none'}); name it with --reader-scores NAME=FILE")
    return dict(calibrations)
