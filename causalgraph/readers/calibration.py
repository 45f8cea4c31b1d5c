"""How much fusion trusts each reader: its reliability where the answer is open, estimated from gold answers or,
without gold, by EM against the structure model's probabilities and the other readers (two-coin, in the manner
of Dawid and Skene), turned into the log-odds each of its judgements carries.

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
Readers whose errors go together share one vote (their discount). Fusion scales the log-odds by SCALE. Each
constant was measured or chosen in docs/lab/readers.md, "Real readers" (`python -m lab.readers.real_readers`).

On a user's own topics (priors "none") none of this holds: the structure model is weaker and differently
calibrated, and a topic has too few open options. There a reader is read as a channel of whole answers, right
on a share of the questions that is estimated from how likely the structure model and the rules find its
answers (UserTrust, estimate_user_trust, answer_log_odds)."""

from __future__ import annotations

import itertools
import math
import os
from dataclasses import dataclass, replace
from typing import Mapping, Sequence

import numpy as np

from ..data import LABELS, DataError
from ..data.odds import logit
from .base import HARD_LOG_ODDS, Judgement, ReaderJudgements

Key = tuple[str, str]  # (question id, label)

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
# The regimes: "aer", the benchmark's topics under its construction priors (the EM above), and "none", a user's own
# topic under priors "none" (UserTrust below). A calibration records the regime it was made for.
REGIMES = ("aer", "none")


@dataclass(frozen=True)
class UserTrust:
    """The trust in a reader on a user's own topics (the regime "none"), where the structure model is weak (option
    AUC 0.87 on user-dev, held out) and a topic has 25-29 open options, too few for the EM. The reader is taken as
    a channel of whole answers: on each question it gives the right answer with probability rho, and otherwise
    another answer, the nearer the likelier (each with weight exp(-`spread` x the labels in one and not the other):
    a reader that errs drops a label, adds one or swaps one, and seldom answers at random), so that the two
    errors of one wrong answer count once. The structure model's joint over a question's answers (its options
    independent, their probabilities held at `temperature`: logit p / temperature; the options the rules settle
    certain) is the prior; rho is its posterior mean by EM without gold, from a Beta prior of mean `prior` worth
    `prior_questions` questions, then moved `stretch` times as far from the prior mean: the EM finds a wrong answer
    one slip from the right one about as likely, so it draws every reader towards the middle (on a topic alone,
    a reader right on a quarter of the questions to 0.49, a perfect one to 0.76). A label then carries, times
    `scale`, how far the reader's answer moves the posterior that the label is in the right answer. The constants
    are chosen on the 24 user-style tuning topics (user-train and user-dev), each answered by a structure model
    that did not see it, with folds that leave one topic out (BENCHMARKS.md, "A reader on a user's own topic")."""

    scale: float = 1.0
    temperature: float = 0.5
    spread: float = 1.0
    prior: float = 0.6
    prior_questions: float = 2.0
    stretch: float = 1.5


RIGHT_BOUNDS = (0.005, 0.995)  # how often a reader's answer is right, as estimated or fitted: never certain


def given_answers(reader: ReaderJudgements) -> dict[str, frozenset[str]]:
    """The reader's answer to each question it judged: the labels it gives more than one half (a label it did not
    judge is not in it)."""
    given: dict[str, set[str]] = {}
    for (qid, label), j in reader.judgements.items():
        given.setdefault(qid, set()).update([label] if vote(j) > 0.5 else [])
    return {qid: frozenset(labels) for qid, labels in given.items()}


def _bounded_right(share: float) -> float:
    """A share of right answers held within RIGHT_BOUNDS."""
    return min(max(share, RIGHT_BOUNDS[0]), RIGHT_BOUNDS[1])


@dataclass(frozen=True)
class _Question:
    """One judged question as the channel of whole answers sees it: its possible answers, the structure model's
    probability of each, the reader's answer, and P(the reader's answer | each answer right, the reader wrong)."""

    qid: str
    answers: tuple[frozenset[str], ...]
    probs: np.ndarray
    given: frozenset[str]
    wrong: np.ndarray


def _answers(p: Mapping[str, float], none: str | None) -> tuple[tuple[frozenset[str], ...], np.ndarray]:
    """A question's possible answers (each non-empty set of its real options, and None where offered) and their
    probabilities with the options independent (without None, conditioned on a cause among them)."""
    real = sorted(p)
    answers = [frozenset(c) for n in range(1, len(real) + 1) for c in itertools.combinations(real, n)]
    probs = [math.prod(p[o] if o in a else 1 - p[o] for o in real) for a in answers]
    if none is not None:
        answers.append(frozenset([none]))
        probs.append(math.prod(1 - p[o] for o in real))
    total = np.array(probs)
    return tuple(answers), total / total.sum()


