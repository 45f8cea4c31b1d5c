"""The trust in a reader on a user's own topics (priors "none"; the regime "none"), where the benchmark's model
(options.py) does not hold: the structure model is weaker and differently calibrated, and a topic has too few
open options. There a reader is read as a channel of whole answers, right on a share of the questions
(`answers_right`) that is estimated from how likely the structure model and the rules find its answers
(AnswerChannel, estimate_answers_without_gold, answer_log_odds), or fitted on gold (fit_answers_with_gold)."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, replace
from typing import Mapping

import numpy as np

from ...data import LABELS
from ...data.odds import logit
from ..base import ReaderJudgements
from .calibration import ITERATIONS, MAX_LOG_ODDS, Key, ReaderCalibration, kind_of, sigmoid, vote


@dataclass(frozen=True)
class AnswerChannel:
    """The model of a reader on a user's own topics (the regime "none") and its constants: there the structure model
    is weak (option AUC 0.87 on user-dev, held out) and a topic has 25-29 open options, too few for the EM of
    options.py. The reader is taken as a channel of whole answers: on each question it gives the right answer with
    probability `answers_right`, and otherwise
    another answer, the nearer the likelier (each with weight exp(-`spread` x the labels in one and not the other):
    a reader that errs drops a label, adds one or swaps one, and seldom answers at random), so that the two
    errors of one wrong answer count once. The structure model's joint over a question's answers (its options
    independent, their probabilities held at `temperature`: logit p / temperature; the options the rules settle
    certain) is the prior; `answers_right` is its posterior mean by EM without gold, from a Beta prior of mean `prior`
    worth `prior_questions` questions, then moved `stretch` times as far from the prior mean: the EM finds a wrong
    answer one slip from the right one about as likely, so it draws every reader towards the middle (on a topic alone,
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
               channel: AnswerChannel) -> tuple[list[_Question], int]:
    """The questions the reader judged whose answer it gave is a possible one, as the channel sees them, and how
    many others it judged (an answer that is not a possible one, empty or None beside a cause, is wrong). A reader
    of probabilities answers with the options it gives more than one half."""
    options: dict[str, dict[str, float]] = {}
    for (qid, label), p in prior.items():
        if (qid, label) in settled:
            p = 1 - 1e-3 if settled[(qid, label)] else 1e-3
        else:
            p = float(sigmoid(np.array(logit(p, 1e-4) / channel.temperature)))
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
        near = np.exp(-channel.spread * np.array([[len(a ^ b) for b in answers] for a in answers], dtype=float))
        np.fill_diagonal(near, 0.0)
        # one normaliser for every right answer, the largest: no answer's errors crowd onto its few neighbours
        # (None's, whose nearest answers lie two labels away), and what is left is an impossible answer
        out.append(_Question(qid, answers, probs, given, near[:, answers.index(given)] / near.sum(axis=1).max()))
    return out, impossible


def estimate_answers_without_gold(reader: ReaderJudgements, prior: Mapping[Key, float], settled: Mapping[Key, bool],
                                  channel: AnswerChannel = AnswerChannel()) -> ReaderCalibration:
    """The regime "none": how often the reader's answer is right (AnswerChannel), by EM without gold against the
    structure model and the rules."""
    questions, impossible = _questions(reader, prior, settled, channel)
    judged = len(questions) + impossible
    if not judged:
        return ReaderCalibration(reader.reader, kind_of(reader), "no question judged", 0, scale=0.0, fallback=True,
                                 regime="none")
    given = np.array([q.probs[q.answers.index(q.given)] for q in questions])  # its answer right
    wrong = np.array([float(q.probs @ q.wrong) for q in questions])  # its answer one of the wrong ones
    right = channel.prior
    for _ in range(ITERATIONS):
        posterior = right * given / (right * given + (1 - right) * wrong)
        right = (posterior.sum() + channel.prior * channel.prior_questions) / (judged + channel.prior_questions)
    right = _bounded_right(channel.prior + channel.stretch * (right - channel.prior))
    return ReaderCalibration(reader.reader, kind_of(reader), "no gold: how likely the structure model and the rules "
                             "find its answers", judged, answers_right=round(float(right), 4), scale=channel.scale,
                             regime="none")


def fit_answers_with_gold(reader: ReaderJudgements, gold: Mapping[str, frozenset[str]], method: str,
                          scale: float = AnswerChannel.scale) -> ReaderCalibration:
    """The regime "none" from gold: the share of the labelled questions the reader judged whose answer it gave
    exactly (within RIGHT_BOUNDS)."""
    given = {qid: labels for qid, labels in given_answers(reader).items() if qid in gold}
    right = sum(labels == gold[qid] for qid, labels in given.items())
    return ReaderCalibration(reader.reader, kind_of(reader), method, len(given),
                             answers_right=round(_bounded_right(right / max(len(given), 1)), 4), scale=scale,
                             regime="none")


def answer_log_odds(cal: ReaderCalibration, reader: ReaderJudgements, prior: Mapping[Key, float],
                    settled: Mapping[Key, bool], channel: AnswerChannel = AnswerChannel()) -> ReaderJudgements:
    """The reader's judgements carrying, per label, the log-odds x 100 by which its answer moves the posterior that
    the label is in the right answer (the channel of whole answers, AnswerChannel, right with `cal.answers_right`);
    a judgement of a question whose answer is not a possible one carries nothing."""
    assert cal.answers_right is not None  # a calibration of the channel of whole answers
    right = min(max(cal.answers_right, 1e-3), 1 - 1e-3)
    carried: dict[Key, int] = {}
    for q in _questions(reader, prior, settled, channel)[0]:
        likelihood = (1 - right) * q.wrong
        likelihood[q.answers.index(q.given)] = right
        posterior = q.probs * likelihood / float(q.probs @ likelihood)
        for label in set().union(*q.answers):
            inside = np.array([label in a for a in q.answers])
            before, after = (float(np.clip(x[inside].sum(), 1e-6, 1 - 1e-6)) for x in (q.probs, posterior))
            carried[(q.qid, label)] = int(round(max(-MAX_LOG_ODDS, min(MAX_LOG_ODDS, 100 * (
                logit(after, 1e-6) - logit(before, 1e-6))))))
    judgements = {k: replace(j, calibrated=carried.get(k, 0)) for k, j in reader.judgements.items()}
    return ReaderJudgements(reader.reader, judgements, cal.weight, cal)

