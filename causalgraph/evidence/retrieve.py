"""Which sentences of a topic's documents tell each event: a sentence's relevance to an event is the cosine of
their embeddings plus a share of its BM25 score for the event's words. Every sentence is embedded (with the
encoder's int8 version), once per document."""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import numpy as np
from rank_bm25 import BM25Okapi

from ..text.embed import encode, encode_groups
from ..text.extract import DocumentReading, TopicExtraction
from ..text.words import word_tokens

BM25_WEIGHT = 0.2  # share of the (per-event max-normalised) BM25 score in a sentence's relevance
TOP_K = 3  # an event's best sentences, its mentions
QUANTIZED = True  # the evidence stage encodes with the encoder's int8 version (see text.embed.encode)


@dataclass(frozen=True)
class Retrieval:
    """`relevance[e, s]`: the relevance of the topic's sentence s to event e. What is computed of a pair reads
    only its two events' rows, so it depends on those two events and the documents alone."""

    relevance: np.ndarray

    def best(self, event: int, k: int = TOP_K) -> list[tuple[int, float]]:
        """The event's k most relevant sentences: (topic sentence index, relevance), best first."""
        row = self.relevance[event]
        return [(int(s), float(row[s])) for s in np.argsort(-row, kind="stable")[:k]]


@dataclass(frozen=True)
class DocumentVectors:
    """The embeddings of a document's sentences, and of each of its cues' cause and effect clauses
    (`cues[i, 0]`, `cues[i, 1]`), in the order of its reading; `join` stacks a topic's documents in order."""

    sentences: np.ndarray
    cues: np.ndarray

    @classmethod
    def join(cls, parts: list[DocumentVectors], dim: int) -> DocumentVectors:
        return cls(np.concatenate([p.sentences for p in parts] or [np.zeros((0, dim), np.float32)]),
                   np.concatenate([p.cues for p in parts] or [np.zeros((0, 2, dim), np.float32)]))


def iter_vectors(readings: Iterable[DocumentReading], encoder: str) -> Iterator[DocumentVectors]:
    """The DocumentVectors of each reading, yielded as each is made. The int8 encoder scales its activations by
    batch, so each document is encoded on its own (and each event alone, see `embed_events`): a text's vector
    then depends on its document alone, whatever else is read with it and whatever the cache holds (and
    documents may be encoded side by side, text.embed.encode_groups)."""
    readings = list(readings)
    groups = [[s.text for s in r.sentences] + [t for c in r.cues for t in (c.cause, c.effect)] for r in readings]
    with contextlib.closing(encode_groups(groups, encoder, QUANTIZED)) as encoded:  # stopped early: so is it
        for r, vectors in zip(readings, encoded):
            yield DocumentVectors(vectors[: len(r.sentences)],
                                  vectors[len(r.sentences):].reshape(-1, 2, vectors.shape[1]))


def embed_readings(readings: list[DocumentReading], encoder: str) -> list[DocumentVectors]:
    """The DocumentVectors of each reading, in order (see iter_vectors)."""
    return list(iter_vectors(readings, encoder))


def embed_events(texts: list[str], encoder: str) -> np.ndarray:
    """The events' embeddings by the evidence stage's encoder, each text encoded alone (see embed_readings)."""
    if not texts:
        return encode([], encoder, QUANTIZED)
    return np.stack([vectors[0] for vectors in encode_groups([[t] for t in texts], encoder, QUANTIZED)])


def retrieve(extraction: TopicExtraction, sentences: np.ndarray, event_texts: list[str],
             event_vectors: np.ndarray) -> Retrieval:
    """The relevance of every sentence (`sentences[s]`: the embedding of sentence s) to every event."""
    if not extraction.sentences or not event_texts:
        return Retrieval(np.zeros((len(event_texts), len(extraction.sentences))))
    bm25 = BM25Okapi([word_tokens(s.text) or ["_"] for s in extraction.sentences])
    lexical = np.array([bm25.get_scores(word_tokens(t)) for t in event_texts])
    lexical /= np.maximum(lexical.max(axis=1, keepdims=True), 1e-9)
    return Retrieval(event_vectors @ sentences.T + BM25_WEIGHT * lexical)
