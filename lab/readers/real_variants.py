"""The sections of `python -m lab.readers.real_readers` on variants of the gold-free estimate (measured, not
shipped): the estimate's variants, the dependence on the rank within the question, and a reader model conditioned
on a non-empty answer."""

from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import replace

import numpy as np
from sklearn.linear_model import LogisticRegression
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logit

from lab.readers.real_common import gold_dependence, log_odds, on_rank, own_gold, recalibrated_prior, within_question

from causalgraph.measure.calibration import fused_scores, gold_of, per_run, without_gold
from causalgraph.readers.base import ReaderJudgements
from causalgraph.readers.trust import TrustSettings
from causalgraph.readers.trust.calibration import (DEPENDENCE, PRIOR_OPTIONS, PRIOR_PRECISION, SCALE, TYPICAL,
                                                   ReaderCalibration, vote)
from causalgraph.readers.trust.options import estimate_without_gold, fit_with_gold, open_keys
from causalgraph.run.pipeline import option_evidence

VARIANT_SCALES = (1.0, 1.25, 1.5)


def variants(repeats, untrained: dict, nested: dict[str, list[float]], bias: int, folds: int) -> None:
    print("## Variants of the gold-free estimate (measured, not shipped)\n")
    print("Each variant at several scales, against each reader's nested fixed weight (readers not trained on train), "
          "means over the repeats. x-dependent: each judgement carries the model's log-likelihood ratio at its "
          "option's structure log-odds instead of the ratio of the mean sensitivity and specificity; structure "
          "recalibrated: the EM's structure probabilities mapped by a logistic fit of the gold of the training "
          "topics' open options on their log-odds (per outer fold); free dependence: each reader's dependence "
          f"estimated in the EM under the gold fits' prior (mean {DEPENDENCE}, precision {PRIOR_PRECISION:g}).\n")
    calibrated = gold_dependence(repeats, untrained, recalibrated_prior)  # on the recalibrated log-odds
    print(f"Structure recalibrated, dependence on its log-odds: the same, the dependence held at {calibrated:.2f}, "
          "the gold fits' mean on the recalibrated log-odds (pooled over these readers and the repeats: the "
          "dependence on calibrated log-odds, as the test split's are). Structure recalibrated, free dependence: "
          "both at once (each reader's dependence estimated on the recalibrated log-odds). Gold of the answered "
          "topics: each reader "
          "fitted on the gold of all the open options it is then scored on (a diagnostic, not a setting: the best "
          "a reliability estimate can do).\n")
    rows = [("the default (shipped)", without_gold, (SCALE,)), ("x-dependent", x_dependent, VARIANT_SCALES),
            ("structure recalibrated", recalibrated, VARIANT_SCALES),
            ("structure recalibrated, dependence on its log-odds",
             lambda readers, runs, scale: recalibrated(readers, runs, scale, calibrated), VARIANT_SCALES),
            ("free dependence", free_dependence, VARIANT_SCALES),
            ("structure recalibrated, free dependence",
             lambda readers, runs, scale: recalibrated(readers, runs, scale, None), VARIANT_SCALES),
            ("gold of the answered topics (diagnostic)", own_gold, VARIANT_SCALES)]
    variant_table(rows, repeats, untrained, nested, bias, folds)


def rank(repeats, untrained: dict, trained: dict, nested: dict[str, list[float]], bias: int, folds: int) -> None:
    print("## The dependence on the rank within the question (measured, not shipped)\n")
    with on_rank():
        dependence = gold_dependence(repeats, untrained)
    print("A reader is shown a question's options together, so it may follow how the structure model ranks them "
          "rather than their log-odds: the default's EM with each reader's votes following each option's structure "
          "log-odds less their mean over its question's options, the dependence held at "
          f"{dependence:.2f} (the gold fits' mean over the readers not trained on train and the repeats), against "
          "each reader's nested fixed weight, means over the repeats.\n")
    (pieces, edges), = repeats[0]
    prior, settled = option_evidence(pieces, edges)
    labels = gold_of(repeats[0])
    keys = [k for k in prior if k not in settled and k in labels]
    fit = LogisticRegression(C=1e4).fit(np.c_[log_odds(np.array([prior[k] for k in keys])),
                                              within_question(prior, keys)],
                                        [labels[k] for k in keys])
    print(f"Gold against the structure log-odds and the rank within the question together (a logistic fit over the "
          f"{len(keys)} open options, first repeat): {fit.coef_[0][0]:.2f} x log-odds {fit.coef_[0][1]:+.2f} x rank "
          f"{fit.intercept_[0]:+.2f}: an option's chance of being a cause follows its rank beyond its probability.\n")
    rows = [("the default (shipped)", without_gold, (SCALE,)),
            ("the dependence on the rank within the question", ranked(dependence), VARIANT_SCALES)]
    for title, group in (("Readers not trained on train", untrained),
                         ("Readers trained on train (recall dev)", trained)):
        if group:
            print(f"### {title}\n")
            variant_table(rows, repeats, group, nested, bias, folds)


