"""Real readers fused on topics in which every question has the reader's judgement: the dev answers of eleven
public systems (`readers-dev/`, README there) on the dev-only topics (each labelled topic cut to its dev
questions), each answered with the edge scores of the structure model that did not see its topic (grouped CV over
train + dev + sample), trained as `train` trains the shipped one for the split it answers: with copies cut to the
answered topics' shapes. Per reader: its reliability on the open options against gold and as estimated without
gold; fused, the structure alone, the reader alone, the best fixed weight by nested grouped CV, calibrated from
the gold of the other folds' topics (`calibrate`) and the gold-free default; the scale; the guard on small
topics; several readers at once. The structure model comes from one place,
`causalgraph.experiments.calibration.structure_edges`.

    python benchmarks/real_readers.py --data ../shared/aer [--readers a,b] [--folds 5]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

from causalgraph.analysis.analyse import subset_analysis
from causalgraph.data import load_split
from causalgraph.experiments.calibration import (SCALES, answer_analyses, fixed_weight, fused_scores, gold_of,
                                                  judged_topics, nested_weight, open_rates, reader_alone,
                                                  scale_choice, structure_edges, structure_only, with_gold,
                                                  without_gold)
from causalgraph.experiments.inputs import cv_inputs, describe_shapes, shipped_bias
from causalgraph.learn.calibration import option_evidence
from causalgraph.learn.crossval import TopicShape, node_vectors
from causalgraph.readers.calibration import (DEPENDENCE, FALLBACK_WEIGHT, MIN_OPEN, SCALE, estimate_without_gold,
                                             fit_with_gold, open_keys)
from causalgraph.readers.scores import load_reader_scores

# Readers trained on train, whose events dev repeats: they stand for a strong reader, but their dev answers are
# recall, so they are reported apart and no constant is chosen on them.
TRAINED_ON_TRAIN = ("gpt41mini", "deberta")
WEIGHTS = (0, 25, 50, 75, 100, 150, 200, 400, 800)
SMALL_WEIGHTS = (0, 25, 50, 75, 100, 150)  # where the estimate rests on few options, the weights that compete
COMBINATIONS = (
    ("gpt4o_zero_shot_no_docs", "gpt4o_keyword_rag"),
    ("gpt4o_zero_shot_no_docs", "deepseek_chat_comet_graph"),
    ("gpt4o_focused_causation", "claude3_haiku_knowledge_graph"),
    ("gpt4o_zero_shot_no_docs", "gpt4o_keyword_rag", "gpt4o_focused_causation"),
    ("gpt4o_zero_shot_no_docs", "deepseek_chat_comet_graph", "claude3_haiku_knowledge_graph"),
    ("gpt41mini_finetuned_on_train", "gpt41mini_finetuned_on_train_rag"),
    ("deberta_v3_base_finetuned_on_train.probs", "gpt4o_zero_shot_no_docs"),
)
SMALL_SIZES = (1, 5)
RUN_SIZES = (1, 2, 4, 9)  # dev-only topics per run, each run calibrated on its own


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--readers", help="comma-separated reader file stems (default: all)")
    args = parser.parse_args()
    topics, test_shapes = cv_inputs(args.data, args.folds)
    analyses = answer_analyses(topics)
    bias = shipped_bias()
    dev = {q.qid: q for t in load_split(args.data, "dev") for q in t.questions}
    files = sorted((Path(args.data) / "readers-dev").glob("*.jsonl"))
    if args.readers:
        files = [f for f in files if f.name.removesuffix(".jsonl") in args.readers.split(",")]
    readers = {f.name.removesuffix(".jsonl"): load_reader_scores(f, dev) for f in files}
    untrained = {s: r for s, r in readers.items() if not s.startswith(TRAINED_ON_TRAIN)}
    trained = {s: r for s, r in readers.items() if s.startswith(TRAINED_ON_TRAIN)}
    pieces = judged_topics(analyses, set(dev))
    runs = [(pieces, structure_edges(analyses, pieces, args.folds))]
    regime(pieces, runs, test_shapes, fused_scores(runs, structure_only, bias, args.folds)[0].mean())
    reliability(runs, untrained, trained)
    fused(runs, untrained, trained, bias, args.folds)
    scales(runs, untrained, bias, args.folds)
    guard(analyses, pieces, runs, untrained, test_shapes, bias, args.folds)
    several(runs, readers, bias, args.folds)


def regime(pieces, runs, test_shapes, structure: float) -> None:
    prior, settled = option_evidence(*runs[0])
    gold = gold_of(runs)
    keys = [k for k in prior if k not in settled and k in gold]
    x = np.log(np.array([prior[k] for k in keys]) / (1 - np.array([prior[k] for k in keys])))
    y = np.array([gold[k] for k in keys])
    fit = LogisticRegression(C=1e4).fit(x[:, None], y)
    print(f"## The regime: {len(pieces)} dev-only topics, {describe_shapes([TopicShape.of(p.topic) for p in pieces])} "
          f"(the test split: {describe_shapes(test_shapes)})\n")
    print(f"- {len(prior)} real options, {len(settled)} settled by the rules ({sum(settled.values())} as causes), "
          f"{len(keys)} open ({y.mean():.1%} of them causes)")
    print(f"- the structure model on the open options: AUC {roc_auc_score(y, x):.3f}; mean probability "
          f"{np.mean(1 / (1 + np.exp(-x))):.3f}; gold against its log-odds: slope {fit.coef_[0, 0]:.2f}, intercept "
          f"{fit.intercept_[0]:+.2f} (1 and 0 where calibrated)")
    print(f"- structure alone: {structure:.4f}\n", flush=True)


def reliability(runs, untrained: dict, trained: dict) -> None:
    prior, settled = option_evidence(*runs[0])
    gold = gold_of(runs)
    print("## Reliability on the open options\n")
    print("Gold: the reader's sensitivity and specificity on the open options (a probability above one half is a "
          "yes) and the dependence fitted with them; no gold: the default EM (dependence held at "
          f"{DEPENDENCE}) and the same EM with the dependence at 0 (conditional independence).\n")
    print("| reader | open options | gold sens / spec | gold dependence | no gold sens / spec | no gold, independent "
          "sens / spec |")
    print("|---|---|---|---|---|---|")
    dependences = []
    for group in (untrained, trained):
        for stem, reader in group.items():
            n, sens, spec = open_rates(runs, reader)
            g = fit_with_gold(reader, gold, prior, settled, min_open=0)
            (free,) = estimate_without_gold([reader], prior, settled)
            (independent,) = estimate_without_gold([reader], prior, settled, dependence=0.0)
            if group is untrained:
                dependences.append(g.dependence)
            print(f"| {stem} | {n} | {sens:.2f} / {spec:.2f} | {g.dependence:+.2f} | {_rates(free)} | "
                  f"{_rates(independent)} |", flush=True)
    print(f"\nDependence fitted with gold, mean over the readers not trained on train: {np.mean(dependences):.2f} "
          f"(shipped: DEPENDENCE = {DEPENDENCE})\n")


def _rates(cal) -> str:
    return "fallback" if cal.fallback else f"{cal.sensitivity:.2f} / {cal.specificity:.2f}"


def fused(runs, untrained: dict, trained: dict, bias: int, folds: int) -> None:
    print("## Fused\n")
    print(f"Weights for the fixed-weight rows: {WEIGHTS} (percent of the raw log-odds; 0 is the structure alone). "
          f"The default: no gold, scale {SCALE:g}.\n")
    for title, group in (("Readers not trained on train", untrained), ("Readers trained on train (recall dev)", trained)):
        print(f"### {title}\n")
        print("| reader | structure alone | reader alone | best fixed weight, nested CV (chosen) | `calibrate` (gold of "
              "other topics) | no gold (default) | default - nested | at or above all three |")
        print("|---|---|---|---|---|---|---|---|")
        by_weight = {}
        for stem, reader in group.items():
            nested, chosen, by_weight[stem] = nested_weight(runs, [reader], bias, folds, WEIGHTS)
            alone = reader_alone(runs, reader)
            gold = fused_scores(runs, with_gold([reader], runs), bias, folds)[0].mean()
            free = fused_scores(runs, without_gold([reader], runs), bias, folds)[0].mean()
            ok = free >= max(nested, by_weight[stem][0], alone) - 1e-9
            print(f"| {stem} | {by_weight[stem][0]:.4f} | {alone:.4f} | {nested:.4f} ({', '.join(map(str, chosen))}) | "
                  f"{gold:.4f} | {free:.4f} | {free - nested:+.4f} | {'yes' if ok else 'no'} |", flush=True)
        print(f"\nEach fixed weight ({title.lower()})\n")
        print("| reader | " + " | ".join(f"weight {w}" for w in WEIGHTS) + " |")
        print("|---|" + "---|" * len(WEIGHTS))
        for stem, row in by_weight.items():
            print(f"| {stem} | " + " | ".join(f"{row[w]:.4f}" for w in WEIGHTS) + " |")
        print()


def scales(runs, untrained: dict, bias: int, folds: int) -> None:
    print("## The scale (readers not trained on train)\n")
    makes = [lambda s, r=r: without_gold([r], runs, s) for r in untrained.values()]
    means, nested, chosen = scale_choice(makes, runs, bias, folds)
    print("| reader | " + " | ".join(f"scale {s:g}" for s in SCALES) + " |")
    print("|---|" + "---|" * len(SCALES))
    for stem, row in zip(untrained, means):
        print(f"| {stem} | " + " | ".join(f"{m:.4f}" for m in row.values()) + " |")
    print("| mean | " + " | ".join(f"{np.mean([m[s] for m in means]):.4f}" for s in SCALES) + " |")
    print(f"\nNested grouped CV over the pooled readers (each outer fold takes the scale best on its training topics): "
          f"{nested:.4f}, scales chosen {chosen} (shipped: SCALE = {SCALE:g})\n", flush=True)


def guard(analyses, pieces, runs, untrained: dict, test_shapes, bias: int, folds: int, seed: int = 0) -> None:
    print("## The guard: few open options\n")
    print("Topics of k dev questions (each dev-only topic's questions in a seeded order, cut into topics of k), each "
          "answered and calibrated on its own with the structure model trained for the test split's shapes, as a "
          "user's own small topic is answered; the estimate without the guard against fixed weights.\n")
    vectors = {a.topic.topic_id: node_vectors(a) for a in analyses}
    for k in SMALL_SIZES:
        small = []
        for piece in pieces:
            order = list(range(len(piece.topic.questions)))
            random.Random(f"{seed}/{piece.topic.topic_id}/{k}").shuffle(order)
            whole = next(a for a in analyses if a.topic.topic_id == piece.topic.topic_id)
            index = {q.qid: i for i, q in enumerate(whole.topic.questions)}
            for start in range(0, len(order), k):
                part = [index[piece.topic.questions[i].qid] for i in order[start:start + k]]
                small.append(subset_analysis(whole, part, vectors[whole.topic.topic_id]))
        edges = structure_edges(analyses, small, folds, test_shapes)
        small_runs = [([p], [e]) for p, e in zip(small, edges)]
        _guard_table(f"topics of {k} ({len(small)} topics)", small_runs, untrained, bias, folds)
    for m in RUN_SIZES:
        grouped = [(runs[0][0][i:i + m], runs[0][1][i:i + m]) for i in range(0, len(runs[0][0]), m)]
        _guard_table(f"runs of {m} dev-only topic{'s' * (m > 1)} ({len(grouped)} runs), the structure model of the "
                     "regime", grouped, untrained, bias, folds)


def _guard_table(title: str, runs, untrained: dict, bias: int, folds: int) -> None:
    print(f"### {title}\n")
    print("| reader | open options per run | " + " | ".join(f"weight {w}" for w in SMALL_WEIGHTS) +
          " | no gold, without the guard | with the guard (default) |")
    print("|---|---|" + "---|" * (len(SMALL_WEIGHTS) + 2))
    rows = []
    for stem, reader in untrained.items():
        n = np.mean([len(open_keys(reader, *option_evidence(*run))) for run in runs])
        by_weight = [fused_scores(runs, fixed_weight([reader], w) if w else structure_only, bias, folds)[0].mean()
                     for w in SMALL_WEIGHTS]
        free = fused_scores(runs, without_gold([reader], runs, min_open=0), bias, folds)[0].mean()
        default = fused_scores(runs, without_gold([reader], runs), bias, folds)[0].mean()
        rows.append([*by_weight, free, default])
        print(f"| {stem} | {n:.0f} | " + " | ".join(f"{v:.4f}" for v in rows[-1]) + " |", flush=True)
    print("| mean | | " + " | ".join(f"{v:.4f}" for v in np.mean(rows, axis=0)) + " |")
    print(f"\n(shipped: MIN_OPEN = {MIN_OPEN}, FALLBACK_WEIGHT = {FALLBACK_WEIGHT})\n")


def several(runs, readers: dict, bias: int, folds: int) -> None:
    print("## Several readers at once\n")
    print("| readers | each alone | best fixed weight each, nested CV | `calibrate` (gold of other topics) | no gold, "
          "joint EM (default) |")
    print("|---|---|---|---|---|")
    for combo in COMBINATIONS:
        if not all(c in readers for c in combo):
            continue
        chosen = [readers[c] for c in combo]
        alone = " / ".join(f"{reader_alone(runs, r):.4f}" for r in chosen)
        nested = nested_weight(runs, chosen, bias, folds, WEIGHTS)[0]
        gold = fused_scores(runs, with_gold(chosen, runs), bias, folds)[0].mean()
        free = fused_scores(runs, without_gold(chosen, runs), bias, folds)[0].mean()
        print(f"| {' + '.join(combo)} | {alone} | {nested:.4f} | {gold:.4f} | {free:.4f} |", flush=True)


if __name__ == "__main__":
    main()