def _questions(reader: ReaderJudgements, prior: Mapping[Key, float], settled: Mapping[Key, bool],
               trust: UserTrust) -> tuple[list[_Question], int]:
    """The questions the reader judged whose answer it gave is a possible one, as the channel sees them, and how
    many others it judged (an answer that is not a possible one, empty or None beside a cause, is wrong). A reader
    of probabilities answers with the options it gives more than one half."""
    options: dict[str, dict[str, float]] = {}
    for (qid, label), p in prior.items():
        if (qid, label) in settled:
            p = 1 - 1e-3 if settled[(qid, label)] else 1e-3
        else:
            p = float(_sigmoid(np.array(logit(p, 1e-4) / trust.temperature)))
        options.setdefault(qid, {})[label] = p
    out, impossible = [], 0
    answered = given_answers(reader)
    for qid, held in sorted(options.items()):
        if qid not in answered:
            continue
        none = sorted(set(LABELS) - set(held))  # the label of None, where the question offers it
        answers, probs = _answers(held, none[0] if len(none) == 1 else None)
        given = answered[qid]
        if given not in answers:
            impossible += 1
            continue
        near = np.exp(-trust.spread * np.array([[len(a ^ b) for b in answers] for a in answers], dtype=float))
        np.fill_diagonal(near, 0.0)
        # one normaliser for every right answer, the largest: no answer's errors crowd onto its few neighbours
        # (None's, whose nearest answers lie two labels away), and what is left is an impossible answer
        out.append(_Question(qid, answers, probs, given, near[:, answers.index(given)] / near.sum(axis=1).max()))
    return out, impossible


def estimate_user_trust(reader: ReaderJudgements, prior: Mapping[Key, float], settled: Mapping[Key, bool],
                        trust: UserTrust = UserTrust()) -> ReaderCalibration:
    """The regime "none": how often the reader's answer is right (UserTrust), by EM without gold against the
    structure model and the rules."""
    questions, impossible = _questions(reader, prior, settled, trust)
    judged = len(questions) + impossible
    if not judged:
        return ReaderCalibration(reader.reader, kind_of(reader), "no question judged", 0, scale=0.0, fallback=True,
                                 regime="none")
    right = np.array([q.probs[q.answers.index(q.given)] for q in questions])
    wrong = np.array([float(q.probs @ q.wrong) for q in questions])
    rho = trust.prior
    for _ in range(ITERATIONS):
        posterior = rho * right / (rho * right + (1 - rho) * wrong)
        rho = (posterior.sum() + trust.prior * trust.prior_questions) / (judged + trust.prior_questions)
    rho = _bounded_right(trust.prior + trust.stretch * (rho - trust.prior))
    return ReaderCalibration(reader.reader, kind_of(reader), "no gold: how likely the structure model and the rules "
                             "find its answers", judged, answers_right=round(float(rho), 4), scale=trust.scale,
                             regime="none")


def fit_answers_with_gold(reader: ReaderJudgements, gold: Mapping[str, frozenset[str]], method: str,
                          scale: float = UserTrust.scale) -> ReaderCalibration:
    """The regime "none" from gold: the share of the labelled questions the reader judged whose answer it gave
    exactly (within RIGHT_BOUNDS)."""
    given = {qid: labels for qid, labels in given_answers(reader).items() if qid in gold}
    right = sum(labels == gold[qid] for qid, labels in given.items())
    return ReaderCalibration(reader.reader, kind_of(reader), method, len(given),
                             answers_right=round(_bounded_right(right / max(len(given), 1)), 4), scale=scale,
                             regime="none")


def answer_log_odds(cal: ReaderCalibration, reader: ReaderJudgements, prior: Mapping[Key, float],
                    settled: Mapping[Key, bool], trust: UserTrust = UserTrust()) -> ReaderJudgements:
    """The reader's judgements carrying, per label, the log-odds x 100 by which its answer moves the posterior that
    the label is in the right answer (the channel of whole answers, UserTrust, right with `cal.answers_right`);
    a judgement of a question whose answer is not a possible one carries nothing."""
    assert cal.answers_right is not None  # a calibration of the channel of whole answers
    rho = min(max(cal.answers_right, 1e-3), 1 - 1e-3)
    carried: dict[Key, int] = {}
    for q in _questions(reader, prior, settled, trust)[0]:
        likelihood = (1 - rho) * q.wrong
        likelihood[q.answers.index(q.given)] = rho
        posterior = q.probs * likelihood / float(q.probs @ likelihood)
        for label in set().union(*q.answers):
            inside = np.array([label in a for a in q.answers])
            before, after = (float(np.clip(x[inside].sum(), 1e-6, 1 - 1e-6)) for x in (q.probs, posterior))
            carried[(q.qid, label)] = int(round(max(-MAX_LOG_ODDS, min(MAX_LOG_ODDS, 100 * (
                logit(after, 1e-6) - logit(before, 1e-6))))))
    judgements = {k: replace(j, calibrated=carried.get(k, 0)) for k, j in reader.judgements.items()}
    return ReaderJudgements(reader.reader, judgements, cal.weight, cal)


