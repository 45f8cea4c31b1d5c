"""`python -m lab.scorer.sizes`: the size curve. The labelled topics are cut into topics of k questions (seeded) and
every size, and the copies cut to the test split's shapes, is answered under grouped-by-topic CV, with folds
grouped by the original topic: the structure scorer, the size-aware one, each group of document evidence
features added, and each reader of --reader-scores alone and fused."""

from __future__ import annotations

import argparse
import sys
import time
from functools import partial
from pathlib import Path

from causalgraph.data import DataError
from causalgraph.cli.common import run_command
from causalgraph.cli.cv import cv_inputs, cv_parser


def parse_sizes(text: str) -> tuple[int | str | None, ...]:
    """--sizes: comma-separated question counts, 'whole' for whole topics and 'test-shaped' for the copies cut to
    the test split's shapes, e.g. 1,3,5,10,whole."""
    sizes: list[int | str | None] = []
    for part in (p.strip() for p in text.split(",") if p.strip()):
        if part == "whole":
            sizes.append(None)
        elif part == "test-shaped":
            sizes.append(part)
        elif part.isdigit() and int(part) > 0:
            sizes.append(int(part))
        else:
            raise argparse.ArgumentTypeError("--sizes takes positive integers, 'whole' and 'test-shaped', got "
                                             f"{part!r}")
    if not sizes:
        raise argparse.ArgumentTypeError(f"--sizes names no size: {text!r}")
    return tuple(dict.fromkeys(sizes))


def main(argv: list[str] | None = None) -> int:
    parser = cv_parser("sizes", __doc__, bias=True)
    parser.prog = "python -m lab.scorer.sizes"
    parser.add_argument("--sizes", type=parse_sizes, help="questions per cut topic, e.g. 1,3,5,10,whole,test-shaped "
                        "(default: every size of the curve)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the cuts")
    parser.add_argument("--reader-scores", type=Path, action="append", default=[], metavar="FILE",
                        help="another system's answers or probabilities on (some of) the labelled questions "
                             "(repeatable)")
    args = parser.parse_args(argv)
    from tqdm import tqdm  # after the options: --help stays fast

    from causalgraph.analysis.table import FEATURE_GROUPS
    from causalgraph.measure.inputs import labelled_analyses
    from lab.scorer.size_curve import SIZES, cut_all, format_curve, reader_rows, scorer_rows, size_name
    from causalgraph.graph.features import QUESTION_FEATURES, SIZE_FEATURES, STRUCTURE_FEATURES
    from causalgraph.learn.bands import SHIPPED_GROUPS, blend_copies, scorer_kinds
    from causalgraph.learn.crossval import SIZE_COPIES
    from causalgraph.learn.scorer import EdgeScorer
    from causalgraph.readers.scores import load_reader_files

    args.sizes = args.sizes or SIZES
    inputs = cv_inputs(args, evidence=True)  # 11-36 read train-evidence/ for the document rows
    if inputs is None:
        return 2
    topics, shapes, bias = inputs
    try:
        questions = {q.qid: q for t in topics for q in t.questions}
        readers = [(r.reader, r.judgements) for r in load_reader_files(args.reader_scores, questions)]
    except (DataError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    start = time.time()
    analyses = labelled_analyses(topics, args.encoder)
    today, sized, held = blend_copies(analyses, shapes)
    cuts = {k: (held or [[] for _ in analyses]) if k == "test-shaped" else cut_all(analyses, k, args.seed)
            for k in tqdm(args.sizes, desc="cutting topics", unit="size")}
    documents = STRUCTURE_FEATURES + FEATURE_GROUPS["documents"]
    # the groups of the documents' evidence; the trained reader's statements are read for a user's topics only
    # (evidence/reading.py), so AER data never has them
    groups = [g for g in FEATURE_GROUPS if g not in ("question", "size", "documents", "read statements")]
    shipped = scorer_kinds()[1].keywords["features"]  # the shipped evidence scorer's
    # (row, features, training copies); the readers are measured over the shipped evidence scorer
    configs = [
        ("structure: question features, test-shaped copies (the shipped structure scorer)", QUESTION_FEATURES, today),
        (f"structure, size-aware: + {', '.join(SIZE_FEATURES)}; + copies of {', '.join(map(str, SIZE_COPIES))} "
         "questions",
         STRUCTURE_FEATURES, sized),
        ("size-aware + documents", documents, sized),
        *[(f"size-aware + documents + {group}" + (" (the shipped evidence scorer)" if group in SHIPPED_GROUPS else ""),
           documents + FEATURE_GROUPS[group], sized) for group in groups],
        ("size-aware + every evidence group", documents + sum((FEATURE_GROUPS[g] for g in groups), ()), sized),
    ]
    rows, helds = [], None
    with tqdm(total=len(configs) * len(args.sizes), desc="scoring", unit="size") as bar:
        for name, features, extra in configs:
            made, by_size = scorer_rows(name, analyses, cuts, args.folds, partial(EdgeScorer, features=features), extra,
                                        bias, progress=bar)
            rows += made
            helds = by_size if features == shipped else helds
    assert helds is not None  # the shipped evidence scorer is measured
    for name, judgements in tqdm(readers, desc="readers", unit="reader"):
        rows += reader_rows(name, judgements, helds, args.folds, bias)
    print(f"Grouped-by-topic {args.folds}-fold CV over {len(topics)} topics (train + dev + sample), folds grouped by "
          f"the original topic; topics cut into topics of {', '.join(size_name(k) for k in args.sizes)} questions "
          f"(seed {args.seed}); bias {bias}; the reader rows are over the shipped evidence scorer\n")
    print(format_curve(rows, args.sizes))
    print(f"\n({time.time() - start:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
