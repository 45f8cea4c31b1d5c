"""Real readers fused under folds grouped by topic: the dev answers of eleven public systems
(`readers-dev/`, README there), each alone, fused at the old default weight, calibrated without gold on the
answered topics, and calibrated from the gold answers of the other folds' topics; then pairs and triples of
readers. Edge scores come from scorers that did not see the topic (5-fold grouped CV over train + dev +
sample), on whole held-out topics and on copies cut to the test split's shapes; only the dev questions (the
ones the readers judged) are scored.

    python benchmarks/real_readers.py --data ../shared/aer [--regime test-shaped] [--readers a,b]
"""

from __future__ import annotations

import argparse
import random
from pathlib import Path

import numpy as np

from causalgraph.data import load_split
from causalgraph.experiments.calibration import (answer_analyses, answered_sets, fixed_weight, fused_scores, reader_alone,
                                                  scale_choice, structure_only, with_gold, without_gold)
from causalgraph.experiments.inputs import cv_inputs, shipped_bias
from causalgraph.learn.calibration import calibrate_readers
from causalgraph.learn.crossval import fold_scorers, held_out_regimes, resized_sets
from causalgraph.analysis.analyse import subset_analysis
from causalgraph.learn.scorer import edge_scores
from causalgraph.readers.calibration import DEFAULT_SCALE, SCALES
from causalgraph.readers.scores import load_reader_scores

