"""`python -m lab.solver.timeline --data DIR`: the documents' timeline measured on the labelled topics with
documents (topics 1-10, and 11-36 through the partial evidence of train-evidence/): how many candidate pairs it
orders, how often a gold cause is placed after its target, and the grouped-CV score of the answer set program
with and without its edges (the weights of rules/temporal.lp and rules/directness.lp chosen in each outer fold).
With --graph-out FILE (.graphml or .json), it writes the timeline graphs of a split's topics instead."""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from causalgraph.config import default_cache_dir
from causalgraph.data import SPLITS, DataError, load_split
from causalgraph.data.files import write_files
from causalgraph.cli.common import check_run_outputs, parse_topics, plural, run_command
from causalgraph.cli.cv import cv_inputs, cv_parser


def build_parser() -> argparse.ArgumentParser:
    parser = cv_parser("timeline", __doc__)
    parser.prog = "python -m lab.solver.timeline"
    parser.add_argument("--graph-out", type=Path, help="write the timeline graphs of --split here (.graphml or .json)")
    parser.add_argument("--split", default="sample", choices=SPLITS, help="the split whose topics --graph-out exports")
    parser.add_argument("--topics", type=parse_topics, help="with --graph-out: only these topic ids (e.g. 1,3-5)")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def analysed(topics, encoder: str, progress: bool, desc: str):
    from tqdm import tqdm

    from causalgraph.analysis.cache import AnalysisCache

    cache = AnalysisCache.open(default_cache_dir(), encoder, documents=True)
    return [cache.analyse(t)[0] for t in tqdm(topics, desc=desc, unit="topic", disable=not progress)]


def export(args: argparse.Namespace) -> int:
    from causalgraph.evidence.timeline import graph_bytes, graph_format
    from lab.solver.timeline_cv import timeline_graphs

    graph_format(args.graph_out)  # a wrong suffix is an error before any work
    topics = load_split(args.data, args.split, args.topics)
    check_run_outputs(args, {"--graph-out": args.graph_out})
    graph = timeline_graphs(analysed(topics, args.encoder, not args.quiet, "timelines"))
    write_files({args.graph_out: graph_bytes(graph, args.graph_out)})
    kinds = [k for _, _, k in graph.edges(data="kind")]
    print(f"wrote {args.graph_out}: {plural(len(topics), 'topic')}, {plural(graph.number_of_nodes(), 'node')}, "
          f"{plural(kinds.count('before'), 'before edge')} and {plural(kinds.count('causes'), 'cause edge')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.topics and args.graph_out is None:
        parser.error("--topics applies to --graph-out only")
    if args.graph_out is not None:
        try:
            return export(args)
        except (DataError, OSError, ValueError) as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    from lab.solver.timeline_cv import MEDIATED_GRID, ORDER_GRID, order_report, timeline_cv

    inputs = cv_inputs(args, evidence=True)
    if inputs is None:
        return 2
    topics, shapes, bias = inputs
    start = time.time()
    analyses = analysed([t for t in topics if t.documents], args.encoder, not args.quiet, "analysing")
    print(f"## The documents' order of the candidate pairs ({len(analyses)} labelled topics with documents)\n")
    print("\n".join(order_report(analyses)))
    print(f"\n## Grouped {args.folds}-fold CV (bias {bias}; doc_order x mediated grid {ORDER_GRID} x {MEDIATED_GRID}, "
          "chosen per outer fold)\n")
    print("| held-out topics | without the documents' edges | with them | settings chosen |")
    print("|---|---|---|---|", flush=True)
    names = {"whole": "whole", "test-shaped": "cut to the test shapes"}
    for regime, without_docs, with_docs, chosen in timeline_cv(analyses, args.folds, shapes, bias, not args.quiet):
        print(f"| {names[regime]} | {without_docs:.4f} | {with_docs:.4f} | {chosen} |", flush=True)
    print(f"\n({time.time() - start:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
