"""How much fusion trusts each reader: its reliability estimated from gold answers or, without gold, from the
labels the construction priors settle, the structure model's probabilities and the other readers (a two-coin EM
in the manner of Dawid and Skene), turned into the log-odds each of its judgements carries.

A hard answer is a vote: its reliability is a sensitivity (P(chosen | cause)) and a specificity
(P(not chosen | not a cause)), and a chosen label carries log(sens / (1 - spec)), one not chosen
log((1 - sens) / spec). A probability is not a vote: it is recalibrated by a logistic map of its log-odds
(Platt scaling), less the log-odds of the base rate, so that what it adds is a likelihood ratio. Readers whose
errors go together (one model with several prompts) share one vote: each is discounted by the sum of its
positive error correlations with the others. Fusion scales the result by `scale` (by default a function of
the topic's size), learned on real readers' dev answers under folds grouped by topic (BENCHMARKS.md, "Readers")."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import numpy as np
from sklearn.linear_model import LogisticRegression

from ..data import DataError
from .base import Judgement, ReaderJudgements

Key = tuple[str, str]  # (question id, label)

# The scale on each reader's log-likelihood ratios by the number of questions of the topic it is fused in,
# chosen by `python benchmarks/real_readers.py` on the dev readers that were not trained on the benchmark's
# events (BENCHMARKS.md, "Readers"): best at 1.0 for a question alone, at 1.5 for topics of five questions, of
# the test split's shapes and whole; linear in between.
SIZE_SCALES = ((1, 1.0), (5, 1.5))
DEFAULT_SCALE = None  # by topic size
SCALES = (0.5, 1.0, 1.5, 2.0, 3.0)
# A typical reader before any evidence, worth this many options: a reader judged on a handful of options stays
# near it. The dev readers' medians (gold-free, whole topics) are 0.75 and 0.90; the specificity is shaded down.
PRIOR_SENSITIVITY, PRIOR_SPECIFICITY, PRIOR_OPTIONS = 0.75, 0.85, 10.0
MAX_LOG_ODDS = 600  # x 100: no single judgement carries more than 6 nats
ITERATIONS = 50
MIN_SHARED = 20  # options two readers must share before their error correlation counts
KINDS = ("answers", "probabilities")


@dataclass(frozen=True)
class ReaderCalibration:
    """One reader's fusion parameters and where they came from (`method`, `options`: the options the estimate
    rests on). Answers: `sensitivity` and `specificity`; probabilities: log-odds = `slope` x logit(p) +
    `intercept`. The solver weighs the reader's log-likelihood ratios by `weight` percent (`scale` times the
    correlation `discount`)."""

    reader: str
    kind: str
    method: str
    options: int
    sensitivity: float | None = None
    specificity: float | None = None
    slope: float | None = None
    intercept: float | None = None
    scale: float | None = DEFAULT_SCALE
    discount: float = 1.0

    def weight_for(self, questions: int) -> int:
        """The weight (percent) in a topic of this many questions: the scale (by topic size where it is None)
        times the discount."""
        scale = size_scale(questions) if self.scale is None else self.scale
        return int(round(100 * scale * self.discount))

    @property
    def weight(self) -> int:
        """The weight in a topic of five questions or more."""
        return self.weight_for(SIZE_SCALES[-1][0])

    def log_odds(self, judgement: Judgement) -> int:
        """The log-likelihood ratio x 100 that this judgement carries, capped at +-MAX_LOG_ODDS."""
        if self.kind == "answers" and judgement.probability is None:
            sens, spec = self.sensitivity, self.specificity
            assert sens is not None and spec is not None  # a reader of answers states both (from_record, _fit)
            ratio = math.log(sens / (1 - spec)) if judgement.verdict else math.log((1 - sens) / spec)
        elif self.kind == "probabilities" and judgement.probability is not None:
            assert self.slope is not None and self.intercept is not None  # as a reader of probabilities states
            ratio = self.slope * _logit(judgement.probability) + self.intercept
        else:
            ratio = 0.0  # a judgement of the other kind than the reader's: its calibration says nothing of it
        return int(round(max(-MAX_LOG_ODDS, min(MAX_LOG_ODDS, 100 * ratio))))

    def apply(self, reader: ReaderJudgements) -> ReaderJudgements:
        """The reader's judgements carrying their calibrated log-odds, weighted by this calibration."""
        judgements = {k: replace(j, calibrated=self.log_odds(j)) for k, j in reader.judgements.items()}
        return ReaderJudgements(reader.reader, judgements, self.weight, self)

    def reliability(self) -> str:
        """One line: the estimated reliability and how it was estimated."""
        if self.kind == "answers":
            what = f"sensitivity {self.sensitivity:.2f}, specificity {self.specificity:.2f}"
        else:
            what = f"probabilities recalibrated as {self.slope:.2f} x logit(p) {self.intercept:+.2f}"
        by_size = "" if self.scale is not None else f", {self.weight_for(1)}% for a question alone"
        return f"{what} ({self.method}, {self.options} options); weight {self.weight}%{by_size}"

    def as_record(self) -> dict:
        return {k: v for k, v in vars(self).items() if v is not None}

    @classmethod
    def from_record(cls, record: object, path: str | os.PathLike, where: str) -> "ReaderCalibration":
        """A calibration from its JSON record; DataError naming the file and the reader's entry if it is not one."""
        if not isinstance(record, dict):
            raise DataError(path, where, f"expected an object, got {type(record).__name__}")
        unknown = set(record) - {f for f in cls.__dataclass_fields__}
        if unknown:
            raise DataError(path, where, f"unknown field {sorted(unknown)[0]!r}")
        for name in ("reader", "kind", "method", "options"):
            if name not in record:
                raise DataError(path, where, f"missing field {name!r}")
        if not isinstance(record["reader"], str) or not record["reader"]:
            raise DataError(path, where, "reader must be a non-empty string")
        if record["kind"] not in KINDS:
            raise DataError(path, where, f"kind must be one of {', '.join(KINDS)}, got {record['kind']!r}")
        numbers = ("sensitivity", "specificity") if record["kind"] == "answers" else ("slope", "intercept")
        for name in (*numbers, "scale", "discount", "options"):
            value = record.get(name, 1.0)
            if name == "scale" and value is None:
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise DataError(path, where, f"{name} must be a finite number, got {value!r}")
        for name in numbers:
            if name not in record:
                raise DataError(path, where, f"missing field {name!r} for a reader of {record['kind']}")
        if record["kind"] == "answers" and not all(0 < record[n] < 1 for n in numbers):
            raise DataError(path, where, "sensitivity and specificity must lie strictly between 0 and 1")
        if not (0 <= (record.get("scale") or 0) <= 100 and 0 < record.get("discount", 1.0) <= 1):
            raise DataError(path, where, "scale must lie in [0, 100] and discount in (0, 1]")
        return cls(**record)