OLD_DEFAULT = 200
# Readers trained on train, whose events dev repeats: they stand for a strong reader, but their dev answers
# are recall, so the scale is chosen on the others.
TRAINED_ON_TRAIN = ("gpt41mini", "deberta")
COMBINATIONS = (
    ("gpt4o_zero_shot_no_docs", "gpt4o_keyword_rag"),
    ("gpt4o_zero_shot_no_docs", "deepseek_chat_comet_graph"),
    ("gpt4o_focused_causation", "claude3_haiku_knowledge_graph"),
    ("gpt4o_zero_shot_no_docs", "gpt4o_keyword_rag", "gpt4o_focused_causation"),
    ("gpt4o_zero_shot_no_docs", "deepseek_chat_comet_graph", "claude3_haiku_knowledge_graph"),
    ("gpt41mini_finetuned_on_train", "gpt41mini_finetuned_on_train_rag"),
    ("deberta_v3_base_finetuned_on_train.probs", "gpt4o_zero_shot_no_docs"),
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--regime", choices=("whole", "test-shaped", "both"), default="both")
    parser.add_argument("--readers", help="comma-separated reader file stems (default: all)")
    parser.add_argument("--sizes", help="also cut the dev questions into topics of these sizes (e.g. 1,5), each "
                                        "answered and calibrated on its own, as a user's small topic is")
    args = parser.parse_args()
    topics, shapes = cv_inputs(args.data, args.folds)
    analyses = answer_analyses(topics)
    extra, held = resized_sets(analyses, shapes)
    models = fold_scorers(analyses, args.folds, extra=extra)
    bias = shipped_bias()
    dev = {q.qid: q for t in load_split(args.data, "dev") for q in t.questions}
    folder = Path(args.data) / "readers-dev"
    files = sorted(folder.glob("*.jsonl"))
    if args.readers:
        files = [f for f in files if f.name.removesuffix(".jsonl") in args.readers.split(",")]
    readers = {f.name.removesuffix(".jsonl"): load_reader_scores(f, dev) for f in files}
    if args.sizes:
        small_topics(analyses, models, readers, dev, bias, args.folds, [int(k) for k in args.sizes.split(",")])
        return
    for name, scored, edges in held_out_regimes(analyses, models, held):
        if args.regime not in (name, "both"):
            continue
        runs = answered_sets(scored, edges)
        judged = set(dev)
        structure = fused_scores(runs, structure_only, bias, judged, args.folds)[0].mean()
        print(f"\n## {name} held-out topics ({len(runs)} run{'s' * (len(runs) > 1)}): structure alone {structure:.4f}\n",
              flush=True)
        print(f"| reader | alone | weight {OLD_DEFAULT} (old default) | no gold, scale by size (default) | "
              f"gold of other topics, scale by size | estimated reliability (no gold) |")
        print("|---|---|---|---|---|---|")
        for stem, reader in readers.items():
            row = [reader_alone(runs, reader, judged)]
            for setting in (fixed_weight([reader], OLD_DEFAULT), without_gold([reader], DEFAULT_SCALE, runs),
                            with_gold([reader], DEFAULT_SCALE, runs)):
                row.append(fused_scores(runs, setting, bias, judged, args.folds)[0].mean())
            (cal,) = calibrate_readers([reader], *runs[0])
            print(f"| {stem} | " + " | ".join(f"{x:.4f}" for x in row) + f" | {cal.calibration.reliability()} |",
                  flush=True)
        print(f"\nScale on the log-likelihood ratios, no gold ({name}); nested: each outer fold takes the scale best "
              "on its training topics, pooled over the readers not trained on train\n")
        untrained = {stem: r for stem, r in readers.items() if not stem.startswith(TRAINED_ON_TRAIN)}
        if untrained:
            makes = [lambda s, r=r, runs=runs: without_gold([r], s, runs) for r in untrained.values()]
            means, nested, chosen = scale_choice(makes, runs, bias, judged, args.folds)
            print("| reader | " + " | ".join(f"scale {s:g}" for s in SCALES) + " |")
            print("|---|" + "---|" * len(SCALES))
            for stem, row in zip(untrained, means):
                print(f"| {stem} | " + " | ".join(f"{m:.4f}" for m in row.values()) + " |")
            print("| mean | " + " | ".join(f"{np.mean([m[s] for m in means]):.4f}" for s in SCALES) + " |")
            print(f"\nNested over the pooled readers: {nested:.4f}, scales chosen per outer fold {chosen}\n", flush=True)
        print(f"\nSeveral readers at once ({name})\n")
        print(f"| readers | each alone | weight {OLD_DEFAULT} each | no gold, joint EM | gold of other topics |")
        print("|---|---|---|---|---|")
        for combo in COMBINATIONS:
            if not all(c in readers for c in combo):
                continue
            chosen = [readers[c] for c in combo]
            alone = " / ".join(f"{reader_alone(runs, r, judged):.4f}" for r in chosen)
            row = [fused_scores(runs, s, bias, judged, args.folds)[0].mean()
                   for s in (fixed_weight(chosen, OLD_DEFAULT), without_gold(chosen, DEFAULT_SCALE, runs),
                             with_gold(chosen, DEFAULT_SCALE, runs))]
            print(f"| {' + '.join(combo)} | {alone} | " + " | ".join(f"{x:.4f}" for x in row) + " |", flush=True)


def small_topics(analyses, models, readers, dev, bias, folds, sizes, seed=0) -> None:
    """The dev questions of each topic cut into topics of k (seeded), each answered on its own: its readers
    calibrated without gold on its k questions alone, at each scale."""
    untrained = {stem: r for stem, r in readers.items() if not stem.startswith(TRAINED_ON_TRAIN)}
    for k in sizes:
        runs = []
        rng = random.Random(seed)
        for analysis, model in zip(analyses, models):
            idx = [i for i, q in enumerate(analysis.topic.questions) if q.qid in dev]
            rng.shuffle(idx)
            for start in range(0, len(idx), k):
                piece = subset_analysis(analysis, idx[start:start + k])
                runs.append(([piece], [edge_scores(piece.table, model)]))
        judged = set(dev)
        structure = fused_scores(runs, structure_only, bias, judged, folds)[0].mean()
        print(f"\n## dev questions in topics of {k}, each calibrated alone ({len(runs)} topics): structure alone "
              f"{structure:.4f}\n")
        print(f"| reader | alone | weight {OLD_DEFAULT} | " + " | ".join(f"no gold, scale {s:g}" for s in SCALES) + " |")
        print("|---|---|---|" + "---|" * len(SCALES))
        means = []
        for stem, reader in untrained.items():
            row = [reader_alone(runs, reader, judged),
                   fused_scores(runs, fixed_weight([reader], OLD_DEFAULT), bias, judged, folds)[0].mean()]
            row += [fused_scores(runs, without_gold([reader], s, runs), bias, judged, folds)[0].mean() for s in SCALES]
            means.append(row)
            print(f"| {stem} | " + " | ".join(f"{x:.4f}" for x in row) + " |", flush=True)
        print("| mean | " + " | ".join(f"{x:.4f}" for x in np.mean(means, axis=0)) + " |")


if __name__ == "__main__":
    main()
