"""Evidence for events and candidate pairs: best sentences per event (BM25 plus embeddings) and per-pair
features from the documents (support, co-occurrence, proximity, order, causal cues, dates)."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
from rank_bm25 import BM25Okapi

from .dates import is_after
from .extract import TopicExtraction

EVIDENCE_FEATURES = (
    "has_documents",
    "cause_support",
    "target_support",
    "same_sentence",
    "nearby_sentences",
    "cause_mentioned_first",
    "cue_forward",
    "cue_backward",
    "dated_before",
)
BM25_WEIGHT = 0.2  # share of the (per-event max-normalised) BM25 score in a sentence's relevance
WINDOW = 2  # sentences either side that count as "nearby"
TOP_K = 3


@dataclass(frozen=True)
class EventEvidence:
    """The best evidence sentences of every event: node -> [(sentence index, relevance), ...]."""

    best: dict[int, list[tuple[int, float]]]


def word_tokens(text: str) -> list[str]:
    return re.findall(r"[a-z0-9]+", text.lower())


def relevance(extraction: TopicExtraction, event_texts: list[str], event_vectors: np.ndarray,
              sentence_vectors: np.ndarray) -> np.ndarray:
    """relevance[event, sentence]: cosine similarity plus a share of the normalised BM25 score."""
    cosine = event_vectors @ sentence_vectors.T
    bm25 = BM25Okapi([word_tokens(s.text) or ["_"] for s in extraction.sentences])
    lexical = np.array([bm25.get_scores(word_tokens(t)) for t in event_texts])
    lexical /= np.maximum(lexical.max(axis=1, keepdims=True), 1e-9)
    return cosine + BM25_WEIGHT * lexical


def best_sentences(rel: np.ndarray) -> EventEvidence:
    order = np.argsort(-rel, axis=1, kind="stable")[:, :TOP_K]
    return EventEvidence({e: [(int(s), float(rel[e, s])) for s in order[e]] for e in range(rel.shape[0])})


def _nearby_max(rel_e: np.ndarray, rel_t: np.ndarray, docs: np.ndarray) -> float:
    """max over sentence pairs of the same document at most WINDOW apart of min(relevance to E, to T)."""
    best = 0.0
    n = len(rel_e)
    for offset in range(-WINDOW, WINDOW + 1):
        if offset == 0 or abs(offset) >= n:
            continue
        a = slice(max(0, -offset), n - max(0, offset))
        b = slice(max(0, offset), n - max(0, -offset))
        same = docs[a] == docs[b]
        if same.any():
            best = max(best, float(np.minimum(rel_e[a], rel_t[b])[same].max()))
    return best


def _mentioned_first(rel_e: np.ndarray, rel_t: np.ndarray, docs: np.ndarray) -> float:
    """Relevance-weighted mean over documents of +1 when E's best sentence precedes T's, -1 when it follows."""
    total, weight = 0.0, 0.0
    for d in np.unique(docs):
        idx = np.flatnonzero(docs == d)
        se, st = idx[rel_e[idx].argmax()], idx[rel_t[idx].argmax()]
        w = min(rel_e[se], rel_t[st])
        total += w * np.sign(st - se)
        weight += w
    return total / weight if weight > 0 else 0.0


def pair_evidence(extraction: TopicExtraction, rel: np.ndarray, pairs: list[tuple[int, int]],
                  event_vectors: np.ndarray, cue_vectors: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
    """EVIDENCE_FEATURES for each pair (rows in pair order); all zero when the topic has no sentences."""
    features = np.zeros((len(pairs), len(EVIDENCE_FEATURES)))
    if not extraction.sentences:
        return features
    docs = np.array([s.doc for s in extraction.sentences])
    support = rel.max(axis=1)
    cause_vecs, effect_vecs = cue_vectors
    cue_cause = event_vectors @ cause_vecs.T if len(cause_vecs) else np.zeros((len(event_vectors), 0))
    cue_effect = event_vectors @ effect_vecs.T if len(effect_vecs) else np.zeros((len(event_vectors), 0))
    dates = {}
    for e in range(rel.shape[0]):
        dated = [i for i in np.argsort(-rel[e], kind="stable")[:TOP_K] if extraction.sentences[i].date]
        dates[e] = extraction.sentences[dated[0]].date if dated else None
    for row, (e, t) in enumerate(pairs):
        forward = float(np.minimum(cue_cause[e], cue_effect[t]).max()) if cue_cause.shape[1] else 0.0
        backward = float(np.minimum(cue_cause[t], cue_effect[e]).max()) if cue_cause.shape[1] else 0.0
        order = 0.0
        if (de := dates[e]) and (dt := dates[t]):
            order = -1.0 if is_after(de, dt) else 1.0 if is_after(dt, de) else 0.0
        features[row] = [
            1.0,
            support[e],
            support[t],
            float(np.minimum(rel[e], rel[t]).max()),
            _nearby_max(rel[e], rel[t], docs),
            _mentioned_first(rel[e], rel[t], docs),
            forward,
            backward,
            order,
        ]
    return features
