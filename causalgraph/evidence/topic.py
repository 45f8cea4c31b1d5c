"""The evidence of one topic, computed once: the sentences retrieved for each event, the evidence features of
every candidate pair with the sentences they were read from, the documents' timeline, and the pairs whose
texts' own dates place the cause after its target (the two sources of rules/temporal.lp's dated order)."""

from __future__ import annotations

from dataclasses import dataclass

import networkx as nx
import numpy as np

from ..text.dates import later_pairs
from ..text.embed import encode
from ..text.extract import CueMatch, TopicExtraction
from .features import EVIDENCE_FEATURES, PairReader, Source
from .retrieve import QUANTIZED, Retrieval, retrieve
from .timeline import Timeline, build_timeline


@dataclass(frozen=True)
class DocumentEvidence:
    """What the documents (and the event texts' own dates) say about a topic's events and candidate pairs.
    `features[i]` and `sources[i]` belong to `pairs[i]`; `mentions` maps an event to its best sentences as
    (document title, sentence) pairs; `after` holds the pairs whose texts' own dates place E after T."""

    pairs: list[tuple[int, int]]
    features: np.ndarray
    sources: tuple[tuple[Source, ...], ...]
    retrieval: Retrieval
    timeline: Timeline
    after: frozenset[tuple[int, int]]
    mentions: dict[int, list[tuple[str, str]]]

    def subset(self, events: list[int], pairs: list[tuple[int, int]]) -> DocumentEvidence:
        """The evidence of a subset of the events (the new node i is the old node `events[i]`) and their
        candidate `pairs` (new ids): a pair's evidence depends on its two events alone, so rows are copied."""
        row = {p: i for i, p in enumerate(self.pairs)}
        rows = [row[(events[e], events[t])] for e, t in pairs]
        mentions = {n: self.mentions[old] for n, old in enumerate(events) if old in self.mentions}
        after = frozenset(p for p in pairs if (events[p[0]], events[p[1]]) in self.after)
        return DocumentEvidence(pairs, self.features[rows].reshape(len(pairs), len(EVIDENCE_FEATURES)),
                                tuple(self.sources[r] for r in rows), self.retrieval.subset(events), self.timeline,
                                after, mentions)


def cue_clause_vectors(extraction: TopicExtraction, retrieval: Retrieval,
                       encoder: str) -> dict[CueMatch, tuple[np.ndarray, np.ndarray]]:
    """The cause and effect clauses of the cues of the retrieved sentences, embedded."""
    kept = set(int(s) for s in retrieval.sentences)
    cues = list(dict.fromkeys(c for c in extraction.cues if c.sentence in kept))
    if not cues:
        return {}
    vectors = encode([c.cause for c in cues] + [c.effect for c in cues], encoder, QUANTIZED)
    return {c: (vectors[i], vectors[len(cues) + i]) for i, c in enumerate(cues)}


def read_evidence(extraction: TopicExtraction, graph: nx.DiGraph, pairs: list[tuple[int, int]],
                  encoder: str) -> DocumentEvidence:
    """The evidence of the graph's events and candidate `pairs`."""
    texts = [graph.nodes[n]["text"] for n in graph]
    vectors = encode(texts, encoder, QUANTIZED)
    retrieval = retrieve(extraction, texts, vectors, encoder)
    cue_vectors = cue_clause_vectors(extraction, retrieval, encoder)
    reader = PairReader(extraction, retrieval, texts, vectors, cue_vectors)
    read = [reader.read(e, t) for e, t in pairs]
    features = np.array([f for f, _ in read]).reshape(len(pairs), len(EVIDENCE_FEATURES))
    mentions = {n: [(extraction.titles[extraction.sentences[s].doc], extraction.sentences[s].text)
                    for s, _ in retrieval.best(n)] for n in range(len(texts)) if retrieval.candidates[n].size}
    timeline = build_timeline(extraction, texts, [graph.nodes[n]["norm"] for n in graph], retrieval, vectors, cue_vectors)
    after = frozenset(later_pairs(dict(enumerate(texts)), pairs))
    return DocumentEvidence(pairs, features, tuple(tuple(s) for _, s in read), retrieval, timeline, after, mentions)
