"""Real readers fused on topics in which every question has the reader's judgement: the dev answers of eleven
public systems (`readers-dev/`, README there) on the dev-only topics (each labelled topic cut to its dev
questions), each answered with the edge scores of the structure model that did not see its topic (grouped CV over
train + dev + sample, repeated with the topics shuffled into folds), of the kind `train` ships (the size blend of a structure
scorer and an evidence scorer, with the shipped bands; topics 11-36 read train-evidence/), trained with copies
cut to the answered topics' shapes. The regime: the structure model's calibration on the open options (gold), on
the settled ones (the rules' labels) and when trained on the dev questions alone. Per reader: its reliability on the open
options against gold and as estimated without gold; fused: the structure alone, the reader alone, the best fixed
weight by nested grouped CV, calibrated from the gold of the other folds' topics (`calibrate`) and the gold-free
default, and how often the bar of issue 23 would hold on other draws of such topics (its resolution); the scale, with every question judged, with one in six, and with every question judged but the estimate resting on one in six; shrinkage towards a fixed weight and variants of the estimate (measured, not shipped); the
guard on small topics; several readers at once; whether a reader answers every question, and a reader model conditioned on a
non-empty answer (measured, not shipped). The structure model comes from one place, `causalgraph.experiments.calibration.structure_edges`.

    python benchmarks/real_readers.py --data ../shared/aer [--readers a,b] [--folds 5] [--repeats 10] [--sections ...]
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
from collections import Counter
from dataclasses import dataclass, replace
from pathlib import Path
from unittest import mock

import numpy as np
from sklearn.linear_model import LogisticRegression
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logit
from sklearn.metrics import roc_auc_score

from labelled import print_table, run_benchmark

from causalgraph.analysis.analyse import subset_analysis
from causalgraph.config import DEFAULT_MODEL
from causalgraph.data import load_split
from causalgraph.experiments.calibration import (SCALES, answer_analyses, answered_sets, fixed_weight, fused_scores, gold_of,
                                                  judged_topics, nested_weight, open_rates, per_run, reader_alone,
                                                  scale_choice, structure_edges, structure_only, with_gold,
                                                  without_gold)
from causalgraph.experiments.fusion import nested_choice
from causalgraph.experiments.inputs import cv_inputs, describe_shapes, shipped_biases
from causalgraph.learn.bands import blend_copies
from causalgraph.learn.crossval import FoldResult, TopicShape, bootstrap_interval, resampled_means
from causalgraph.learn.scorer import edge_scores, load_scorer
from causalgraph.readers.base import ReaderJudgements
from causalgraph.readers.scores import load_reader_scores
from causalgraph.readers.trust import TrustSettings
from causalgraph.readers.trust.calibration import (DEPENDENCE, FALLBACK_WEIGHT, MIN_OPEN, PRIOR_OPTIONS,
                                                   PRIOR_PRECISION, SCALE, TYPICAL, ReaderCalibration, vote)
import causalgraph.readers.trust.options as trust_options
from causalgraph.readers.trust.options import estimate_without_gold, fit_with_gold, open_keys
from causalgraph.reason.settled import settled_options
from causalgraph.run.pipeline import option_evidence

# Readers trained on train, whose events dev repeats: they stand for a strong reader, but their dev answers are
# recall, so they are reported apart and no constant is chosen on them.
TRAINED_ON_TRAIN = ("gpt41mini", "deberta")
WEIGHTS = (0, 25, 50, 75, 100, 150, 200, 400, 800)
SMALL_WEIGHTS = (0, 25, 50, 75, 100, 150)  # where an estimate would rest on few options, the weights that compete
COMBINATIONS = (
    ("gpt4o_zero_shot_no_docs", "gpt4o_keyword_rag"),
    ("gpt4o_zero_shot_no_docs", "deepseek_chat_comet_graph"),
    ("gpt4o_focused_causation", "claude3_haiku_knowledge_graph"),
    ("gpt4o_zero_shot_no_docs", "gpt4o_keyword_rag", "gpt4o_focused_causation"),
    ("gpt4o_zero_shot_no_docs", "deepseek_chat_comet_graph", "claude3_haiku_knowledge_graph"),
    ("gpt41mini_finetuned_on_train", "gpt41mini_finetuned_on_train_rag"),
    ("deberta_v3_base_finetuned_on_train.probs", "gpt4o_zero_shot_no_docs"),
)
SHRINKS, TOWARDS = (0.25, 0.5, 0.75), (50, 75, 100)
SECTIONS = ("regime", "reliability", "fused", "resolution", "shrinkage", "variants", "rank", "answer-sets", "scale",
            "partial", "guard", "several", "test-shaped")
NEED_FUSED = ("resolution", "shrinkage", "variants", "rank", "answer-sets")  # measured against `fused`'s nested weight
MARGINS = (0.005, 0.01, 0.02, 0.04)  # true margins over the nested weight at which the bar's power is measured
RESAMPLES = 2000
VARIANT_SCALES = (1.0, 1.25, 1.5)
SMALL_SIZES = (1, 5)
RUN_SIZES = (1, 2, 4, 9)  # dev-only topics per run, each run calibrated on its own
PARTS = 6  # the partially judged topics: each question judged in one of this many passes, as in test-shaped copies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=10, help="grouped CV repeated with these many seeds")
    parser.add_argument("--readers", help="comma-separated reader file stems (default: all)")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated, of {', '.join(SECTIONS)} (default: all; {', '.join(NEED_FUSED)} need fused)")
    args = parser.parse_args()
    sections = args.sections.split(",")
    unknown = sorted(set(sections) - set(SECTIONS))
    if unknown:
        parser.error(f"--sections: unknown section {unknown[0]!r} (choose from {', '.join(SECTIONS)})")
    if "fused" not in sections and (after := [s for s in sections if s in NEED_FUSED]):
        parser.error(f"--sections: {after[0]} needs fused (add fused to the list)")
    files = sorted((Path(args.data) / "readers-dev").glob("*.jsonl"))
    if args.readers:
        missing = sorted(set(args.readers.split(",")) - {f.name.removesuffix(".jsonl") for f in files})
        if missing:
            parser.error(f"--readers: no {missing[0]}.jsonl in {Path(args.data) / 'readers-dev'}")
        files = [f for f in files if f.name.removesuffix(".jsonl") in args.readers.split(",")]
    dev = {q.qid: q for t in load_split(args.data, "dev") for q in t.questions}
    readers = {f.name.removesuffix(".jsonl"): load_reader_scores(f, dev) for f in files}
    topics, test_shapes = cv_inputs(args.data, args.folds, evidence=True)  # 11-36 read train-evidence/
    analyses = answer_analyses(topics)
    bias = shipped_biases()  # the shipped scorer's bias by topic size, as `answer` uses it
    untrained = {s: r for s, r in readers.items() if not s.startswith(TRAINED_ON_TRAIN)}
    trained = {s: r for s, r in readers.items() if s.startswith(TRAINED_ON_TRAIN)}
    pieces = judged_topics(analyses, set(dev))
    copies = blend_copies(analyses, [TopicShape.of(p.topic) for p in pieces])  # made once for every repeat
    repeats = [[(pieces, structure_edges(analyses, pieces, args.folds, seed=seed, copies=copies))]
               for seed in range(args.repeats)]
    print(f"precision bias by topic size {[bias(n) for n in (1, 5, 20, 40)]} at 1, 5, 20, 40 questions; grouped {args.folds}-fold CV repeated {args.repeats} times (seeds 0-{args.repeats - 1}); "
          "every figure is the mean over the repeats\n", flush=True)
    if "regime" in sections:
        regime(analyses, pieces, repeats, test_shapes, answer_analyses(load_split(args.data, "test"), progress=False),
               set(dev), bias, args.folds)
    if "reliability" in sections:
        reliability(repeats, untrained, trained)
    if "fused" in sections:
        result = fused(repeats, untrained, trained, bias, args.folds)
        nested = result.nested
        if "resolution" in sections:
            resolution(repeats, untrained, result, bias, args.folds)
        if "shrinkage" in sections:
            shrinkage(repeats, untrained, trained, nested, bias, args.folds)
        if "variants" in sections:
            variants(repeats, untrained, nested, bias, args.folds)
        if "rank" in sections:
            rank(repeats, untrained, trained, nested, bias, args.folds)
        if "answer-sets" in sections:
            answer_sets(repeats, untrained, nested, bias, args.folds)
    if "scale" in sections:
        scales(repeats, untrained, bias, args.folds)
    if "partial" in sections:
        partial(repeats, untrained, bias, args.folds)
    if "guard" in sections:
        guard(analyses, pieces, repeats[0], untrained, test_shapes, bias, args.folds)
    if "several" in sections:
        several(repeats, readers, bias, args.folds)
    if "test-shaped" in sections:
        test_shaped(analyses, test_shapes, set(dev), untrained, bias, args.folds, args.repeats)


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
    return log_odds_fit([_log_odds(prior[k]) for prior, settled in evidence for k in sorted(settled)],
                        [settled[k] for _, settled in evidence for k in sorted(settled)])


def open_calibration(runs, judged: set[str] | None = None, evidence=None) -> tuple[float, float, int]:
    """Gold against the structure log-odds on the runs' open options (of the questions in `judged`, where given):
    the slope and intercept of a logistic fit, and how many options it rests on. `evidence`: each run's
    `option_evidence`, where it is at hand."""
    x, y = [], []
    for run, (prior, settled) in zip(runs, evidence or [option_evidence(*run) for run in runs]):
        labels = gold_of([run])
        keys = [k for k in prior if k not in settled and k in labels and (judged is None or k[0] in judged)]
        x += [_log_odds(prior[k]) for k in keys]
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


@dataclass(frozen=True)
class Fused:
    """Each reader's per-question held-out scores in each repeat (in `fused_scores`' order) at the nested fixed
    weight, the gold-free default and `calibrate`; the questions' topics."""

    nested: dict[str, list[np.ndarray]]
    default: dict[str, list[np.ndarray]]
    calibrate: dict[str, list[np.ndarray]]
    topics: np.ndarray


