"""The events the documents tell, beside the questions' events: each clause that a causal or temporal cue relates
("X led to Y", "Y because of X", "After X, Y") is a document event, the cue a directed edge between two of them
with its sentence, and each question event is linked to the document events that stand for it (the cosine of
their embeddings). `document_graph` joins them to the topic's question graph, as the page shows it."""

from __future__ import annotations

import re
from dataclasses import dataclass

import networkx as nx
import numpy as np

from ..data import normalize_text
from ..text.dates import date_text
from ..text.extract import CueMatch, TopicExtraction
from .features import SOURCE_MIN

LINK_MIN = SOURCE_MIN  # the cosine at which a document event stands for a question event, as a sentence does
LINKS_KEPT = 3  # the document events linked to each question event, best first


@dataclass(frozen=True)
class DocumentEvents:
    """Document events and their edges. `texts[i]` is event i's clause and `sentences[i]` the topic sentence
    that first tells it; `edges` are (cause, effect, sentence, cue, kind) with kind "causal" or "temporal";
    `links` are (question event, document event, cosine), the LINKS_KEPT best of each question event at
    LINK_MIN or more."""

    texts: tuple[str, ...]
    sentences: tuple[int, ...]
    edges: tuple[tuple[int, int, int, str, str], ...]
    links: tuple[tuple[int, int, float], ...]

    def subset(self, events: list[int]) -> DocumentEvents:
        """The same document events, linked to a subset of the question events (the new node i is the old node
        `events[i]`)."""
        new = {old: i for i, old in enumerate(events)}
        return DocumentEvents(self.texts, self.sentences, self.edges,
                              tuple((new[q], d, c) for q, d, c in self.links if q in new))


def read_document_events(extraction: TopicExtraction, cue_vectors: dict[CueMatch, tuple[np.ndarray, np.ndarray]],
                         event_vectors: np.ndarray) -> DocumentEvents:
    """The document events of a topic's cues (`cue_vectors`: each cue's cause and effect clause embeddings), linked
    to the question events whose embeddings are `event_vectors` (one row per graph node)."""
    ids: dict[str, int] = {}
    texts: list[str] = []
    sentences: list[int] = []
    vectors: list[np.ndarray] = []

    def event(clause: str, vector: np.ndarray, sentence: int) -> int:
        text = re.sub(r"\s+([,.;:!?%)])", r"\1", " ".join(clause.split()))  # the parse's tokens joined by spaces
        norm = normalize_text(text)
        if norm not in ids:
            ids[norm] = len(texts)
            texts.append(text)
            sentences.append(sentence)
            vectors.append(vector)
        return ids[norm]

    edges: dict[tuple[int, int], tuple[int, int, int, str, str]] = {}
    for cue in extraction.cues:
        cause_vector, effect_vector = cue_vectors[cue]
        cause, effect = event(cue.cause, cause_vector, cue.sentence), event(cue.effect, effect_vector, cue.sentence)
        if cause != effect:
            edges.setdefault((cause, effect), (cause, effect, cue.sentence, cue.cue, cue.kind))
    links: list[tuple[int, int, float]] = []
    if texts and len(event_vectors) and event_vectors.shape[1]:
        sims = event_vectors @ np.stack(vectors).T
        for q, row in enumerate(sims):
            best = [int(d) for d in np.argsort(-row, kind="stable")[:LINKS_KEPT] if row[d] >= LINK_MIN]
            links += [(q, d, round(float(row[d]), 3)) for d in best]
    return DocumentEvents(tuple(texts), tuple(sentences), tuple(edges.values()), tuple(links))


def document_graph(graph: nx.DiGraph, events: DocumentEvents, extraction: TopicExtraction) -> nx.DiGraph:
    """The topic's question graph with the document events joined: a node ("doc", i) per document event (`text`,
    `sentence`, `document`, `date`), an edge kind "stated" per cue between two of them (`cue`, `cue_kind`,
    `sentence`, `document`), and an edge kind "mentioned" from each question event to the document events that
    stand for it (`similarity`). The question graph's own nodes and candidate edges are kept as they are."""
    joined = graph.copy()
    for i, (text, s) in enumerate(zip(events.texts, events.sentences)):
        sentence = extraction.sentences[s]
        joined.add_node(("doc", i), text=text, kind="document event", sentence=sentence.text,
                        document=extraction.titles[sentence.doc], date=date_text(sentence.date))
    for cause, effect, s, cue, kind in events.edges:
        sentence = extraction.sentences[s]
        joined.add_edge(("doc", cause), ("doc", effect), kind="stated", cue=cue, cue_kind=kind,
                        sentence=sentence.text, document=extraction.titles[sentence.doc])
    for q, d, similarity in events.links:
        joined.add_edge(q, ("doc", d), kind="mentioned", similarity=similarity)
    return joined
