"""The trust in a reader on the benchmark's topics (the regime "aer"): its reliability where the answer is open,
estimated from gold answers or, without gold, by EM against the structure model's probabilities and the other
readers (two-coin, in the manner of Dawid and Skene), turned into the log-odds each of its judgements carries.

Only open options count: those the construction priors and rules leave undecided (reason/settled.py). Where
they decide, a reader trained on this benchmark is perfect, and that says nothing of how it does elsewhere.

The model. On an open option whose structure log-odds is x, a reader that answers votes "cause" with
probability sigmoid(cause + dependence * x) if the option is a cause, and sigmoid(other + dependence * x) if it
is not; a reader of probabilities gives log-odds z = logit(p) spread normally, with standard deviation `spread`,
around cause + delta * x on a cause and other + delta * x on any other option, delta = dependence * spread / 1.7
being the same dependence on the scale of z (the probit-to-logit factor). The dependence is how far a reader
follows the structure model beyond the truth: readers find the options plausible that the structure model
finds plausible, so where the two err together, their agreement looks like reliability to an EM that assumes
they err apart. Without gold, dependence cannot be told from reliability (the vote rate against x looks
alike), so it is measured once against the gold answers of real readers (DEPENDENCE) and held while EM
estimates the rest, with the structure probabilities as soft labels: the scorer is trained for the shapes of
the split it answers (`train --resize-to`), and there they are calibrated on open options (docs/lab/readers.md).

Fusion reads the estimate as the reliability on the open options: a yes carries log(sens / (1 - spec)), a no
log((1 - sens) / spec); a probability its Platt map slope * logit(p) + intercept, from the normal model where
the structure model is undecided, whose intercept favours "cause" only as far as the open options show that the
reader's log-odds run low. On a small topic an estimate rests on few open options (and the structure model is
over-confident there): below MIN_OPEN a reader is not estimated but gets FALLBACK_WEIGHT on its raw log-odds.
Readers whose errors go together share one vote (their discount). Fusion scales the log-odds by SCALE. The
constants are calibration.py's."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Mapping, Sequence

import numpy as np

from ...data.odds import logit
from ..base import Judgement, ReaderJudgements
from .calibration import (DEPENDENCE, FALLBACK_WEIGHT, ITERATIONS, MIN_SHARED, MIN_SPREAD, PRIOR_OPTIONS,
                          PRIOR_PRECISION, PROBIT, TYPICAL, Key, ReaderCalibration, kind_of, score, sigmoid, vote)
from .settings import TrustSettings


def _logistic(F: np.ndarray, votes: np.ndarray, w: np.ndarray, dependence: float | None) -> np.ndarray:
    """The maximum a posteriori (cause, other, dependence) of a logistic model of (soft) `votes` on the features
    `F` (cause indicator, not-cause indicator, structure log-odds), rows weighted by `w`, with PRIOR_OPTIONS
    pseudo-votes of the typical reader on each intercept; the dependence held where given, else fitted under a
    Gaussian prior of precision PRIOR_PRECISION around DEPENDENCE. Newton steps."""
    F = np.r_[F, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]
    votes, w = np.r_[votes, TYPICAL], np.r_[w, PRIOR_OPTIONS, PRIOR_OPTIONS]
    theta = np.array([logit(TYPICAL[0], 1e-4), logit(TYPICAL[1], 1e-4), DEPENDENCE if dependence is None
                      else dependence])
    free = [0, 1] if dependence is not None else [0, 1, 2]
    precision = np.diag([0.0, 0.0, PRIOR_PRECISION])
    for _ in range(100):
        m = sigmoid(F @ theta)
        grad = F.T @ (w * (votes - m)) - precision @ (theta - [0.0, 0.0, DEPENDENCE])
        hess = (F * (w * m * (1 - m))[:, None]).T @ F + precision
        step = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        theta[free] += np.clip(step, -2, 2)
        if np.max(np.abs(step)) < 1e-9:
            break
    return theta


def _fit(reader: ReaderJudgements, keys: list[Key], x: np.ndarray, post: np.ndarray, dependence: float | None,
         settings: TrustSettings) -> ReaderCalibration:
    """A reader's parameters (its `method` left empty) from the (soft) labels `post` of the open options `keys` it
    judged, at structure log-odds `x`, times `settings.scale`; the dependence is fitted too where it is None (gold
    labels), else held. Fewer than `settings.min_open` options: the fallback."""
    kind = kind_of(reader)
    min_open = max(settings.min_open, 1)
    if len(keys) < min_open:
        return ReaderCalibration(reader.reader, kind, f"{len(keys)} open options, fewer than the {min_open} "
                                 "an estimate needs", len(keys), scale=FALLBACK_WEIGHT / 100, fallback=True)
    judgements = [reader.judgements[k] for k in keys]
    fit = _fit_scores if kind == "probabilities" else _fit_votes
    params, sens, spec = fit(judgements, x, post, dependence)
    return ReaderCalibration(reader.reader, kind, "", len(keys), **params, sensitivity=round(sens, 4),
                             specificity=round(spec, 4), scale=settings.scale)


def _fit_votes(judgements: list[Judgement], x: np.ndarray, post: np.ndarray,
               dependence: float | None) -> tuple[dict, float, float]:
    """The logistic model of votes: cause, other and the dependence (held where given), and the mean
    sensitivity and specificity over the options weighted by `post`."""
    votes = np.array([vote(j) for j in judgements])
    ones, zeros = np.ones(len(x)), np.zeros(len(x))
    F = np.r_[np.c_[ones, zeros, x], np.c_[zeros, ones, x]]  # each option once as a cause, once as not
    cause, other, slope = (round(float(t), 4) for t in _logistic(F, np.r_[votes, votes], np.r_[post, 1 - post],
                                                                   dependence))
    sens = np.sum(post * sigmoid(cause + slope * x)) / max(np.sum(post), 1e-9)
    spec = np.sum((1 - post) * (1 - sigmoid(other + slope * x))) / max(np.sum(1 - post), 1e-9)
    return {"cause": cause, "other": other, "dependence": slope}, float(sens), float(spec)


def _fit_scores(judgements: list[Judgement], x: np.ndarray, post: np.ndarray,
                dependence: float | None) -> tuple[dict, float, float]:
    """The normal model of log-odds z: the means on causes and others, their spread and the dependence (held
    where given, else the within-class slope of z on x), and the mean sensitivity and specificity of
    z > 0 over the options weighted by `post`."""
    z = np.array([score(j) for j in judgements])
    w1, w0 = post, 1 - post
    spread, delta = 2.0, 0.0
    for _ in range(100):
        if dependence is None:
            x1, x0 = np.sum(w1 * x) / np.sum(w1), np.sum(w0 * x) / np.sum(w0)
            z1, z0 = np.sum(w1 * z) / np.sum(w1), np.sum(w0 * z) / np.sum(w0)
            delta = (np.sum(w1 * (x - x1) * (z - z1)) + np.sum(w0 * (x - x0) * (z - z0))) / max(
                np.sum(w1 * (x - x1) ** 2) + np.sum(w0 * (x - x0) ** 2), 1e-9)
        else:
            delta = dependence * spread / PROBIT
        r = z - delta * x
        cause, other = np.sum(w1 * r) / max(np.sum(w1), 1e-9), np.sum(w0 * r) / max(np.sum(w0), 1e-9)
        new = max(MIN_SPREAD, math.sqrt((np.sum(w1 * (r - cause) ** 2) + np.sum(w0 * (r - other) ** 2)) / len(z)))
        if abs(new - spread) < 1e-9:
            break
        spread = new
    normal = np.vectorize(lambda t: 0.5 * (1 + math.erf(t / math.sqrt(2))))
    sens = np.sum(w1 * normal((cause + delta * x) / spread)) / max(np.sum(w1), 1e-9)
    spec = np.sum(w0 * normal(-(other + delta * x) / spread)) / max(np.sum(w0), 1e-9)
    params = {"cause": round(float(cause), 4), "other": round(float(other), 4), "spread": round(spread, 4),
              "dependence": round(float(PROBIT * delta / spread), 4)}
    return params, float(sens), float(spec)


def followed_log_odds(prior: Mapping[Key, float], keys: Sequence[Key]) -> np.ndarray:
    """The structure log-odds that a reader's votes follow beyond the truth (the x of the dependence), for each
    option of `keys`: the option's own. (Their rank within the question, as a reader compares a question's
    options, was measured as well: BENCHMARKS.md, "The dependence on the rank within the question".)"""
    return np.array([logit(prior[k], 1e-4) for k in keys])


def open_keys(reader: ReaderJudgements, prior: Mapping[Key, float], settled: Mapping[Key, bool]) -> list[Key]:
    """The open options (of `prior`, not `settled`) that the reader judged, sorted."""
    return sorted(k for k in prior if k in reader.judgements and k not in settled)


def fit_with_gold(reader: ReaderJudgements, gold: Mapping[Key, bool], prior: Mapping[Key, float],
                  settled: Mapping[Key, bool], settings: TrustSettings = TrustSettings(),
                  method: str = "gold answers") -> ReaderCalibration:
    """A reader's parameters, dependence included, from the gold labels of the open options it judged, at
    `settings.scale` (the fallback below `settings.min_open` of them)."""
    keys = [k for k in open_keys(reader, prior, settled) if k in gold]
    x = followed_log_odds(prior, keys)
    cal = _fit(reader, keys, x, np.array([float(gold[k]) for k in keys]), None, settings)
    return cal if cal.fallback else replace(cal, method=method)


def estimate_without_gold(readers: Sequence[ReaderJudgements], prior: Mapping[Key, float],
                          settled: Mapping[Key, bool],
                          settings: TrustSettings = TrustSettings()) -> tuple[ReaderCalibration, ...]:
    """Every reader's parameters without gold, by EM over the open options (those of `prior`, the structure
    model's probability that each option is a direct cause, that `settled` does not decide): each option's
    posterior combines the prior with every reader's log-likelihood ratio, and each reader's `cause` and `other`
    are refitted against the posteriors, `settings.dependence` held (None: fitted per reader under the prior of
    the gold fits, BENCHMARKS.md reports it as a variant). Readers in `settings.calibrations` (by name) keep
    their parameters and count as evidence; one judged on fewer than `settings.min_open` open options gets the
    fallback. Then each reader is discounted by its error correlation with the others on the settled options."""
    fixed, dependence = dict(settings.calibrations or {}), settings.dependence
    keys = sorted(k for k in prior if k not in settled)
    index = {k: i for i, k in enumerate(keys)}
    x, followed = np.array([logit(prior[k], 1e-4) for k in keys]), followed_log_odds(prior, keys)
    judged = [open_keys(r, prior, settled) for r in readers]
    rows = [np.array([index[k] for k in ks], dtype=int) for ks in judged]
    given = [[r.judgements[k] for k in ks] for r, ks in zip(readers, judged)]
    raw = [np.array([replace(r.judgements[k], calibrated=None).log_odds() / 100 for k in ks])
           for r, ks in zip(readers, judged)]
    cals = [fixed.get(r.reader) or ReaderCalibration(r.reader, "answers", "", len(ks), logit(TYPICAL[0], 1e-4),
                                                     logit(TYPICAL[1], 1e-4), dependence=DEPENDENCE
                                                     if dependence is None
                                                     else dependence, scale=settings.scale)
            for r, ks in zip(readers, judged)]  # to start, every reader a typical voter
    for _ in range(ITERATIONS):
        evidence = x.copy()
        for cal, idx, js, r0 in zip(cals, rows, given, raw):
            np.add.at(evidence, idx, _evidence(cal, followed[idx], js, r0))
        post = sigmoid(evidence)
        new = [fixed.get(r.reader) or _fit(r, ks, followed[idx], post[idx], dependence, settings)
               for r, ks, idx in zip(readers, judged, rows)]
        moved = max((abs(a.cause - b.cause) + abs(a.other - b.other) for a, b in zip(new, cals)
                     if a.cause is not None and b.cause is not None and a.other is not None and b.other is not None),
                    default=0.0)
        cals = new
        if moved < 1e-4:
            break
    others = len(readers) - 1
    method = "no gold: EM with the structure model" + (f" and {others} other reader{'s' * (others > 1)}" if others
                                                       else "")
    discounts = _discounts(readers, cals, {k: float(v) for k, v in settled.items()})
    return tuple(fixed[r.reader] if r.reader in fixed
                 else _no_worse_than_chance(replace(cal, method=cal.method or method,
                                                                                        discount=d))
                 for r, cal, d in zip(readers, cals, discounts))


def _no_worse_than_chance(cal: ReaderCalibration) -> ReaderCalibration:
    """A reader that the estimate finds no better than chance (a yes no likelier on a cause than on any other
    option) gets weight 0: without gold, no reader is trusted to say the opposite of what it means."""
    if cal.fallback or cal.sensitivity is None or cal.specificity is None:
        return cal
    better = cal.platt()[0] > 0 if cal.kind == "probabilities" else cal.sensitivity + cal.specificity > 1
    return cal if better else replace(cal, method=f"{cal.method}; no better than chance, so no weight", scale=0.0)


def _evidence(cal: ReaderCalibration, x: np.ndarray, judgements: list[Judgement], raw: np.ndarray) -> np.ndarray:
    """What a reader's judgements at structure log-odds `x` add to the options' log-odds in the E-step: their
    log-likelihood ratios, capped; a reader not estimated adds its raw log-odds at its fallback weight."""
    if cal.fallback or cal.cause is None or cal.other is None:
        return raw * cal.scale
    return cal.ratios(x, judgements)


def _discounts(readers, cals, labels: Mapping[Key, float]) -> list[float]:
    """1 / (1 + the sum of each reader's positive error correlations with the others): readers whose errors go
    together share one vote. An error is a judgement's log-likelihood ratio less its mean over the options of
    the same label, on the options whose label is known (`labels`: gold, or without gold the ones the
    construction priors settle), so that agreeing where both are right never counts as a shared error."""
    residuals = []
    for r, cal in zip(readers, cals):
        known = sorted(k for k in r.judgements if k in labels)
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


def fit_all_with_gold(readers: Sequence[ReaderJudgements], gold: Mapping[Key, bool], prior: Mapping[Key, float],
                      settled: Mapping[Key, bool], settings: TrustSettings = TrustSettings(),
                      method: str = "gold answers") -> tuple[ReaderCalibration, ...]:
    """Every reader's parameters from gold (fit_with_gold), each discounted by its error correlation with the
    others."""
    cals = [fit_with_gold(r, gold, prior, settled, settings, method) for r in readers]
    discounts = _discounts(readers, cals, {k: float(v) for k, v in gold.items()})
    return tuple(replace(c, discount=d) for c, d in zip(cals, discounts))