def fused(repeats, untrained: dict, trained: dict, bias: int, folds: int) -> Fused:
    print("## Fused\n")
    print(f"Fixed weights {WEIGHTS} (percent of the raw log-odds; 0 is the structure alone). The default: no gold, "
          f"scale {SCALE:g}. The interval: 95% of the default less the nested fixed weight, resampling topics "
          "(their difference averaged over the repeats).\n")
    nested_q, default_q, calibrate_q, topics = {}, {}, {}, np.array([])
    for title, group in (("Readers not trained on train", untrained), ("Readers trained on train (recall dev)", trained)):
        if not group:
            continue
        print(f"### {title}\n")
        print("| reader | structure alone | reader alone | best fixed weight, nested CV (chosen in the first repeat) | "
              "`calibrate` (gold of other topics) | no gold (default) | default - nested (95% interval) | "
              "questions scored apart | repeats at or above | at or above all three |")
        print("|---|---|---|---|---|---|---|---|---|---|")
        by_weight, differences = {}, []
        for stem, reader in group.items():  # the nested fixed weight's score in each repeat: for `shrinkage`
            nested, free, gold, means, chosen, wins, apart = [], [], [], [], None, 0, []
            for runs in repeats:
                held, picked, weights = nested_weight(runs, [reader], bias, folds, WEIGHTS)
                scores, topics = fused_scores(runs, without_gold([reader], runs), bias, folds)
                nested.append(held)
                free.append(scores)
                gold.append(fused_scores(runs, with_gold([reader], runs), bias, folds)[0])
                means.append([weights[w] for w in WEIGHTS])
                chosen = chosen or picked
                wins += scores.mean() >= held.mean() - 1e-9
                apart.append(np.sum(scores != held))
            by_weight[stem] = np.mean(means, axis=0)
            nested_q[stem], default_q[stem], calibrate_q[stem] = nested, free, gold
            differences.append(np.mean(free, axis=0) - np.mean(nested, axis=0))
            low, high = bootstrap_interval(FoldResult("difference", differences[-1], topics))
            n, f, alone, structure = np.mean(nested), np.mean(free), reader_alone(repeats[0], reader), by_weight[stem][0]
            ok = f >= max(n, structure, alone) - 1e-9
            print(f"| {stem} | {structure:.4f} | {alone:.4f} | {n:.4f} ({', '.join(map(str, chosen))}) | "
                  f"{np.mean(gold):.4f} | {f:.4f} | {f - n:+.4f} ({low:+.4f} to {high:+.4f}) | {np.mean(apart):.1f} "
                  f"of {len(topics)} | {wins} of {len(repeats)} | {'yes' if ok else 'no'} |", flush=True)
        if differences:
            pooled = FoldResult("difference", np.concatenate(differences), np.tile(topics, len(differences)))
            low, high = bootstrap_interval(pooled)
            print(f"\nPooled over these {len(differences)} readers, default - nested: {pooled.scores.mean():+.4f} "
                  f"({low:+.4f} to {high:+.4f}, resampling topics). Questions scored apart: those whose score differs "
                  "between the default and the nested fixed weight, per repeat (mean).")
        print(f"\nEach fixed weight ({title[0].lower() + title[1:]})\n")
        print_table("reader", [f"weight {w}" for w in WEIGHTS], by_weight.items())
        print()
    return Fused(nested_q, default_q, calibrate_q, topics)


