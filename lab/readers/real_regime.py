"""The sections of `python -m lab.readers.real_readers` on the regime: the structure model's calibration on the
dev-only topics, each reader's reliability on the open options, and the topics cut to the test split's shapes."""

from __future__ import annotations

import sys

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from lab.readers.real_common import WEIGHTS, gold_dependence, log_odds, on_rank, recalibrated_prior

from causalgraph.config import DEFAULT_MODEL
from causalgraph.measure.calibration import (SCALES, answered_sets, fused_scores, gold_of, nested_weight, open_rates,
                                             scale_choice, structure_edges, structure_only, with_gold, without_gold)
from causalgraph.measure.inputs import describe_shapes
from causalgraph.learn.bands import blend_copies
from causalgraph.learn.crossval import TopicShape
from causalgraph.learn.scorer import edge_scores, load_scorer
from causalgraph.readers.trust.calibration import DEPENDENCE, SCALE
from causalgraph.readers.trust.options import estimate_without_gold, fit_with_gold
from causalgraph.readers.trust import TrustSettings
from causalgraph.run.pipeline import option_evidence
from causalgraph.reason.settled import settled_options


def regime(analyses, pieces, repeats, test_shapes, test, dev: set[str], bias: int, folds: int) -> None:
    prior, settled = option_evidence(*repeats[0][0])
    gold = gold_of(repeats[0])
    keys = [k for k in prior if k not in settled and k in gold]
    y = np.array([gold[k] for k in keys])
    fits, aucs, means, by_rules = [], [], [], []
    for runs in repeats:
        structure = option_evidence(*runs[0])[0]
        p = np.array([structure[k] for k in keys])
        x = np.log(p / (1 - p))
        fits.append(log_odds_fit(x, y)[:2])
        aucs.append(roc_auc_score(y, x))
        means.append(p.mean())
        by_rules.append(settled_calibration([(structure, settled)])[:2])
    structure = np.mean([fused_scores(runs, structure_only, bias, folds)[0].mean() for runs in repeats])
    slope, intercept = np.mean(fits, axis=0)
    print(f"## The regime: {len(pieces)} dev-only topics, {describe_shapes([TopicShape.of(p.topic) for p in pieces])} "
          f"(the test split: {describe_shapes(test_shapes)})\n")
    test_options = sum(len(s.options) for a in test for s in a.graph.graph["questions"].values())
    test_settled = sum(len(settled_options(a.graph, a.after, a.timeline)) for a in test)
    print(f"- {len(prior)} real options: {len(settled)} settled by the rules ({sum(settled.values())} of them as "
          f"causes), {len(keys)} open ({y.mean():.1%} of these causes); the test split: {test_options} real "
          f"options, {test_options - test_settled} open")
    print(f"- the structure model on the open options: AUC {np.mean(aucs):.3f}; mean probability {np.mean(means):.3f}; "
          f"gold against its log-odds: slope {slope:.2f}, intercept {intercept:+.2f} (1 and 0 where calibrated)")
    shipped, _ = load_scorer(DEFAULT_MODEL)
    on_test = settled_calibration([option_evidence(test, [edge_scores(a.table, shipped) for a in test])])
    print("- the structure model on the settled options against the rules' labels (no gold; a candidate stand-in for "
          "the open options' calibration): slope {:.2f}, intercept {:+.2f} on the dev-only topics' {}; the shipped "
          "scorer on the test split's {}: slope {:.2f}, intercept {:+.2f}".format(
              *np.mean(by_rules, axis=0), len(settled), on_test[2], *on_test[:2]))
    own = [structure_edges(pieces, pieces, folds, seed=seed) for seed in range(len(repeats))]
    own_fits = np.mean([open_calibration([(pieces, e)], evidence=[(option_evidence(pieces, e)[0], settled)])[:2]
                        for e in own], axis=0)
    own_score = np.mean([fused_scores([(pieces, e)], structure_only, bias, folds)[0].mean() for e in own])
    print("- the structure model trained on the dev questions alone (grouped CV over the dev-only topics, the same "
          "seeds): slope {:.2f}, intercept {:+.2f} on the same open options; structure alone {:.4f}".format(
              *own_fits, own_score))
    held = [c for cs in blend_copies(analyses, test_shapes)[2] for c in cs]
    # one copy at a time: copies of a topic share questions
    runs = [([p], [e]) for p, e in zip(held, structure_edges(analyses, held, folds, test_shapes))]
    evidence = [option_evidence(*run) for run in runs]  # read once for the three fits
    slope, intercept, n = open_calibration(runs, evidence=evidence)
    by_rules_slope, by_rules_intercept, n_settled = settled_calibration(evidence)
    print(f"- the structure model trained for the test split's shapes, on the open options of the labelled topics' "
          f"held-out copies cut to those shapes (`train`'s test-shaped regime, {n} open options): slope "
          f"{slope:.2f}, intercept {intercept:+.2f}; on their {n_settled} settled options against the rules' "
          f"labels: slope {by_rules_slope:.2f}, intercept {by_rules_intercept:+.2f}")
    others = {q.qid for p in held for q in p.topic.questions} - dev
    print("- the same copies' open options by the split of their questions: " + "; ".join(
        "{} ({} options): slope {:.2f}, intercept {:+.2f}".format(name, fit[2], *fit[:2])
        for name, fit in (("dev", open_calibration(runs, dev, evidence)),
                          ("train and sample", open_calibration(runs, others, evidence)))))
    print(f"- structure alone: {structure:.4f}\n", flush=True)


