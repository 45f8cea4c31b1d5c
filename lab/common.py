"""What the lab's scripts share: how they run and fail, their options, the labelled topics' analyses with the
copies cut to the test split's shapes (see causalgraph.learn.crossval.resized_sets), and the shared data folder."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from causalgraph.data import DataError

SHARED = Path(__file__).resolve().parents[2] / "shared"  # the data beside the checkout: ../shared


def run_benchmark(main) -> None:
    """Run a benchmark's `main` and exit with its code; data it cannot read ends it with one line naming the file
    or folder (exit 2), not a traceback."""
    try:
        code = main()
    except (DataError, OSError) as err:
        print(f"{Path(sys.argv[0]).name}: error: {err}", file=sys.stderr)
        code = 2
    sys.exit(code)


def labelled_cv(doc: str, documents: bool = True, evidence: bool = False):
    """Parse --data and --folds; return (args, analyses, test shapes, training copies, held-out copies). Without
    `documents`, the analyses read no document; with `evidence`, topics 11-36 read train-evidence/ as theirs (as
    `train` reads them for the shipped scorer)."""
    from causalgraph.config import DEFAULT_ENCODER
    from causalgraph.data import load_labelled
    from causalgraph.learn.crossval import resized_sets
    from causalgraph.measure.inputs import labelled_analyses, target_shapes

    parser = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", required=True)
    parser.add_argument("--folds", type=int, default=5)
    args = parser.parse_args()
    topics = load_labelled(args.data, evidence=evidence)
    analyses = labelled_analyses(topics, DEFAULT_ENCODER, documents=documents)
    shapes = target_shapes(args.data, "test")
    extra, held = resized_sets(analyses, shapes)
    return args, analyses, shapes, extra, held


def print_table(head: str, columns: list[str], rows) -> None:
    """A markdown table: `head` over the row names, one column per entry of `columns`, cells (numbers) to four
    places; `rows` are (name, cells) pairs."""
    print(f"| {head} | " + " | ".join(columns) + " |")
    print("|---|" + "---|" * len(columns))
    for name, cells in rows:
        print(f"| {name} | " + " | ".join(f"{c:.4f}" for c in cells) + " |")