def resolution(repeats, untrained: dict, result: Fused, bias: int, folds: int) -> None:
    """How often the bar (each untrained reader at or above its nested weight) holds on other draws of topics like
    these: the topics resampled with replacement, the same draw for every reader."""
    print("## The bar's resolution\n")
    oracle = {stem: [fused_scores(runs, own_gold([reader], runs, SCALE), bias, folds)[0] for runs in repeats]
              for stem, reader in untrained.items()}
    settings = (("the default (shipped)", result.default), ("`calibrate` (gold of other topics)", result.calibrate),
                ("gold of the answered topics (diagnostic)", oracle))
    differences = {name: np.array([np.mean(by[s], axis=0) - np.mean(result.nested[s], axis=0) for s in untrained])
                   for name, by in settings}
    print(f"The {len(np.unique(result.topics))} dev-only topics resampled with replacement {RESAMPLES} times (seed 0), "
          "the same draw for every reader; in each, a reader's difference is the mean over the drawn topics' "
          f"questions of its setting's score less the nested fixed weight's (scale {SCALE:g}, means over the "
          "repeats). The share of draws in which each reader, and all of them at once, is at or above. Last, the "
          "bar's power: the default's differences shifted so that every reader's is the given margin on these "
          "topics (their spread over topics as measured), and the share of draws in which all of them are at or "
          "above.\n")
    print("| setting | at or above on these topics | " + " | ".join(untrained) + " | all at once |")
    print("|---|---|" + "---|" * (len(untrained) + 1))
    default = differences["the default (shipped)"]
    rows = [*differences.items(), *((f"the default shifted to a margin of {m:+.3f} for every reader",
                                     default - default.mean(axis=1, keepdims=True) + m) for m in MARGINS)]
    for name, d in rows:
        above = resampled_means(d, result.topics, RESAMPLES) >= -1e-9  # (draws, readers)
        point = sum(d.mean(axis=1) >= -1e-9)
        print(f"| {name} | {point} of {len(d)} | " + " | ".join(f"{a:.0%}" for a in above.mean(axis=0))
              + f" | {above.all(axis=1).mean():.0%} |", flush=True)
    print()