def settled_calibration(evidence) -> tuple[float, float, int]:
    """The rules' labels against the structure log-odds on the settled options of `evidence` (each run's
    `option_evidence`): the slope and intercept of a logistic fit, and how many options it rests on."""
    return log_odds_fit([log_odds(prior[k]) for prior, settled in evidence for k in sorted(settled)],
                        [settled[k] for _, settled in evidence for k in sorted(settled)])


def open_calibration(runs, judged: set[str] | None = None, evidence=None) -> tuple[float, float, int]:
    """Gold against the structure log-odds on the runs' open options (of the questions in `judged`, where given):
    the slope and intercept of a logistic fit, and how many options it rests on. `evidence`: each run's
    `option_evidence`, where it is at hand."""
    x, y = [], []
    for run, (prior, settled) in zip(runs, evidence or [option_evidence(*run) for run in runs]):
        labels = gold_of([run])
        keys = [k for k in prior if k not in settled and k in labels and (judged is None or k[0] in judged)]
        x += [log_odds(prior[k]) for k in keys]
        y += [labels[k] for k in keys]
    return log_odds_fit(x, y)


def log_odds_fit(x, y) -> tuple[float, float, int]:
    """Labels `y` against structure log-odds `x`: the slope and intercept of a logistic fit (1 and 0 where the
    structure model is calibrated), and how many options it rests on."""
    fit = LogisticRegression(C=1e4).fit(np.asarray(x, dtype=float)[:, None], y)
    return float(fit.coef_[0, 0]), float(fit.intercept_[0]), len(y)


def reliability(repeats, untrained: dict, trained: dict) -> None:
    print("## Reliability on the open options\n")
    with on_rank():
        rank = gold_dependence(repeats, untrained)
    print("Gold: the reader's sensitivity and specificity on the open options (a probability above one half is a "
          "yes) and the dependence fitted with them; no gold: the default EM, the dependence held at "
          f"{DEPENDENCE}, the same EM with the dependence at 0 (readers erring apart from the structure model), "
          "the default EM on structure probabilities recalibrated against these options' gold (a diagnostic, not a "
          "setting: a logistic map of their log-odds), and the EM with the dependence on the rank within the "
          "question (each option's structure log-odds less their mean over its question's options; measured, not "
          f"shipped), fitted with gold and estimated without it, held at {rank:.2f}, the gold fits' mean over the "
          "readers not trained on train and the repeats.\n")
    print("| reader | open options | gold sens / spec | gold dependence | no gold sens / spec | no gold, independent "
          "sens / spec | no gold, structure recalibrated (diagnostic) sens / spec | gold dependence on the rank | "
          "no gold, dependence on the rank sens / spec |")
    print("|---|---|---|---|---|---|---|---|---|")
    dependences = []
    for group in (untrained, trained):
        for stem, reader in group.items():
            n, sens, spec = open_rates(repeats[0], reader)
            rows = []
            for runs in repeats:
                prior, settled = option_evidence(*runs[0])
                labels = gold_of(runs)
                gold = fit_with_gold(reader, labels, prior, settled, TrustSettings(min_open=0))
                (free,) = estimate_without_gold([reader], prior, settled)
                (independent,) = estimate_without_gold([reader], prior, settled, TrustSettings(dependence=0.0))
                (mapped,) = estimate_without_gold([reader], recalibrated_prior(prior, settled, labels), settled)
                with on_rank():
                    ranked_gold = fit_with_gold(reader, labels, prior, settled, TrustSettings(min_open=0))
                    (ranked,) = estimate_without_gold([reader], prior, settled, TrustSettings(dependence=rank))
                rows.append([gold.dependence, free.sensitivity, free.specificity, independent.sensitivity,
                             independent.specificity, mapped.sensitivity, mapped.specificity,
                             ranked_gold.dependence, ranked.sensitivity, ranked.specificity])
            g, fs, fp, s0, p0, ms, mp, rg, rs, rp = np.mean(rows, axis=0)
            if group is untrained:
                dependences.append(g)
            print(f"| {stem} | {n} | {sens:.2f} / {spec:.2f} | {g:+.2f} | {fs:.2f} / {fp:.2f} | {s0:.2f} / {p0:.2f} | "
                  f"{ms:.2f} / {mp:.2f} | {rg:+.2f} | {rs:.2f} / {rp:.2f} |", flush=True)
    print(f"\nDependence fitted with gold, mean over the readers not trained on train: {np.mean(dependences):.2f} "
          f"(shipped: DEPENDENCE = {DEPENDENCE})\n")