def variant_table(rows, repeats, untrained: dict, nested: dict[str, list[float]], bias: int, folds: int) -> None:
    """Each (name, setting maker, scales) of `rows` against each reader's nested fixed weight, means over the
    repeats."""
    print("| variant | scale | at or above | mean fused | mean difference | lowest difference | below |")
    print("|---|---|---|---|---|---|---|")
    for name, make, scales in rows:
        for scale in scales:
            means = [np.mean([fused_scores(runs, make([reader], runs, scale), bias, folds)[0].mean()
                              for runs in repeats])
                     for reader in untrained.values()]
            diffs = [m - np.mean(nested[stem]) for m, stem in zip(means, untrained)]
            print(f"| {name} | {scale:g} | {sum(d >= -1e-9 for d in diffs)} of {len(diffs)} | {np.mean(means):.4f} | "
                  f"{np.mean(diffs):+.4f} | {min(diffs):+.4f} | "
                  f"{', '.join(s for s, d in zip(untrained, diffs) if d < -1e-9) or 'none'} |", flush=True)
    print()


def x_dependent(readers, runs, scale: float):
    """The default's estimate, each judgement carrying the model's log-likelihood ratio at its option's structure
    log-odds (options without a structure probability at log-odds 0)."""
    def weighed(analyses, edges, known):
        prior, settled = known or option_evidence(analyses, edges)
        cals = estimate_without_gold(readers, prior, settled, TrustSettings(scale=scale))
        return tuple(_at_structure(c, r, prior) for c, r in zip(cals, readers))
    return per_run(runs, weighed)


def _at_structure(cal, reader, prior):
    if cal.fallback or cal.weight == 0:
        return cal.apply(reader)
    judgements = {k: replace(j,
                             calibrated=int(round(100 * cal.ratios(np.array([log_odds(prior.get(k, 0.5))]), [j])[0])))
                  for k, j in reader.judgements.items()}
    return ReaderJudgements(reader.reader, judgements, cal.weight, cal)


def free_dependence(readers, runs, scale: float):
    """The default's EM with each reader's dependence estimated too."""
    def weighed(analyses, edges, known):
        cals = estimate_without_gold(readers, *(known or option_evidence(analyses, edges)),
                                     TrustSettings(scale=scale, dependence=None))
        return tuple(c.apply(r) for c, r in zip(cals, readers))
    return per_run(runs, weighed)


def recalibrated(readers, runs, scale: float, dependence: float | None = DEPENDENCE):
    """The default's EM on structure probabilities recalibrated, per outer fold, by a logistic fit of the gold of
    the training topics' open options on their structure log-odds (the readers' dependence held at
    `dependence`; None: estimated per reader)."""
    evidence = [option_evidence(analyses, edges) for analyses, edges in runs]
    done: dict = {}

    def setting(analyses, edges, training):
        key = frozenset(training)
        if key not in done:
            mapped = recalibrated_prior({k: p for ev in evidence for k, p in ev[0].items()},
                                        {k: v for ev in evidence for k, v in ev[1].items()}, gold_of(runs, training))
            done[key] = {}
            for (run, _), (prior, settled) in zip(runs, evidence):
                cals = estimate_without_gold(readers, {k: mapped[k] for k in prior}, settled,
                                             TrustSettings(scale=scale, dependence=dependence))
                out = tuple(c.apply(r) for c, r in zip(cals, readers))
                done[key].update({id(a): out for a in run})
        return done[key][id(analyses[0])] if analyses else ()
    return setting


def ranked(dependence: float):
    """The default's EM with the dependence on the rank within the question, held at `dependence`."""
    def make(readers, runs, scale: float):
        def weighed(analyses, edges, known):
            with on_rank():
                cals = estimate_without_gold(readers, *(known or option_evidence(analyses, edges)),
                                             TrustSettings(scale=scale, dependence=dependence))
            return tuple(c.apply(r) for c, r in zip(cals, readers))
        return per_run(runs, weighed)
    return make