def scales(repeats, untrained: dict, bias: int, folds: int) -> None:
    print("## The scale (readers not trained on train)\n")
    means, nested, chosen = [], [], []
    for runs in repeats:
        makes = [lambda s, r=r, runs=runs: without_gold([r], runs, s) for r in untrained.values()]
        m, n, c = scale_choice(makes, runs, bias, folds)
        means.append([[row[s] for s in SCALES] for row in m])
        nested.append(n)
        chosen.append(c)
    table = np.mean(means, axis=0)
    print_table("reader", [f"scale {s:g}" for s in SCALES], [*zip(untrained, table), ("mean", table.mean(axis=0))])
    print(f"\nNested grouped CV over the pooled readers (each outer fold takes the scale best on its training topics): "
          f"{np.mean(nested):.4f}; scales chosen per repeat {chosen} (shipped: SCALE = {SCALE:g})\n", flush=True)


def partial(repeats, untrained: dict, bias: int, folds: int, parts: int = PARTS) -> None:
    """The default at each scale on the dev-only topics with every question judged; with the reader's judgements
    on one question in `parts` only (a seeded partition of the questions; each part judged and estimated on in a
    pass of its own, only its questions scored; every question is scored once); and with every question judged
    and scored but the estimate resting on one part's judgements (a pass per part), which tells the two changes
    of the second apart: fewer options to estimate on, and questions whose neighbours are not judged."""
    print("## Partly judged topics: the scale\n")
    print(f"The dev-only topics as above (\"all judged\"); the same with the reader's judgements on one question in "
          f"{parts} (\"part judged\": the questions of each repeat partitioned at random into {parts} parts; in each "
          "pass one part is judged, the gold-free estimate rests on its open options, and only its questions are "
          "scored, as in the test-shaped copies below, where only the dev questions are judged; every question is "
          "scored once); and every question judged and scored with the estimate resting on one part's judgements "
          "(\"all judged, estimated on a part\": a pass per part, each scoring every question). The gold-free "
          "default at each scale, readers not trained on train, means over the repeats.\n")
    arms = {"all judged": "all", "part judged": "part", "all judged, estimated on a part": "estimate"}
    tables, nested, chosen = ({arm: [] for arm in arms} for _ in range(3))
    for i, runs in enumerate(repeats):
        print(f"partial: repeat {i + 1} of {len(repeats)}", file=sys.stderr, flush=True)
        evidence = [option_evidence(*run) for run in runs]
        qids = sorted(q.qid for analyses, _ in runs for a in analyses for q in a.topic.questions)
        random.Random(f"partial/{i}").shuffle(qids)
        split = [set(qids[g::parts]) for g in range(parts)]
        for arm, kind in arms.items():
            pooled: dict[float, list] = {s: [] for s in SCALES}
            topics, rows = [], []
            for reader in untrained.values():
                row = {s: [] for s in SCALES}
                for part in [None] if kind == "all" else split:
                    for s in SCALES:
                        if kind == "estimate":
                            setting, judged = estimated_on(reader, part, runs, s, evidence), None
                        else:
                            judging = reader if part is None else reader.for_questions(part)
                            setting, judged = without_gold([judging], runs, s, evidence=evidence), part
                        scores, t = fused_scores(runs, setting, bias, folds, judged)
                        row[s].append(scores)
                        pooled[s].append(scores)
                        if s == SCALES[0]:
                            topics.append(t)
                rows.append([np.concatenate(row[s]).mean() for s in SCALES])
            n, c = nested_choice({s: np.concatenate(v) for s, v in pooled.items()}, np.concatenate(topics), folds)
            tables[arm].append(rows)
            nested[arm].append(n)
            chosen[arm].append(Counter(c))
    for arm in arms:
        table = np.mean(tables[arm], axis=0)
        print(f"### {arm}\n")
        print_table("reader", [f"scale {s:g}" for s in SCALES], [*zip(untrained, table), ("mean", table.mean(axis=0))])
        counts = sum(chosen[arm], Counter())
        print(f"\nNested grouped CV over the pooled readers: {np.mean(nested[arm]):.4f}, the scale chosen in the "
              f"{sum(counts.values())} outer folds: " + ", ".join(f"{s:g} in {counts[s]}" for s in SCALES if counts[s])
              + f" (shipped: SCALE = {SCALE:g})\n", flush=True)


