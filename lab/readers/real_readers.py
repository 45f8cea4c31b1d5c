"""Real readers fused on topics in which every question has the reader's judgement: the dev answers of eleven
public systems (`readers-dev/`, README there) on the dev-only topics (each labelled topic cut to its dev
questions), each answered with the edge scores of the structure model that did not see its topic (grouped CV over
train + dev + sample, repeated with the topics shuffled into folds), of the kind `train` ships (the size blend of a
structure scorer and an evidence scorer, with the shipped bands; topics 11-36 read train-evidence/), trained with copies
cut to the answered topics' shapes. The regime: the structure model's calibration on the open options (gold), on
the settled ones (the rules' labels) and when trained on the dev questions alone. Per reader: its reliability on the
open options against gold and as estimated without gold; fused: the structure alone, the reader alone, the best fixed
weight by nested grouped CV, calibrated from the gold of the other folds' topics (`calibrate`) and the gold-free
default, and how often the bar of issue 23 would hold on other draws of such topics (its resolution); the scale, with
every question judged, with one in six, and with every question judged but the estimate resting on one in six; shrinkage
towards a fixed weight and variants of the estimate (measured, not shipped); the guard on small topics; several readers
at once; whether a reader answers every question, and a reader model conditioned on a non-empty answer (measured, not
shipped). The structure model comes from one place, `causalgraph.measure.calibration.structure_edges`. The sections live
in real_regime.py, real_fused.py and real_variants.py, what they share in real_common.py.

    python -m lab.readers.real_readers --data ../shared/aer [--readers a,b] [--folds 5] [--repeats 10] [--sections ...]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from lab.common import run_benchmark
from lab.readers.real_fused import fused, guard, partial, resolution, scales, several, shrinkage
from lab.readers.real_regime import regime, reliability, test_shaped
from lab.readers.real_variants import answer_sets, rank, variants

from causalgraph.data import load_split
from causalgraph.measure.calibration import answer_analyses, judged_topics, structure_edges
from causalgraph.measure.inputs import cv_inputs, shipped_biases
from causalgraph.learn.bands import blend_copies
from causalgraph.learn.crossval import TopicShape
from causalgraph.readers.scores import load_reader_scores

# Readers trained on train, whose events dev repeats: they stand for a strong reader, but their dev answers are
# recall, so they are reported apart and no constant is chosen on them.
TRAINED_ON_TRAIN = ("gpt41mini", "deberta")
SECTIONS = ("regime", "reliability", "fused", "resolution", "shrinkage", "variants", "rank", "answer-sets", "scale",
            "partial", "guard", "several", "test-shaped")
NEED_FUSED = ("resolution", "shrinkage", "variants", "rank", "answer-sets")  # measured against `fused`'s nested weight


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--repeats", type=int, default=10, help="grouped CV repeated with these many seeds")
    parser.add_argument("--readers", help="comma-separated reader file stems (default: all)")
    parser.add_argument("--sections", default=",".join(SECTIONS),
                        help=f"comma-separated, of {', '.join(SECTIONS)} (default: all; {', '.join(NEED_FUSED)} need "
                             "fused)")
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
    print(f"precision bias by topic size {[bias(n) for n in (1, 5, 20, 40)]} at 1, 5, 20, 40 questions; grouped "
          f"{args.folds}-fold CV repeated {args.repeats} times (seeds 0-{args.repeats - 1}); every figure is the mean "
          "over the repeats\n", flush=True)
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


if __name__ == "__main__":
    run_benchmark(main)