def answer_sets(repeats, untrained: dict, nested: dict[str, list[float]], bias: int, folds: int) -> None:
    print("## A reader answers every question (measured, not shipped)\n")
    print("The EM's reader model takes a reader's votes on a question's options as independent given the labels. On "
          "the dev-only topics' questions whose real options are all open and judged (first repeat): the share the "
          "reader answers with no option, against the share that model predicts (labels drawn from the structure "
          "probabilities, at least one of them a cause), fitted without gold (the default) and with gold. Then a "
          "reader model conditioned on a non-empty answer (the same votes, then at least one yes in such a "
          f"question, those it answered with no option taken one option at a time; dependence held at {DEPENDENCE}), "
          "fitted by the exact likelihood over each question's label sets, without gold (the structure probabilities "
          "as the labels' prior) and with gold: the sensitivity and specificity of its votes before the condition, "
          "averaged over the gold causes and other options alike for both fits.\n")
    (pieces, edges), = repeats[0]
    prior, settled = option_evidence(pieces, edges)
    labels = gold_of(repeats[0])
    print("| reader | questions | answered with no option | predicted, no gold | predicted, gold | conditioned, no "
          "gold: sens / spec | conditioned, gold: sens / spec |")
    print("|---|---|---|---|---|---|---|")
    for stem, reader in untrained.items():
        sets = AnswerSets(prior, settled, reader)
        free, gold = estimate_without_gold([reader], prior, settled)[0], fit_with_gold(reader, labels, prior, settled,
                                                                                       TrustSettings(min_open=0))
        weights = np.array([float(labels[k]) for k in sets.keys])
        fits = [sets.rates(sets.fit(given), weights) for given in (None, labels)]
        print(f"| {stem} | {len(sets.no_answer)} | {sets.no_answer.mean():.3f} | {sets.predicted_no_answer(free):.3f} "
              f"| {sets.predicted_no_answer(gold):.3f} | " + " | ".join(f"{a:.2f} / {b:.2f}" for a, b in fits) + " |",
              flush=True)
    print("\nThe conditioned fit without gold, fused as the default fuses its estimate (a yes carries log(sens / (1 - "
          "spec)), a no log((1 - sens) / spec), the rates averaged over the open options weighted by the structure "
          "probabilities), against each reader's nested fixed weight:\n")
    variant_table([("conditioned on a non-empty answer", conditioned, VARIANT_SCALES)], repeats, untrained, nested,
                  bias, folds)