def size_scale(questions: int) -> float:
    """The scale of SIZE_SCALES for a topic of this many questions."""
    (n0, s0), (n1, s1) = SIZE_SCALES
    return s0 + (s1 - s0) * (min(max(questions, n0), n1) - n0) / (n1 - n0)


def _logit(p: float) -> float:
    p = min(max(p, 1e-4), 1 - 1e-4)
    return math.log(p / (1 - p))


def kind_of(reader: ReaderJudgements) -> str:
    """'probabilities' when most of the reader's judgements are probabilities, else 'answers'."""
    probabilities = sum(j.probability is not None for j in reader.judgements.values())
    return "probabilities" if 2 * probabilities > len(reader.judgements) else "answers"


def _fit(reader: ReaderJudgements, kind: str, keys: list[Key], post: np.ndarray, method: str,
         scale: float | None) -> ReaderCalibration:
    """The M-step: a reader's parameters from the (soft) labels `post` of the options `keys` it judged."""
    if kind == "answers":
        votes = np.array([bool(reader.judgements[k].verdict) for k in keys], float)
        a, b = PRIOR_OPTIONS * PRIOR_SENSITIVITY, PRIOR_OPTIONS * PRIOR_SPECIFICITY
        sens = (np.sum(post * votes) + a) / (np.sum(post) + PRIOR_OPTIONS)
        spec = (np.sum((1 - post) * (1 - votes)) + b) / (np.sum(1 - post) + PRIOR_OPTIONS)
        return ReaderCalibration(reader.reader, kind, method, len(keys), sensitivity=round(float(sens), 4),
                                 specificity=round(float(spec), 4), scale=scale)
    probabilities = [reader.judgements[k].probability for k in keys]  # all of them probabilities (_judged)
    x = np.array([_logit(p) for p in probabilities if p is not None])
    slope, intercept = _weighted_logistic(x, post)
    base = (np.sum(post) + 1) / (len(post) + 2)  # the likelihood ratio leaves the base rate to the prior
    return ReaderCalibration(reader.reader, kind, method, len(keys), slope=round(slope, 4),
                             intercept=round(intercept - math.log(base / (1 - base)), 4), scale=scale)


