"""The evidence of one topic, computed once: the sentences retrieved for each event, the evidence features of
every candidate pair with the sentences they were read from, the documents' timeline, the pairs whose texts' own
dates place the cause after its target (the two sources of rules/temporal.lp's dated order), and the events the
documents tell beside the questions' (evidence/events.py)."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from ..text.dates import later_pairs
from ..text.extract import TopicExtraction
from .events import DocumentEvents, read_document_events
from .features import EVIDENCE_FEATURES, PairReader, Source
from .retrieve import DocumentVectors, embed_events, retrieve
from .timeline import Timeline, build_timeline


@dataclass(frozen=True)
class DocumentEvidence:
    """What the documents (and the event texts' own dates) say about a topic's events and candidate pairs.
    `features[i]` and `sources[i]` belong to `pairs[i]`; `mentions` maps an event to its best sentences as
    (document title, sentence) pairs; `after` holds the pairs whose texts' own dates place E after T;
    `events` are the document events and their links to the graph's events."""

    pairs: list[tuple[int, int]]
    features: np.ndarray
    sources: tuple[tuple[Source, ...], ...]
    timeline: Timeline
    after: frozenset[tuple[int, int]]
    mentions: dict[int, list[tuple[str, str]]]
    events: DocumentEvents

    def subset(self, events: list[int], pairs: list[tuple[int, int]]) -> DocumentEvidence:
        """The evidence of a subset of the events (the new node i is the old node `events[i]`) and their
        candidate `pairs` (new ids): a pair's evidence depends on its two events alone, so rows are copied."""
        row = {p: i for i, p in enumerate(self.pairs)}
        rows = [row[(events[e], events[t])] for e, t in pairs]
        mentions = {n: self.mentions[old] for n, old in enumerate(events) if old in self.mentions}
        after = frozenset(p for p in pairs if (events[p[0]], events[p[1]]) in self.after)
        return DocumentEvidence(pairs, self.features[rows].reshape(len(pairs), len(EVIDENCE_FEATURES)),
                                tuple(self.sources[r] for r in rows), self.timeline, after, mentions,
                                self.events.subset(events))


def read_evidence(extraction: TopicExtraction, embedded: DocumentVectors, graph: nx.DiGraph,
                  pairs: list[tuple[int, int]], encoder: str, reader=None) -> DocumentEvidence:
    """The evidence of the graph's events and candidate `pairs`, from the extraction and the embeddings of its
    sentences and cue clauses (`embedded`, in the extraction's order); `reader`, the trained reader of statements
    where its statements are wanted."""
    texts = [graph.nodes[n]["text"] for n in graph]
    # without a sentence to compare them with, the events' embeddings serve nothing (and need no encoder)
    vectors = embed_events(texts, encoder) if extraction.sentences else np.zeros((len(texts), 0), dtype=np.float32)
    retrieval = retrieve(extraction, embedded.sentences, texts, vectors)
    cue_vectors = {cue: (embedded.cues[i, 0], embedded.cues[i, 1]) for i, cue in enumerate(extraction.cues)}
    read = PairReader(extraction, retrieval, texts, vectors, cue_vectors, reader).read_pairs(pairs)
    features = np.array([f for f, _ in read]).reshape(len(pairs), len(EVIDENCE_FEATURES))
    mentions = {n: [(extraction.titles[extraction.sentences[s].doc], extraction.sentences[s].text)
                    for s, _ in retrieval.best(n)] for n in range(len(texts)) if extraction.sentences}
    timeline = build_timeline(extraction, texts, [graph.nodes[n]["norm"] for n in graph], retrieval, vectors,
                              cue_vectors)
    after = frozenset(later_pairs(dict(enumerate(texts)), pairs))
    events = read_document_events(extraction, cue_vectors, vectors)
    return DocumentEvidence(pairs, features, tuple(tuple(s) for _, s in read), timeline, after, mentions, events)
