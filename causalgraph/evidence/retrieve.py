"""Which sentences of a topic's documents tell each event: BM25 puts forward a few candidates per event, and only
those are embedded; a sentence's relevance to an event is their cosine plus a share of the BM25 score."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rank_bm25 import BM25Okapi

from ..text.embed import encode
from ..text.extract import TopicExtraction
from ..text.words import word_tokens

BM25_WEIGHT = 0.2  # share of the (per-event max-normalised) BM25 score in a sentence's relevance
CANDIDATES = 8  # sentences BM25 puts forward per event; the only ones embedded
TOP_K = 3  # an event's best sentences, its mentions
QUANTIZED = True  # the evidence stage encodes with the encoder's int8 version (see text.embed.encode)


@dataclass(frozen=True)
class Retrieval:
    """The candidate sentences of a topic's events. `sentences`: topic sentence indices of every event's
    candidates, ascending; `relevance[e, j]`: the relevance of sentence `sentences[j]` to event e;
    `candidates[e]`: the columns of e's own candidates. What is computed of a pair reads only the columns of its
    two events' candidates, so that it depends on those two events and the documents alone."""

    sentences: np.ndarray
    relevance: np.ndarray
    candidates: tuple[np.ndarray, ...]

    def columns(self, *events: int) -> np.ndarray:
        """The columns of the events' candidates, ascending."""
        return np.unique(np.concatenate([self.candidates[e] for e in events] or [np.zeros(0, dtype=int)]))

    def best(self, event: int, k: int = TOP_K) -> list[tuple[int, float]]:
        """The event's k most relevant candidates: (topic sentence index, relevance), best first."""
        cols = self.candidates[event]
        order = cols[np.argsort(-self.relevance[event, cols], kind="stable")][:k]
        return [(int(self.sentences[c]), float(self.relevance[event, c])) for c in order]

    def subset(self, events: list[int]) -> Retrieval:
        """The retrieval of some of the events (row i for events[i])."""
        return Retrieval(self.sentences, self.relevance[events], tuple(self.candidates[e] for e in events))


def retrieve(extraction: TopicExtraction, event_texts: list[str], event_vectors: np.ndarray, encoder: str) -> Retrieval:
    """BM25 over the topic's sentences for each event; the union of each event's CANDIDATES best (with a
    positive score) is embedded with `encoder` and scored against every event."""
    n = len(event_texts)
    if not extraction.sentences or not n:
        return Retrieval(np.zeros(0, dtype=int), np.zeros((n, 0)), tuple(np.zeros(0, dtype=int) for _ in range(n)))
    bm25 = BM25Okapi([word_tokens(s.text) or ["_"] for s in extraction.sentences])
    lexical = np.array([bm25.get_scores(word_tokens(t)) for t in event_texts])
    ranked = [[int(s) for s in np.argsort(-row, kind="stable")[:CANDIDATES] if row[s] > 0] for row in lexical]
    sentences = np.array(sorted({s for r in ranked for s in r}), dtype=int)
    column = {int(s): j for j, s in enumerate(sentences)}
    lexical /= np.maximum(lexical.max(axis=1, keepdims=True), 1e-9)
    vectors = encode([extraction.sentences[s].text for s in sentences], encoder, QUANTIZED)
    relevance = event_vectors @ vectors.T + BM25_WEIGHT * lexical[:, sentences]
    candidates = tuple(np.array(sorted(column[s] for s in r), dtype=int) for r in ranked)
    return Retrieval(sentences, relevance, candidates)