def _weighted_logistic(x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Slope and intercept of an L2-regularised logistic regression of the soft labels `y` on `x` (each option a
    positive of weight y and a negative of weight 1 - y); no options leave the probabilities as they are."""
    if len(x) == 0:
        return 1.0, 0.0
    X = np.r_[x, x][:, None]
    labels = np.r_[np.ones(len(x)), np.zeros(len(x))]
    weights = np.r_[y, 1 - y] + 1e-9
    model = LogisticRegression(C=1.0).fit(X, labels, sample_weight=weights)
    return float(model.coef_[0, 0]), float(model.intercept_[0])


def fit_with_gold(reader: ReaderJudgements, gold: Mapping[Key, bool], scale: float | None = DEFAULT_SCALE,
                  method: str = "gold answers") -> ReaderCalibration:
    """A reader's parameters from the gold labels of the options it judged."""
    kind = kind_of(reader)
    keys = _judged(reader, kind, gold)
    post = np.array([float(gold[k]) for k in keys])
    return _fit(reader, kind, keys, post, method, scale)


def _judged(reader: ReaderJudgements, kind: str, options: Mapping[Key, object]) -> list[Key]:
    """The options (sorted) that the reader judged with a judgement of its kind."""
    return sorted(k for k in options if k in reader.judgements
                  and (reader.judgements[k].probability is not None) == (kind == "probabilities"))


def estimate_without_gold(readers: Sequence[ReaderJudgements], prior: Mapping[Key, float],
                          settled: Mapping[Key, bool], scale: float | None = DEFAULT_SCALE,
                          fixed: Mapping[str, ReaderCalibration] | None = None) -> tuple[ReaderCalibration, ...]:
    """Every reader's parameters without gold, by EM over the options of `prior` (the structure model's
    probability that each option is a direct cause): the labels in `settled` (the construction priors') are
    known; the others' posteriors combine the prior with every reader's log-likelihood ratio. Readers in
    `fixed` (by name) keep their parameters and count as evidence. Then each reader is discounted by its
    error correlation with the others."""
    fixed = dict(fixed or {})
    keys = sorted(prior)
    index = {k: i for i, k in enumerate(keys)}
    base = np.array([_logit(prior[k]) for k in keys])
    known = np.array([k in settled for k in keys])
    truth = np.array([float(settled.get(k, 0.0)) for k in keys])
    kinds = [kind_of(r) for r in readers]
    judged = [_judged(r, kind, prior) for r, kind in zip(readers, kinds)]
    post = np.where(known, truth, 1 / (1 + np.exp(-base)))
    for _ in range(ITERATIONS):
        cals = [fixed.get(r.reader) or _fit(r, kind, ks, post[[index[k] for k in ks]], "", scale)
                for r, kind, ks in zip(readers, kinds, judged)]
        evidence = base.copy()
        for r, cal, ks in zip(readers, cals, judged):
            for k in ks:
                evidence[index[k]] += cal.log_odds(r.judgements[k]) / 100
        new = np.where(known, truth, 1 / (1 + np.exp(-evidence)))
        if np.max(np.abs(new - post), initial=0) < 1e-6:
            break
        post = new
    method = (f"no gold: EM over {int(known.sum())} settled options, the structure model"
              + (f" and {len(readers) - 1} other reader{'s' * (len(readers) > 2)}" if len(readers) > 1 else ""))
    discounts = _discounts(readers, cals, judged, {k: float(v) for k, v in settled.items()})
    return tuple(fixed[r.reader] if r.reader in fixed else replace(cal, method=method, discount=d)
                 for r, cal, d in zip(readers, cals, discounts))


def _discounts(readers, cals, judged, labels: Mapping[Key, float]) -> list[float]:
    """1 / (1 + the sum of each reader's positive error correlations with the others): readers whose errors go
    together share one vote. An error is a judgement's log-likelihood ratio less its mean over the options of
    the same label, on the options whose label is known (`labels`: gold, or without gold the ones the
    construction priors settle), so that agreeing where both are right never counts as a shared error."""
    residuals = []
    for r, cal, ks in zip(readers, cals, judged):
        known = [k for k in ks if k in labels]
        llr = np.array([cal.log_odds(r.judgements[k]) / 100 for k in known])
        y = np.array([labels[k] for k in known])
        mean1 = np.sum(y * llr) / max(np.sum(y), 1e-9)
        mean0 = np.sum((1 - y) * llr) / max(np.sum(1 - y), 1e-9)
        residuals.append(dict(zip(known, llr - (y * mean1 + (1 - y) * mean0))))
    out = []
    for i, ri in enumerate(residuals):
        total = 1.0
        for j, rj in enumerate(residuals):
            shared = sorted(set(ri) & set(rj))
            if i == j or len(shared) < MIN_SHARED:
                continue
            a, b = np.array([ri[k] for k in shared]), np.array([rj[k] for k in shared])
            if a.std() > 0 and b.std() > 0:
                total += max(0.0, float(np.corrcoef(a, b)[0, 1]))
        out.append(round(1 / total, 4))
    return out


def fit_all_with_gold(readers: Sequence[ReaderJudgements], gold: Mapping[Key, bool], scale: float | None = DEFAULT_SCALE,
                      method: str = "gold answers") -> tuple[ReaderCalibration, ...]:
    """Every reader's parameters from gold, each discounted by its error correlation with the others."""
    cals = [fit_with_gold(r, gold, scale, method) for r in readers]
    judged = [_judged(r, c.kind, gold) for r, c in zip(readers, cals)]
    discounts = _discounts(readers, cals, judged, {k: float(v) for k, v in gold.items()})
    return tuple(replace(c, discount=d) for c, d in zip(cals, discounts))