def estimated_on(reader, part: set[str], runs, scale: float, evidence):
    """The reader's judgements of every question, weighed by the gold-free estimate on those of `part` only."""
    def weighed(analyses, edges, known):
        (cal,) = estimate_without_gold([reader.for_questions(part)], *known, TrustSettings(scale=scale))
        return (cal.apply(reader),)
    return per_run(runs, weighed, evidence)


def shrinkage(repeats, untrained: dict, trained: dict, nested: dict[str, list[float]], bias: int, folds: int) -> None:
    print("## Shrinkage towards a fixed weight (measured, not shipped)\n")
    print("The default's log-odds pulled part of the way towards the reader's raw log-odds at a fixed weight; "
          "against each reader's nested fixed weight, means over the repeats.\n")
    print("| shrinkage | towards weight | not trained on train: at or above | mean | lowest | trained on train: at or "
          "above | mean | lowest |")
    print("|---|---|---|---|---|---|---|---|")
    for shrink in SHRINKS:
        for toward in TOWARDS:
            cells = []
            for group in (untrained, trained):
                diffs = [np.mean([fused_scores(runs, shrunk([reader], runs, shrink, toward), bias, folds)[0].mean()
                                  for runs in repeats]) - np.mean(nested[stem]) for stem, reader in group.items()]
                cells += [f"{sum(d >= -1e-9 for d in diffs)} of {len(diffs)}", f"{np.mean(diffs):+.4f}",
                          f"{min(diffs):+.4f}"]
            print(f"| {shrink:g} | {toward} | " + " | ".join(cells) + " |", flush=True)
    print()


