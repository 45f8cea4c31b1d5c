"""What the sections of `python -m lab.readers.real_readers` share: the fixed weights, the structure log-odds, the
rank within the question, and the gold fits and recalibrated structure that the reliability and the variants use."""

from __future__ import annotations

from unittest import mock

import numpy as np
from sklearn.linear_model import LogisticRegression

from causalgraph.measure.calibration import gold_of, per_run
import causalgraph.readers.trust.options as trust_options
from causalgraph.readers.trust.options import fit_with_gold
from causalgraph.readers.trust import TrustSettings
from causalgraph.run.pipeline import option_evidence
WEIGHTS = (0, 25, 50, 75, 100, 150, 200, 400, 800)


def log_odds(p):
    """The log-odds of probabilities `p`."""
    return np.log(p / (1 - p))


def within_question(prior, keys) -> np.ndarray:
    """Each option's structure log-odds less their mean over its question's options in `prior`: its rank within
    the question."""
    by_question: dict[str, list[float]] = {}
    for (qid, _), p in prior.items():
        by_question.setdefault(qid, []).append(log_odds(p))
    return np.array([log_odds(prior[k]) - np.mean(by_question[k[0]]) for k in keys])


def on_rank():
    """Readers' votes taken to follow the structure model's rank within the question rather than the log-odds
    themselves (a reader compares a question's options): the EM and the gold fits, while it is on."""
    return mock.patch.object(trust_options, "followed_log_odds", within_question)


def gold_dependence(repeats, readers: dict, mapped=None) -> float:
    """The dependence fitted with gold, the mean over `readers` and the repeats; on the structure probabilities
    that `mapped(prior, settled, gold)` gives, where given."""
    fits = []
    for runs in repeats:
        prior, settled = option_evidence(*runs[0])
        labels = gold_of(runs)
        if mapped is not None:
            prior = mapped(prior, settled, labels)
        fits += [fit_with_gold(r, labels, prior, settled, TrustSettings(min_open=0)).dependence
                 for r in readers.values()]
    return float(np.mean(fits))


def own_gold(readers, runs, scale: float):
    """Each reader fitted on the gold of the open options of all the answered topics, those it is scored on
    included."""
    def weighed(analyses, edges, known):
        prior, settled = known or option_evidence(analyses, edges)
        return tuple(fit_with_gold(r, gold_of([(analyses, edges)]), prior, settled,
                                   TrustSettings(scale=scale, min_open=0)).apply(r)
                     for r in readers)
    return per_run(runs, weighed)


def recalibrated_prior(prior, settled, gold):
    """The structure probabilities mapped by a logistic fit of `gold` on their log-odds over the open options that
    have gold."""
    keys = [k for k in prior if k not in settled and k in gold]
    fit = LogisticRegression(C=1e4).fit(log_odds(np.array([[prior[k]] for k in keys])), [gold[k] for k in keys])
    return dict(zip(prior, fit.predict_proba(log_odds(np.array([[p] for p in prior.values()])))[:, 1]))
