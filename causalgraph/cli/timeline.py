"""`python -m causalgraph.timeline --data DIR`: the documents' timeline measured on the labelled topics with
documents (topics 1-10, and 11-36 through the partial evidence of train-evidence/): how many candidate pairs it
orders, how often a gold cause is placed after its target, and the grouped-CV score of the answer set program
with and without its edges (the weights of rules/temporal.lp and rules/directness.lp chosen in each outer fold).
With --graph-out FILE (.graphml or .json), it writes the timeline graphs of a split's topics instead."""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from collections import Counter
from pathlib import Path

import networkx as nx
import numpy as np
from tqdm import tqdm

from ..analysis.analyse import TopicAnalysis
from ..analysis.cache import AnalysisCache
from ..config import default_cache_dir
from ..data import DataError, load_labelled, load_split, question_score
from ..graph.timeline import graph_bytes, graph_format
from ..learn.crossval import fold_scorers, held_out_regimes, resized_sets
from ..learn.fusion import nested_choice, question_topics
from ..reason.solve import SolverParams, solve_analysis
from ..run.output import check_outputs, write_files
from .common import cv_parser, data_files, parse_topics, run_command, shipped_bias, target_shapes

ORDER_GRID = (0, 100, 300, 1000)
MEDIATED_GRID = (0, 100, 300)


def order_report(analyses: list[TopicAnalysis]) -> list[str]:
    """Coverage and accuracy of the timeline's order over the candidate pairs, by group of topics and by the
    basis of the order (the dates of the two events' mentions, or a connective or causal cue)."""
    lines = ["| topics | candidate pairs | ordered by the documents | basis | gold causes ordered | gold causes placed after their target | other pairs ordered | other pairs placed after their target |",
             "|---|---|---|---|---|---|---|---|"]
    groups = {"1-10 (full documents)": [a for a in analyses if a.topic.topic_id <= 10],
              "11-36 (train-evidence passages)": [a for a in analyses if a.topic.topic_id > 10]}
    share = lambda x, n: f"{x} ({x / n:.1%})" if n else "0"
    for name, group in groups.items():
        pairs, counts = 0, Counter()  # (basis, gold, placed after) -> pairs
        for a in group:
            norm = {n: a.graph.nodes[n]["norm"] for n in a.graph}
            for (e, t), gold in zip(a.table.pairs, a.gold()):
                pairs += 1
                for key, after in (((norm[t], norm[e]), True), ((norm[e], norm[t]), False)):
                    if key in a.timeline.before:
                        counts[("dates" if a.timeline.before[key].basis == "dates" else "cues", bool(gold), after)] += 1
        ordered = sum(counts.values())
        for basis in ("dates", "cues"):
            n = {(g, x): counts[(basis, g, x)] for g in (True, False) for x in (True, False)}
            gold, other = n[(True, True)] + n[(True, False)], n[(False, True)] + n[(False, False)]
            lines.append(f"| {name} | {pairs} | {share(ordered, pairs)} | {basis} | {gold} | {share(n[(True, True)], gold)} "
                         f"| {other} | {share(n[(False, True)], other)} |")
    return lines


def grid_scores(scored, edges, bias: int) -> dict[tuple[int, int], np.ndarray]:
    """Per-question held-out scores at every (doc_order, mediated) pair of the grid."""
    out = {}
    for order, mediated in tqdm(list(itertools.product(ORDER_GRID, MEDIATED_GRID)), desc="weight grid", unit="setting"):
        params = SolverParams(bias=bias, doc_order=order, mediated=mediated)
        out[(order, mediated)] = np.array([question_score(solution.answers[q.qid], q.gold)
                                           for a, e in zip(scored, edges) for solution in [solve_analysis(a, e, params=params)]
                                           for q in a.topic.questions])
    return out


def export(args: argparse.Namespace) -> int:
    graph_format(args.graph_out)  # a wrong suffix is an error before any work
    topics = load_split(args.data, args.split, parse_topics(args.topics) if args.topics else None)
    check_outputs({"--graph-out": args.graph_out}, data_files(args.data))
    cache = AnalysisCache.open(default_cache_dir(), args.encoder, documents=True)
    graphs = []
    for topic in tqdm(topics, desc="timelines", unit="topic"):
        graph = cache.analyse(topic)[0].timeline_graph()
        graphs.append(nx.relabel_nodes(graph, {n: f"t{topic.topic_id}:{n}" for n in graph}))
    graph = nx.compose_all(graphs) if graphs else nx.MultiDiGraph()
    write_files({args.graph_out: graph_bytes(graph, args.graph_out)})
    kinds = [k for _, _, k in graph.edges(data="kind")]
    print(f"wrote {args.graph_out}: {len(topics)} topics, {graph.number_of_nodes()} nodes, "
          f"{kinds.count('before')} before and {kinds.count('causes')} causes edges")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = cv_parser("python -m causalgraph.timeline", __doc__)
    parser.add_argument("--graph-out", type=Path, help="write the timeline graphs of --split here (.graphml or .json)")
    parser.add_argument("--split", default="sample", help="the split whose topics --graph-out exports")
    parser.add_argument("--topics", help="with --graph-out: only these topic ids (e.g. 1,3-5)")
    args = parser.parse_args(argv)
    try:
        if args.graph_out is not None:
            return export(args)
        topics = load_labelled(args.data, evidence=True)
        shapes = target_shapes(args.data, None if args.resize_to == "none" else args.resize_to)
    except (DataError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    start = time.time()
    topics = [t for t in topics if t.documents]
    cache = AnalysisCache.open(default_cache_dir(), args.encoder, documents=True)
    analyses = [cache.analyse(t)[0] for t in tqdm(topics, desc="analysing", unit="topic")]
    print(f"## The documents' order of the candidate pairs ({len(analyses)} labelled topics with documents)\n")
    print("\n".join(order_report(analyses)))
    extra, held = resized_sets(analyses, shapes)
    models, bias = fold_scorers(analyses, args.folds, extra=extra), shipped_bias()
    print(f"\n## Grouped {args.folds}-fold CV (bias {bias}; doc_order x mediated grid {ORDER_GRID} x {MEDIATED_GRID}, "
          "chosen per outer fold)\n")
    print("| held-out topics | without the documents' edges | with them | settings chosen |")
    print("|---|---|---|---|")
    names = {"whole": "whole", "test-shaped": "cut to the test shapes"}
    for regime, scored, edges in held_out_regimes(analyses, models, held):
        by_setting = grid_scores(scored, edges, bias)
        with_docs, chosen = nested_choice(by_setting, question_topics(scored), args.folds, size=sum)
        print(f"| {names[regime]} | {by_setting[(0, 0)].mean():.4f} | {with_docs:.4f} | {chosen} |", flush=True)
    print(f"\n({time.time() - start:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