@dataclass(frozen=True)
class ReaderCalibration:
    """One reader's fusion parameters and where they came from (`method`; `options`: the open options the
    estimate rests on). Answers: a vote's probability is sigmoid(`cause` + `dependence` x) on a cause and
    sigmoid(`other` + `dependence` x) on any other option, x the structure log-odds. Probabilities: their
    log-odds spread by `spread` around `cause` and `other` (plus the dependence's share of x). `sensitivity`
    and `specificity` (of a yes, or of a probability above one half) are the model's means over the open
    options. `fallback`: too few open options to estimate, so the reader's raw log-odds count. The solver
    weighs the log-odds by `weight` percent (`scale` times the correlation `discount`). `regime`: the topics it
    was made for, "aer" (the benchmark's) or "none" (a user's own, priors "none"; UserTrust). `answers_right`: in
    the regime "none", how often the reader's whole answer is right (UserTrust; `options` then counts the
    questions it rests on), which fusion reads question by question (answer_log_odds)."""

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
            raise DataError(path, where, f"spread must be at least {MIN_SPREAD} (the fit's floor), got {record['spread']!r}")
        if not all(0 < record[n] < 1 for n in ("sensitivity", "specificity") if n in record):
            raise DataError(path, where, "sensitivity and specificity must lie strictly between 0 and 1")
        if not (0 <= record.get("scale", SCALE) <= 100 and 0 < record.get("discount", 1.0) <= 1):
            raise DataError(path, where, "scale must lie in [0, 100] and discount in (0, 1]")
        return cls(**{**record, "options": int(options)})


def _sigmoid(z: np.ndarray) -> np.ndarray:
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


def _logistic(F: np.ndarray, votes: np.ndarray, w: np.ndarray, dependence: float | None) -> np.ndarray:
    """The maximum a posteriori (cause, other, dependence) of a logistic model of (soft) `votes` on the features
    `F` (cause indicator, not-cause indicator, structure log-odds), rows weighted by `w`, with PRIOR_OPTIONS
    pseudo-votes of the typical reader on each intercept; the dependence held where given, else fitted under a
    Gaussian prior of precision PRIOR_PRECISION around DEPENDENCE. Newton steps."""
    F = np.r_[F, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]]
    votes, w = np.r_[votes, TYPICAL], np.r_[w, PRIOR_OPTIONS, PRIOR_OPTIONS]
    theta = np.array([logit(TYPICAL[0], 1e-4), logit(TYPICAL[1], 1e-4), DEPENDENCE if dependence is None else dependence])
    free = [0, 1] if dependence is not None else [0, 1, 2]
    precision = np.diag([0.0, 0.0, PRIOR_PRECISION])
    for _ in range(100):
        m = _sigmoid(F @ theta)
        grad = F.T @ (w * (votes - m)) - precision @ (theta - [0.0, 0.0, DEPENDENCE])
        hess = (F * (w * m * (1 - m))[:, None]).T @ F + precision
        step = np.linalg.solve(hess[np.ix_(free, free)], grad[free])
        theta[free] += np.clip(step, -2, 2)
        if np.max(np.abs(step)) < 1e-9:
            break
    return theta


def _fit(reader: ReaderJudgements, keys: list[Key], x: np.ndarray, post: np.ndarray, method: str, scale: float,
         dependence: float | None = None, min_open: int = MIN_OPEN) -> ReaderCalibration:
    """A reader's parameters from the (soft) labels `post` of the open options `keys` it judged, at structure
    log-odds `x`; the dependence is fitted too where it is None (gold labels), else held. Fewer than `min_open`
    options: the fallback."""
    kind = kind_of(reader)
    if len(keys) < max(min_open, 1):
        return ReaderCalibration(reader.reader, kind, f"{len(keys)} open options, fewer than the {max(min_open, 1)} "
                                 "an estimate needs", len(keys), scale=FALLBACK_WEIGHT / 100, fallback=True)
    judgements = [reader.judgements[k] for k in keys]
    fit = _fit_scores if kind == "probabilities" else _fit_votes
    params, sens, spec = fit(judgements, x, post, dependence)
    return ReaderCalibration(reader.reader, kind, method, len(keys), **params, sensitivity=round(sens, 4),
                             specificity=round(spec, 4), scale=scale)


