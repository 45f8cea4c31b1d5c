"""One topic through the whole path: text -> events -> graph -> features -> scores -> answer set."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from .data import Topic
from .dates import later_pairs
from .embed import DEFAULT_ENCODER, encode
from .graph import build_graph, gold_pair_labels
from .reason import SolverParams, Solution, solve_topic
from .scoring import EdgeScorer, PairTable, pair_table


@dataclass
class TopicAnalysis:
    """Everything about a topic that does not depend on the trained scorer."""

    topic: Topic
    graph: nx.DiGraph
    table: PairTable
    after: set[tuple[int, int]]

    def gold(self) -> np.ndarray:
        """Gold cause labels of the candidate pairs, in table order (topics with gold answers only)."""
        labels = gold_pair_labels(self.topic, self.graph)
        return np.array([labels[p] for p in self.table.pairs], dtype=bool)


def analyse_topic(topic: Topic, encoder: str = DEFAULT_ENCODER) -> TopicAnalysis:
    graph = build_graph(topic)
    vectors = encode([graph.nodes[n]["text"] for n in graph], encoder)
    table = pair_table(graph, vectors)
    texts = {n: graph.nodes[n]["text"] for n in graph}
    after = later_pairs(texts, table.pairs)
    for e, t in table.pairs:
        graph.edges[e, t]["dated_after"] = (e, t) in after
    return TopicAnalysis(topic, graph, table, after)


def answer_topic(
    analysis: TopicAnalysis,
    scorer: EdgeScorer,
    without: frozenset[str] = frozenset(),
    params: SolverParams = SolverParams(),
    time_limit: float | None = None,
) -> tuple[dict[tuple[int, int], float], Solution]:
    """Score every candidate edge and solve the topic; returns the edge scores and the solution."""
    probs = scorer.predict_proba(analysis.table)
    scores = {pair: float(p) for pair, p in zip(analysis.table.pairs, probs)}
    solution = solve_topic(analysis.graph, scores, analysis.after, without, params, time_limit)
    return scores, solution