class AnswerSets:
    """A reader's votes on the open options it judged: by question where all of a question's real options are open
    and judged and it voted yes to one at least (a reader answers every question), one by one elsewhere. The
    questions whose real options are all open and judged are also kept whole for how often the reader answered
    them with no option (`no_answer`, `predicted_no_answer`)."""

    def __init__(self, prior, settled, reader):
        by_question: dict[str, list] = {}
        for key in open_keys(reader, prior, settled):
            by_question.setdefault(key[0], []).append(key)
        offered, touched = Counter(q for q, _ in prior), {q for q, _ in settled}
        whole = [ks for q, ks in by_question.items() if q not in touched and len(ks) == offered[q]]
        votes = {k: vote(reader.judgements[k]) > 0.5 for ks in by_question.values() for k in ks}
        self.no_answer = np.array([not any(votes[k] for k in ks) for ks in whole])
        self.whole_x = [x for _, x, _ in _by_size(whole, prior, votes)]
        answered = [ks for ks in whole if any(votes[k] for k in ks)]
        kept = {ks[0][0] for ks in answered}
        self.single = [k for q, ks in by_question.items() if q not in kept for k in ks]
        self.groups = _by_size(answered, prior, votes)
        self.keys = [k for ks, _, _ in self.groups for k in ks] + self.single
        self.x = np.array([log_odds(prior[k]) for k in self.single])
        self.v = np.array([votes[k] for k in self.single], bool)
        self.all_x = np.concatenate([x.ravel() for _, x, _ in self.groups] + [self.x])  # in `keys` order

    def predicted_no_answer(self, cal) -> float:
        """The share of the whole questions answered with no option under `cal`'s per-option model, the labels
        drawn from the structure probabilities and at least one a cause."""
        shares = []
        for x in self.whole_x:
            p = expit(x)
            no1, no0 = expit(-(cal.cause + cal.dependence * x)), expit(-(cal.other + cal.dependence * x))
            none = (1 - p).prod(1)
            shares.append(((p * no1 + (1 - p) * no0).prod(1) - ((1 - p) * no0).prod(1)) / (1 - none))
        return float(np.concatenate(shares).mean())

    def log_likelihood(self, theta, labels=None) -> float:
        """log P(votes) (with `labels`: log P(votes | labels)) under the conditioned model of (cause, other)."""
        cause, other = theta
        total = PRIOR_OPTIONS * (TYPICAL[0] * log_expit(cause) + (1 - TYPICAL[0]) * log_expit(-cause)
                                 + TYPICAL[1] * log_expit(other) + (1 - TYPICAL[1]) * log_expit(-other))
        for keys, x, v in self.groups:
            m = x.shape[1]
            S = np.array(list(itertools.product([False, True], repeat=m)))[None]  # every label set
            a, b = cause + DEPENDENCE * x[:, None], other + DEPENDENCE * x[:, None]
            vote_ll = np.where(S, np.where(v[:, None], log_expit(a), log_expit(-a)),
                               np.where(v[:, None], log_expit(b), log_expit(-b))).sum(2)
            no_yes = np.where(S, log_expit(-a), log_expit(-b)).sum(2)
            vote_ll -= np.log(-np.expm1(np.minimum(no_yes, -1e-12)))  # conditioned on at least one yes
            if labels is not None:
                y = np.array([labels[k] for k in keys]).reshape(x.shape)
                total += vote_ll[(S == y[:, None]).all(2)].sum()
                continue
            log_prior = np.where(S, log_expit(x[:, None]), log_expit(-x[:, None])).sum(2)
            log_prior[:, 0] = -np.inf  # a question has a cause
            total += (np.logaddexp.reduce(log_prior + vote_ll, 1) - np.logaddexp.reduce(log_prior, 1)).sum()
        a, b = cause + DEPENDENCE * self.x, other + DEPENDENCE * self.x
        one, zero = np.where(self.v, log_expit(a), log_expit(-a)), np.where(self.v, log_expit(b), log_expit(-b))
        if labels is not None:
            y = np.array([labels[k] for k in self.single], bool)
            return float(total + np.where(y, one, zero).sum())
        return float(total + np.logaddexp(log_expit(self.x) + one, log_expit(-self.x) + zero).sum())

    def fit(self, labels=None) -> tuple[float, float]:
        """The (cause, other) of the highest likelihood (with the typical reader's pseudo-votes)."""
        start = logit(TYPICAL)
        return tuple(minimize(lambda t: -self.log_likelihood(t, labels), start, method="Nelder-Mead").x)

    def rates(self, theta, weights: np.ndarray) -> tuple[float, float]:
        """Sensitivity and specificity of the votes before the condition, averaged over the options (in `keys`
        order) with weight `weights` on being a cause."""
        yes1, yes0 = expit(theta[0] + DEPENDENCE * self.all_x), expit(theta[1] + DEPENDENCE * self.all_x)
        return (float((weights * yes1).sum() / weights.sum()),
                float(((1 - weights) * (1 - yes0)).sum() / (1 - weights).sum()))


def _by_size(questions, prior, votes) -> list[tuple[list, np.ndarray, np.ndarray]]:
    """Questions (each a list of option keys) grouped by their number of options: the keys, and the structure
    log-odds and votes with a question a row."""
    groups = []
    for m in sorted({len(ks) for ks in questions}):
        rows = [ks for ks in questions if len(ks) == m]
        groups.append(([k for ks in rows for k in ks], np.array([[log_odds(prior[k]) for k in ks] for ks in rows]),
                       np.array([[votes[k] for k in ks] for ks in rows])))
    return groups


def conditioned(readers, runs, scale: float):
    """The reader model conditioned on a non-empty answer, fitted without gold, its rates (weighted by the
    structure probabilities) fused as the default's are."""
    def weighed(analyses, edges, known):
        prior, settled = known or option_evidence(analyses, edges)
        out = []
        for reader in readers:
            sets = AnswerSets(prior, settled, reader)
            cause, other = sets.fit()
            sens, spec = sets.rates((cause, other), expit(sets.all_x))
            out.append(ReaderCalibration(reader.reader, "answers", "conditioned on a non-empty answer", len(sets.keys),
                                         cause, other, sensitivity=sens, specificity=spec, scale=scale).apply(reader))
        return tuple(out)
    return per_run(runs, weighed)
