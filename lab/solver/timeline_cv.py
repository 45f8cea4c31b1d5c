"""The documents' timeline measured on labelled topics with documents: how many candidate pairs it orders, how
often it places a gold cause after its target, and the grouped-CV score of the answer set program with and
without its edges (the weights of rules/temporal.lp and rules/directness.lp chosen in each outer fold)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterator

import networkx as nx
import numpy as np
from tqdm import tqdm

from causalgraph.analysis.analyse import TopicAnalysis
from causalgraph.data import question_score
from causalgraph.learn.crossval import fold_scorers, held_out_regimes, resized_sets
from causalgraph.reason.solve import SolverParams, solve_analysis
from causalgraph.measure.fusion import nested_choice, question_topics

ORDER_GRID = (0, 100, 300, 1000)
MEDIATED_GRID = (0, 100, 300)


def order_report(analyses: list[TopicAnalysis]) -> list[str]:
    """Coverage and accuracy of the timeline's order over the candidate pairs, by group of topics and by the
    basis of the order (the dates of the two events' mentions, or a connective or causal cue): markdown rows."""
    lines = ["| topics | candidate pairs | ordered by the documents | basis | gold causes ordered | gold causes placed "
             "after their target | other pairs ordered | other pairs placed after their target |",
             "|---|---|---|---|---|---|---|---|"]
    groups = {"1-10 (full documents)": [a for a in analyses if a.topic.topic_id <= 10],
              "11-36 (train-evidence passages)": [a for a in analyses if a.topic.topic_id > 10]}

    def share(x: int, n: int) -> str:
        return f"{x} ({x / n:.1%})" if n else "0"

    for name, group in groups.items():
        pairs, counts = 0, Counter[tuple[str, bool, bool]]()  # (basis, gold, placed after) -> pairs
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
            lines.append(f"| {name} | {pairs} | {share(ordered, pairs)} | {basis} | {gold} | "
                         f"{share(n[(True, True)], gold)} | {other} | {share(n[(False, True)], other)} |")
    return lines


def grid_scores(scored, edges, bias: int, progress: bool = True) -> dict[tuple[int, int], np.ndarray]:
    """Per-question held-out scores at every (doc_order, mediated) pair of the grid."""
    out = {}
    grid = list(itertools.product(ORDER_GRID, MEDIATED_GRID))
    for order, mediated in tqdm(grid, desc="weight grid", unit="setting", disable=not progress):
        params = SolverParams(bias=bias, doc_order=order, mediated=mediated)
        out[(order, mediated)] = np.array([question_score(solution.answers[q.qid], q.gold)
                                           for a, e in zip(scored, edges)
                                           for solution in [solve_analysis(a, e, params=params)]
                                           for q in a.topic.questions])
    return out


def timeline_cv(analyses: list[TopicAnalysis], folds: int, shapes, bias: int,
                progress: bool = True) -> Iterator[tuple[str, float, float, list]]:
    """Per regime ("whole", then "test-shaped" where `shapes` are given), as it is measured: the held-out score
    without the documents' edges, with them (the grid setting chosen per outer fold) and the settings chosen."""
    extra, held = resized_sets(analyses, shapes)
    models = fold_scorers(analyses, folds, extra=extra)
    for regime, scored, edges in held_out_regimes(analyses, models, held):
        by_setting = grid_scores(scored, edges, bias, progress)
        with_docs, chosen = nested_choice(by_setting, question_topics(scored), folds, size=sum)
        yield regime, float(by_setting[(0, 0)].mean()), with_docs, chosen


def timeline_graphs(analyses: list[TopicAnalysis]) -> nx.MultiDiGraph:
    """The timeline graphs of the topics as one graph, each node named after its topic (`t37:...`)."""
    graphs = []
    for a in analyses:
        graph = a.timeline_graph()
        graphs.append(nx.relabel_nodes(graph, {n: f"t{a.topic.topic_id}:{n}" for n in graph}))
    return nx.compose_all(graphs) if graphs else nx.MultiDiGraph()