def test_shaped(analyses, test_shapes, judged: set[str], untrained: dict, bias, folds: int, repeats: int) -> None:
    print("## Topics cut to the test split's shapes\n")
    print("The held-out copies of `train`'s test-shaped regime (each labelled topic cut to the test split's shapes, "
          "three copies of each; the i-th copies of all the topics answered together, as a split), the structure "
          "model trained for those shapes, as the shipped one is; only the dev questions have the reader's "
          "judgement and only they are scored. The gold-free default at each scale (shipped: "
          f"{SCALE:g}) against the nested fixed weight and `calibrate`; grouped {folds}-fold CV repeated {repeats} "
          "times, means over the repeats.\n")
    copies = blend_copies(analyses, test_shapes)
    held = [c for cs in copies[2] for c in cs]
    shaped = [answered_sets(held, structure_edges(analyses, held, folds, test_shapes, seed=seed, copies=copies))
              for seed in range(repeats)]
    evidence = [[option_evidence(*run) for run in runs] for runs in shaped]  # each run's, read once
    slope, intercept, _ = open_calibration(shaped[0], judged, evidence[0])
    alone = [fused_scores(runs, structure_only, bias, folds, judged)[0] for runs in shaped]
    open_options = np.mean([len([k for k in prior if k not in settled and k[0] in judged])
                            for known in evidence for prior, settled in known])
    print(f"{len(held)} copies in {len(shaped[0])} runs, {len(alone[0])} judged questions scored; {open_options:.0f} "
          f"open options judged per run, on which gold against the structure log-odds has slope {slope:.2f} and "
          f"intercept {intercept:+.2f} (first repeat); structure alone {np.mean([a.mean() for a in alone]):.4f}\n")
    print("| reader | best fixed weight, nested CV | `calibrate` | " + " | ".join(f"no gold, scale {s:g}"
                                                                                  for s in SCALES)
          + " | default - nested |")
    print("|---|---|---|" + "---|" * len(SCALES) + "---|")
    cells, nested_scales, chosen = [], [], []
    for i, (runs, known) in enumerate(zip(shaped, evidence)):
        print(f"test-shaped: repeat {i + 1} of {repeats}", file=sys.stderr, flush=True)
        makes = [lambda s, r=r, runs=runs, known=known: without_gold([r], runs, s, evidence=known)
                 for r in untrained.values()]
        by_scale, n, c = scale_choice(makes, runs, bias, folds, judged=judged)
        nested_scales.append(n)
        chosen.append(c)
        cells.append([[nested_weight(runs, [r], bias, folds, WEIGHTS, judged)[0].mean(),
                       fused_scores(runs, with_gold([r], runs), bias, folds, judged)[0].mean(),
                       *(means[s] for s in SCALES)] for r, means in zip(untrained.values(), by_scale)])
    rows = np.mean(cells, axis=0)
    default = rows[:, 2 + SCALES.index(SCALE)] - rows[:, 0]
    for stem, row, d in zip(untrained, rows, default):
        print(f"| {stem} | " + " | ".join(f"{v:.4f}" for v in row) + f" | {d:+.4f} |")
    print("| mean | " + " | ".join(f"{v:.4f}" for v in rows.mean(axis=0)) + f" | {default.mean():+.4f} |")
    at_or_above = {s: int(np.sum(rows[:, 2 + i] >= rows[:, 0] - 1e-9)) for i, s in enumerate(SCALES)}
    print("\nAt or above the nested fixed weight, by scale: "
          f"{', '.join(f'{s:g}: {n} of {len(rows)}' for s, n in at_or_above.items())}. Nested grouped CV over the "
          f"pooled readers: {np.mean(nested_scales):.4f}; scales chosen per repeat {chosen}\n",
          flush=True)