def _fit_votes(judgements: list[Judgement], x: np.ndarray, post: np.ndarray,
               dependence: float | None) -> tuple[dict, float, float]:
    """The logistic model of votes: cause, other and the dependence (held where given), and the mean
    sensitivity and specificity over the options weighted by `post`."""
    votes = np.array([vote(j) for j in judgements])
    ones, zeros = np.ones(len(x)), np.zeros(len(x))
    F = np.r_[np.c_[ones, zeros, x], np.c_[zeros, ones, x]]  # each option once as a cause, once as not
    cause, other, slope = (round(float(t), 4) for t in _logistic(F, np.r_[votes, votes], np.r_[post, 1 - post],
                                                                   dependence))
    sens = np.sum(post * _sigmoid(cause + slope * x)) / max(np.sum(post), 1e-9)
    spec = np.sum((1 - post) * (1 - _sigmoid(other + slope * x))) / max(np.sum(1 - post), 1e-9)
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
                  settled: Mapping[Key, bool], scale: float = SCALE, method: str = "gold answers",
                  min_open: int = MIN_OPEN) -> ReaderCalibration:
    """A reader's parameters, dependence included, from the gold labels of the open options it judged (the
    fallback below `min_open` of them)."""
    keys = [k for k in open_keys(reader, prior, settled) if k in gold]
    x = followed_log_odds(prior, keys)
    return _fit(reader, keys, x, np.array([float(gold[k]) for k in keys]), method, scale, None, min_open)


def estimate_without_gold(readers: Sequence[ReaderJudgements], prior: Mapping[Key, float],
                          settled: Mapping[Key, bool], scale: float = SCALE,
                          fixed: Mapping[str, ReaderCalibration] | None = None, min_open: int = MIN_OPEN,
                          dependence: float | None = DEPENDENCE) -> tuple[ReaderCalibration, ...]:
    """Every reader's parameters without gold, by EM over the open options (those of `prior`, the structure
    model's probability that each option is a direct cause, that `settled` does not decide): each option's
    posterior combines the prior with every reader's log-likelihood ratio, and each reader's `cause` and `other`
    are refitted against the posteriors, the `dependence` held (None: fitted per reader under the prior of the
    gold fits, BENCHMARKS.md reports it as a variant). Readers in `fixed` (by name) keep
    their parameters and count as evidence; one judged on fewer than `min_open` open options gets the fallback.
    Then each reader is discounted by its error correlation with the others on the settled options."""
    fixed = dict(fixed or {})
    keys = sorted(k for k in prior if k not in settled)
    index = {k: i for i, k in enumerate(keys)}
    x, followed = np.array([logit(prior[k], 1e-4) for k in keys]), followed_log_odds(prior, keys)
    judged = [open_keys(r, prior, settled) for r in readers]
    rows = [np.array([index[k] for k in ks], dtype=int) for ks in judged]
    given = [[r.judgements[k] for k in ks] for r, ks in zip(readers, judged)]
    raw = [np.array([replace(r.judgements[k], calibrated=None).log_odds() / 100 for k in ks]) for r, ks in zip(readers, judged)]
    cals = [fixed.get(r.reader) or ReaderCalibration(r.reader, "answers", "", len(ks), logit(TYPICAL[0], 1e-4),
                                                     logit(TYPICAL[1], 1e-4), dependence=DEPENDENCE if dependence is None
                                                     else dependence, scale=scale)
            for r, ks in zip(readers, judged)]  # to start, every reader a typical voter
    for _ in range(ITERATIONS):
        evidence = x.copy()
        for cal, idx, js, r0 in zip(cals, rows, given, raw):
            np.add.at(evidence, idx, _evidence(cal, followed[idx], js, r0))
        post = _sigmoid(evidence)
        new = [fixed.get(r.reader) or _fit(r, ks, followed[idx], post[idx], "", scale, dependence, min_open)
               for r, ks, idx in zip(readers, judged, rows)]
        moved = max((abs(a.cause - b.cause) + abs(a.other - b.other) for a, b in zip(new, cals)
                     if a.cause is not None and b.cause is not None and a.other is not None and b.other is not None),
                    default=0.0)
        cals = new
        if moved < 1e-4:
            break
    others = len(readers) - 1
    method = "no gold: EM with the structure model" + (f" and {others} other reader{'s' * (others > 1)}" if others else "")
    discounts = _discounts(readers, cals, {k: float(v) for k, v in settled.items()})
    return tuple(fixed[r.reader] if r.reader in fixed else _no_worse_than_chance(replace(cal, method=cal.method or method,
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
                      settled: Mapping[Key, bool], scale: float = SCALE,
                      method: str = "gold answers") -> tuple[ReaderCalibration, ...]:
    """Every reader's parameters from gold, each discounted by its error correlation with the others."""
    cals = [fit_with_gold(r, gold, prior, settled, scale, method) for r in readers]
    discounts = _discounts(readers, cals, {k: float(v) for k, v in gold.items()})
    return tuple(replace(c, discount=d) for c, d in zip(cals, discounts))
