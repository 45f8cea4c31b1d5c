"""Stage 4, analysis: one topic from text to graph and pair features, everything that does not depend on the
trained scorer or the rules (and so is what the cache holds)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

import networkx as nx
import numpy as np

from ..data import Topic
from ..text.dates import later_pairs
from ..config import DEFAULT_ENCODER
from ..text.embed import encode
from ..text.evidence import EVIDENCE_FEATURES, best_sentences, pair_evidence, relevance
from ..text.extract import TopicExtraction, extract_topic
from ..graph.topic import build_graph, candidate_pairs, gold_pair_labels
from ..graph.features import PairTable, pair_table
from ..graph.timeline import Timeline, build_timeline, timeline_graph


@dataclass
class TopicAnalysis:
    """Everything about a topic that does not depend on the trained scorer."""

    topic: Topic
    graph: nx.DiGraph
    table: PairTable
    after: set[tuple[int, int]]
    extraction: TopicExtraction
    evidence: dict[int, list[tuple[str, str]]]  # node -> its best (document title, sentence) pairs
    encoder: str = DEFAULT_ENCODER
    timeline: Timeline = field(default_factory=Timeline)

    def gold(self) -> np.ndarray:
        """Gold cause labels of the candidate pairs, in table order (topics with gold answers only)."""
        labels = gold_pair_labels(self.topic, self.graph)
        return np.array([labels[p] for p in self.table.pairs], dtype=bool)

    def timeline_graph(self):
        """The document timeline of the topic's events as a networkx graph (see graph.timeline)."""
        texts = {self.graph.nodes[n]["norm"]: self.graph.nodes[n]["text"] for n in self.graph}
        return timeline_graph(self.timeline, self.extraction, self.topic.documents, texts)


def analyse_topic(topic: Topic, encoder: str = DEFAULT_ENCODER, documents: bool = True) -> TopicAnalysis:
    """One way through a topic: first the text (spaCy over the documents, unless `documents` is False: then the
    analysis holds no evidence, no timeline and zero document features), then the graph of its questions, the
    events' evidence and timeline, and last the pair features, built once."""
    extraction = extract_topic(topic.documents if documents else [])
    graph = build_graph(topic)
    texts = [graph.nodes[n]["text"] for n in graph]
    vectors = encode(texts, encoder)
    pairs = candidate_pairs(graph)
    evidence, features, timeline = {}, None, Timeline()
    if extraction.sentences:
        rel = relevance(extraction, texts, vectors, encode([s.text for s in extraction.sentences], encoder))
        cue_vectors = (encode([c.cause for c in extraction.cues], encoder), encode([c.effect for c in extraction.cues], encoder))
        features = pair_evidence(extraction, rel, pairs, vectors, cue_vectors)
        for node, hits in best_sentences(rel).best.items():
            evidence[node] = [(extraction.titles[extraction.sentences[i].doc], extraction.sentences[i].text) for i, _ in hits]
        timeline = build_timeline(extraction, texts, [graph.nodes[n]["norm"] for n in graph], rel, vectors, cue_vectors)
    return _assemble(topic, graph, vectors, features, extraction, evidence, encoder, timeline)


def _assemble(topic, graph, vectors, features, extraction, evidence, encoder, timeline) -> TopicAnalysis:
    """The pair features of the graph's candidate edges, and the pairs whose event texts date the cause after
    its target."""
    table = pair_table(graph, vectors, features)
    after = later_pairs({n: graph.nodes[n]["text"] for n in graph}, table.pairs)
    return TopicAnalysis(topic, graph, table, after, extraction, evidence, encoder, timeline)


def subset_analysis(analysis: TopicAnalysis, questions: list[int], vectors: np.ndarray | None = None) -> TopicAnalysis:
    """The analysis of the same topic restricted to some of its questions (by index): the documents' evidence
    is reused, the graph and its structure features are rebuilt. `vectors`: the embeddings of the topic's
    nodes (row i for node i), so that many subsets of one topic need not encode its events again."""
    topic = replace(analysis.topic, questions=[analysis.topic.questions[i] for i in sorted(questions)])
    graph = build_graph(topic)
    old = {analysis.graph.nodes[n]["norm"]: n for n in analysis.graph}
    to_old = {n: old[graph.nodes[n]["norm"]] for n in graph}
    vectors = (encode([graph.nodes[n]["text"] for n in graph], analysis.encoder) if vectors is None
               else vectors[[to_old[n] for n in graph]])
    rows = {p: i for i, p in enumerate(analysis.table.pairs)}
    raw = analysis.table.evidence[:, : len(EVIDENCE_FEATURES)]
    features = np.array([raw[rows[(to_old[e], to_old[t])]] for e, t in candidate_pairs(graph)]).reshape(-1, raw.shape[1])
    evidence = {n: analysis.evidence[to_old[n]] for n in graph if to_old[n] in analysis.evidence}
    return _assemble(topic, graph, vectors, features, analysis.extraction, evidence, analysis.encoder, analysis.timeline)