def shrunk(readers, runs, shrink: float, toward: int):
    """The gold-free default with each judgement's log-odds pulled `shrink` of the way towards its raw log-odds
    at the fixed weight `toward`."""
    default = without_gold(readers, runs)

    def setting(analyses, edges, training):
        out = []
        for r in default(analyses, edges, training):
            pulled = {k: replace(j, calibrated=round((1 - shrink) * j.log_odds() + shrink * toward / r.weight
                                                     * replace(j, calibrated=None).log_odds()))
                      for k, j in r.judgements.items()}
            out.append(replace(r, judgements=pulled))
        return tuple(out)
    return setting


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
    fit = LogisticRegression(C=1e4).fit(np.c_[_log_odds(np.array([prior[k] for k in keys])), within_question(prior, keys)],
                                        [labels[k] for k in keys])
    print(f"Gold against the structure log-odds and the rank within the question together (a logistic fit over the "
          f"{len(keys)} open options, first repeat): {fit.coef_[0][0]:.2f} x log-odds {fit.coef_[0][1]:+.2f} x rank "
          f"{fit.intercept_[0]:+.2f}: an option's chance of being a cause follows its rank beyond its probability.\n")
    rows = [("the default (shipped)", without_gold, (SCALE,)),
            ("the dependence on the rank within the question", ranked(dependence), VARIANT_SCALES)]
    for title, group in (("Readers not trained on train", untrained), ("Readers trained on train (recall dev)", trained)):
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
            means = [np.mean([fused_scores(runs, make([reader], runs, scale), bias, folds)[0].mean() for runs in repeats])
                     for reader in untrained.values()]
            diffs = [m - np.mean(nested[stem]) for m, stem in zip(means, untrained)]
            print(f"| {name} | {scale:g} | {sum(d >= -1e-9 for d in diffs)} of {len(diffs)} | {np.mean(means):.4f} | "
                  f"{np.mean(diffs):+.4f} | {min(diffs):+.4f} | "
                  f"{', '.join(s for s, d in zip(untrained, diffs) if d < -1e-9) or 'none'} |", flush=True)
    print()


