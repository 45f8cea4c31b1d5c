"""Stage 5, analysis: one topic from text to graph, evidence and pair features, everything that does not depend
on the trained scorer or the rules (and so is what the cache holds)."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from typing import Protocol

import networkx as nx
import numpy as np

from ..config import DEFAULT_ENCODER
from ..data import Document, Topic
from ..evidence.events import document_graph
from ..evidence.retrieve import DocumentVectors, embed_readings
from ..evidence.topic import DocumentEvidence, read_evidence
from ..evidence.timeline import Timeline, timeline_graph
from ..graph.features import structure_features
from ..graph.topic import build_graph, candidate_pairs, gold_pair_labels
from ..text.embed import encode
from ..text.extract import DocumentReading, TopicExtraction, read_documents
from .table import PairTable, pair_table



class DocumentStore(Protocol):
    """Reads documents and embeds their sentences (by its encoder, or `encoder`), one document at a time
    (AnalysisCache serves both from disk)."""

    def read(self, documents: list[Document]) -> list[DocumentReading]: ...

    def vectors(self, documents: list[Document], readings: list[DocumentReading],
                encoder: str | None = None) -> list[DocumentVectors]: ...


@dataclass(frozen=True)
class Uncached:
    """A DocumentStore without a cache: spaCy reads, `encoder` embeds."""

    encoder: str

    def read(self, documents: list[Document]) -> list[DocumentReading]:
        return read_documents(documents)

    def vectors(self, documents: list[Document], readings: list[DocumentReading],
                encoder: str | None = None) -> list[DocumentVectors]:
        return embed_readings(readings, encoder or self.encoder)


@dataclass(frozen=True)
class SecondReading:
    """The documents' evidence as a second encoder reads them (the same sentences, events and pairs), and the
    events' embeddings by it: the second reading of a scorer that reads the documents twice (learn/scorer.py,
    ReadingBlend)."""

    encoder: str
    evidence: DocumentEvidence
    vectors: np.ndarray

    def subset(self, events: list[int], pairs: list[tuple[int, int]]) -> SecondReading:
        return SecondReading(self.encoder, self.evidence.subset(events, pairs), self.vectors[events])


@dataclass
class TopicAnalysis:
    """Everything about a topic that does not depend on the trained scorer. `topic` keeps its documents'
    titles, sources and dates but not their text, which `extraction` holds as read; `vectors[i]` is the
    embedding of node i; `doc_evidence` is what the documents say about its events and pairs; `second`, where
    the documents were read with a second encoder too, that reading (its features are the table's second)."""

    topic: Topic
    graph: nx.DiGraph
    table: PairTable
    extraction: TopicExtraction
    doc_evidence: DocumentEvidence
    vectors: np.ndarray
    encoder: str = DEFAULT_ENCODER
    second: SecondReading | None = None

    @property
    def after(self) -> frozenset[tuple[int, int]]:
        """The candidate pairs whose texts' own dates place the cause after its target."""
        return self.doc_evidence.after

    @property
    def timeline(self) -> Timeline:
        return self.doc_evidence.timeline

    @property
    def evidence(self) -> dict[int, list[tuple[str, str]]]:
        """Each event's best sentences, as (document title, sentence) pairs."""
        return self.doc_evidence.mentions

    def gold(self) -> np.ndarray:
        """Gold cause labels of the candidate pairs, in table order (topics with gold answers only)."""
        labels = gold_pair_labels(self.topic, self.graph)
        return np.array([labels[p] for p in self.table.pairs], dtype=bool)

    def document_graph(self) -> nx.DiGraph:
        """The question graph with the events the documents tell joined to it (evidence.events)."""
        return document_graph(self.graph, self.doc_evidence.events, self.extraction)

    def timeline_graph(self):
        """The document timeline of the topic's events as a networkx graph (see evidence.timeline)."""
        texts = {self.graph.nodes[n]["norm"]: self.graph.nodes[n]["text"] for n in self.graph}
        return timeline_graph(self.timeline, self.extraction, self.topic.documents, texts)


def without_text(topic: Topic) -> Topic:
    """The topic with its documents' contents dropped (their titles, sources and dates kept)."""
    return replace(topic, documents=[replace(d, content="") for d in topic.documents])


# The stages of an analysis, as `analyse_topic` times them: spaCy's reading of the documents, the embedding of
# their sentences and cue clauses, and the rest (the graph, the events' embeddings, the evidence and the features).
ANALYSIS_STAGES = ("reading", "embedding", "evidence")


def analyse_topic(topic: Topic, encoder: str = DEFAULT_ENCODER, documents: bool = True,
                  store: DocumentStore | None = None, seconds: dict[str, float] | None = None,
                  second_encoder: str | None = None, statements: bool = False) -> TopicAnalysis:
    """One way through a topic: its documents read by spaCy and their sentences embedded (through `store`, which a
    cache may serve; none when `documents` is False: then the analysis holds no evidence from them), the graph
    of its questions, the events' embeddings, the evidence of every candidate pair and the pair features, each
    built once; with `second_encoder`, the embeddings, evidence and features once more by that encoder (the
    same spaCy reading); with `statements`, the trained reader's statements too (evidence/reading.py). `seconds`,
    where given, gets the seconds of each of ANALYSIS_STAGES."""
    store = store or Uncached(encoder)
    docs = topic.documents if documents else []
    start = time.perf_counter()
    readings = store.read(docs)
    read = time.perf_counter()
    extraction = TopicExtraction.join(docs, readings)
    graph = build_graph(topic)
    texts, pairs = [graph.nodes[n]["text"] for n in graph], candidate_pairs(graph)
    vectors = encode(texts, encoder)
    embedded = DocumentVectors.join(store.vectors(docs, readings), vectors.shape[1])
    second = None
    if second_encoder:  # its float model read as it runs: the events are few, and the model is large
        second_vectors = encode(texts, second_encoder, streamed=True)
        second_embedded = DocumentVectors.join(store.vectors(docs, readings, second_encoder), second_vectors.shape[1])
    embedding = time.perf_counter()
    reader = None
    if statements and docs:  # imported here: a warm run (its analysis cached) loads no torch
        from ..read.reader import shipped_reader

        reader = shipped_reader(quantized=True)
    evidence = read_evidence(extraction, embedded, graph, pairs, encoder, reader)
    if second_encoder:
        second = SecondReading(second_encoder, read_evidence(extraction, second_embedded, graph, pairs, second_encoder,
                                                             reader), second_vectors)
    analysis = _assemble(without_text(topic), graph, extraction, evidence, vectors, encoder, second)
    if seconds is not None:
        seconds.update(reading=read - start, embedding=embedding - read, evidence=time.perf_counter() - embedding)
    return analysis


def subset_analysis(analysis: TopicAnalysis, questions: list[int]) -> TopicAnalysis:
    """The analysis of the same topic restricted to some of its questions (by index): the graph and its
    structure features are rebuilt, the events' embeddings and the documents' evidence reused."""
    topic = replace(analysis.topic, questions=[analysis.topic.questions[i] for i in sorted(questions)])
    graph = build_graph(topic)
    old = {analysis.graph.nodes[n]["norm"]: n for n in analysis.graph}
    events = [old[graph.nodes[n]["norm"]] for n in graph]
    vectors = analysis.vectors[events]
    evidence = analysis.doc_evidence.subset(events, candidate_pairs(graph))
    second = analysis.second.subset(events, candidate_pairs(graph)) if analysis.second else None
    return _assemble(topic, graph, analysis.extraction, evidence, vectors, analysis.encoder, second)


def _assemble(topic: Topic, graph: nx.DiGraph, extraction: TopicExtraction, evidence: DocumentEvidence,
              vectors: np.ndarray, encoder: str, second: SecondReading | None = None) -> TopicAnalysis:
    """The analysis of a topic's graph: its pair table from the structure features and the evidence (and from the
    second reading's, as the table's second)."""
    table = pair_table(graph, structure_features(graph, vectors), evidence.features)
    if second is not None:
        table = table.with_second(pair_table(graph, structure_features(graph, second.vectors),
                                             second.evidence.features))
    return TopicAnalysis(topic, graph, table, extraction, evidence, vectors, encoder, second)