def answer_sets(repeats, untrained: dict, nested: dict[str, list[float]], bias: int, folds: int) -> None:
    print("## A reader answers every question (measured, not shipped)\n")
    print("The EM's reader model takes a reader's votes on a question's options as independent given the labels. On "
          "the dev-only topics' questions whose real options are all open and judged (first repeat): the share the "
          "reader answers with no option, against the share that model predicts (labels drawn from the structure "
          "probabilities, at least one of them a cause), fitted without gold (the default) and with gold. Then a "
          "reader model conditioned on a non-empty answer (the same votes, then at least one yes in such a "
          f"question, those it answered with no option taken one option at a time; dependence held at {DEPENDENCE}), fitted by the exact likelihood over each question's label "
          "sets, without gold (the structure probabilities as the labels' prior) and with gold: the sensitivity "
          "and specificity of its votes before the condition, averaged over the gold causes and other options "
          "alike for both fits.\n")
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
        print(f"| {stem} | {len(sets.no_answer)} | {sets.no_answer.mean():.3f} | {sets.predicted_no_answer(free):.3f} | "
              f"{sets.predicted_no_answer(gold):.3f} | " + " | ".join(f"{a:.2f} / {b:.2f}" for a, b in fits) + " |",
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
        self.x = np.array([_log_odds(prior[k]) for k in self.single])
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
        return float((weights * yes1).sum() / weights.sum()), float(((1 - weights) * (1 - yes0)).sum() / (1 - weights).sum())


def _by_size(questions, prior, votes) -> list[tuple[list, np.ndarray, np.ndarray]]:
    """Questions (each a list of option keys) grouped by their number of options: the keys, and the structure
    log-odds and votes with a question a row."""
    groups = []
    for m in sorted({len(ks) for ks in questions}):
        rows = [ks for ks in questions if len(ks) == m]
        groups.append(([k for ks in rows for k in ks], np.array([[_log_odds(prior[k]) for k in ks] for ks in rows]),
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
    judgements = {k: replace(j, calibrated=int(round(100 * cal.ratios(np.array([_log_odds(prior.get(k, 0.5))]), [j])[0])))
                  for k, j in reader.judgements.items()}
    return ReaderJudgements(reader.reader, judgements, cal.weight, cal)


def _log_odds(p):
    return np.log(p / (1 - p))


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


def within_question(prior, keys) -> np.ndarray:
    """Each option's structure log-odds less their mean over its question's options in `prior`: its rank within
    the question."""
    by_question: dict[str, list[float]] = {}
    for (qid, _), p in prior.items():
        by_question.setdefault(qid, []).append(_log_odds(p))
    return np.array([_log_odds(prior[k]) - np.mean(by_question[k[0]]) for k in keys])


def on_rank():
    """Readers' votes taken to follow the structure model's rank within the question rather than the log-odds
    themselves (a reader compares a question's options): the EM and the gold fits, while it is on."""
    return mock.patch.object(trust_options, "followed_log_odds", within_question)


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


def gold_dependence(repeats, readers: dict, mapped=None) -> float:
    """The dependence fitted with gold, the mean over `readers` and the repeats; on the structure probabilities
    that `mapped(prior, settled, gold)` gives, where given."""
    fits = []
    for runs in repeats:
        prior, settled = option_evidence(*runs[0])
        labels = gold_of(runs)
        if mapped is not None:
            prior = mapped(prior, settled, labels)
        fits += [fit_with_gold(r, labels, prior, settled, TrustSettings(min_open=0)).dependence for r in readers.values()]
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
    fit = LogisticRegression(C=1e4).fit(_log_odds(np.array([[prior[k]] for k in keys])), [gold[k] for k in keys])
    return dict(zip(prior, fit.predict_proba(_log_odds(np.array([[p] for p in prior.values()])))[:, 1]))


def guard(analyses, pieces, runs, untrained: dict, test_shapes, bias: int, folds: int, seed: int = 0) -> None:
    print("## The guard: few open options\n")
    print("Topics of k dev questions (each dev-only topic's questions in a seeded order, cut into topics of k), each "
          "answered and calibrated on its own with the structure model trained for the test split's shapes, as a "
          "user's own small topic is answered; then the dev-only topics of the first repeat in runs of m topics, "
          "each run calibrated on its own. The estimate without the guard against fixed weights.\n")
    copies = blend_copies(analyses, test_shapes)
    for k in SMALL_SIZES:
        small = []
        for piece in pieces:
            whole = next(a for a in analyses if a.topic.topic_id == piece.topic.topic_id)
            index = {q.qid: i for i, q in enumerate(whole.topic.questions)}
            order = [index[q.qid] for q in piece.topic.questions]
            random.Random(f"{seed}/{piece.topic.topic_id}/{k}").shuffle(order)
            small += [subset_analysis(whole, order[i:i + k]) for i in range(0, len(order), k)]
        edges = structure_edges(analyses, small, folds, copies=copies)
        _guard_table(f"topics of {k} ({len(small)} topics)", [([p], [e]) for p, e in zip(small, edges)], untrained,
                     bias, folds)
    for m in RUN_SIZES:
        (topics, edges), = runs
        grouped = [(topics[i:i + m], edges[i:i + m]) for i in range(0, len(topics), m)]
        _guard_table(f"runs of {m} dev-only topic{'s' * (m > 1)} ({len(grouped)} runs)", grouped, untrained, bias, folds)


def _guard_table(title: str, runs, untrained: dict, bias: int, folds: int) -> None:
    print(f"### {title}\n")
    print("| reader | open options per run | " + " | ".join(f"weight {w}" for w in SMALL_WEIGHTS) +
          " | no gold, without the guard | with the guard (default) |")
    print("|---|---|" + "---|" * (len(SMALL_WEIGHTS) + 2))
    rows = []
    evidence = [option_evidence(*run) for run in runs]
    structure = fused_scores(runs, structure_only, bias, folds)[0].mean()
    for stem, reader in untrained.items():
        n = np.mean([len(open_keys(reader, *known)) for known in evidence])
        row = [fused_scores(runs, fixed_weight([reader], w), bias, folds)[0].mean() if w else structure
               for w in SMALL_WEIGHTS]
        row.append(fused_scores(runs, without_gold([reader], runs, min_open=0, evidence=evidence), bias, folds)[0].mean())
        row.append(fused_scores(runs, without_gold([reader], runs, evidence=evidence), bias, folds)[0].mean())
        rows.append(row)
        print(f"| {stem} | {n:.0f} | " + " | ".join(f"{v:.4f}" for v in row) + " |", flush=True)
    print("| mean | | " + " | ".join(f"{v:.4f}" for v in np.mean(rows, axis=0)) + " |")
    print(f"\n(shipped: MIN_OPEN = {MIN_OPEN}, FALLBACK_WEIGHT = {FALLBACK_WEIGHT})\n")


def several(repeats, readers: dict, bias: int, folds: int) -> None:
    print("## Several readers at once\n")
    print("| readers | each alone | best fixed weight each, nested CV | `calibrate` (gold of other topics) | no gold, "
          "joint EM (default) |")
    print("|---|---|---|---|---|")
    for combo in COMBINATIONS:
        if not all(c in readers for c in combo):
            continue
        chosen = [readers[c] for c in combo]
        alone = " / ".join(f"{reader_alone(repeats[0], r):.4f}" for r in chosen)
        row = np.mean([[nested_weight(runs, chosen, bias, folds, WEIGHTS)[0].mean(),
                        fused_scores(runs, with_gold(chosen, runs), bias, folds)[0].mean(),
                        fused_scores(runs, without_gold(chosen, runs), bias, folds)[0].mean()] for runs in repeats], axis=0)
        print(f"| {' + '.join(combo)} | {alone} | " + " | ".join(f"{v:.4f}" for v in row) + " |", flush=True)


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
    print("| reader | best fixed weight, nested CV | `calibrate` | " + " | ".join(f"no gold, scale {s:g}" for s in SCALES)
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
    print(f"\nAt or above the nested fixed weight, by scale: {', '.join(f'{s:g}: {n} of {len(rows)}' for s, n in at_or_above.items())}. "
          f"Nested grouped CV over the pooled readers: {np.mean(nested_scales):.4f}; scales chosen per repeat {chosen}\n",
          flush=True)


if __name__ == "__main__":
    run_benchmark(main)
