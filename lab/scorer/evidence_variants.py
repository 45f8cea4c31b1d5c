"""How the evidence stage reads the documents, measured on the size curve: the shipped evidence scorer (size-aware,
documents + dates) under one grouped-by-topic 5-fold CV over train + dev + sample (topics 11-36 read
train-evidence/), with the precision bias at 200, for each way of reading:

- shipped: every sentence embedded by the encoder's int8 version;
- float embeddings: every sentence embedded by the float encoder (four times the encoding time);
- BM25 candidates, k = 8 or 16: only the k sentences that BM25 ranks highest for each event count (and need
  embedding), a cheaper retrieval that was tried first.

Each variant analyses the topics in a cache folder of its own under --cache-dir (cold runs take minutes). First,
the encoder itself: the seconds to embed the sentences of the first test topics' documents (split at sentence
ends), one document at a time as the evidence stage does, by the float and the int8 encoder at batches of 16
and 64, and the cosine of the int8 embeddings with the float ones.

    python -m lab.scorer.evidence_variants --data ../shared/aer
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from contextlib import contextmanager
from functools import partial
from pathlib import Path

import numpy as np
from rank_bm25 import BM25Okapi

import causalgraph.evidence.retrieve as retrieve_module
import causalgraph.evidence.topic as topic_module
import causalgraph.text.embed as embed_module
from causalgraph.analysis.cache import AnalysisCache
from causalgraph.config import DEFAULT_ENCODER, default_cache_dir
from causalgraph.data import load_labelled, load_split
from causalgraph.measure.inputs import target_shapes
from lab.scorer.size_curve import cut_all, format_curve, scorer_rows
from causalgraph.learn.bands import blend_copies, scorer_kinds
from causalgraph.learn.scorer import EdgeScorer
from causalgraph.text.embed import BATCH_SIZE, encode
from causalgraph.text.words import word_tokens
from lab.common import run_benchmark

SIZES = (1, 3, 5, 10, None, "test-shaped")
BIAS = 200


def encoder_check(data: str, limit: int) -> str:
    """A markdown table of the encoder's speed and the int8 embeddings' agreement with the float ones."""
    groups, total = [], 0
    for topic in load_split(data, "test"):
        for document in topic.documents:
            sentences = [s for s in re.split(r"(?<=[.!?])\s+", document.content) if s.strip()][:limit - total]
            if sentences:
                groups.append(sentences)
                total += len(sentences)
        if total >= limit:
            break
    for quantized in (False, True):
        encode(["warm-up"], DEFAULT_ENCODER, quantized)  # loading is not timed
    rows, vectors = [], {}
    for quantized, batch in ((False, 16), (False, 64), (True, 16), (True, 64)):
        embed_module.BATCH_SIZE = batch
        start = time.perf_counter()
        vectors[quantized] = np.concatenate([encode(g, DEFAULT_ENCODER, quantized) for g in groups])
        rows.append(f"| {'int8' if quantized else 'float'} | {batch} | {time.perf_counter() - start:.1f} |")
    embed_module.BATCH_SIZE = BATCH_SIZE
    cosine = float(np.mean(np.sum(vectors[True] * vectors[False], axis=1)))
    return (f"{total} sentences of {len(groups)} documents, one torch thread\n\n| encoder | batch | seconds |\n"
            "|---|---|---|\n" + "\n".join(rows) + "\n\nmean cosine of the int8 embeddings with the float ones: "
                                                  f"{cosine:.3f}\n")


def bm25_retrieve(k: int):
    """evidence.retrieve.retrieve keeping, for each event, only its k best sentences by BM25 (the others -inf)."""
    real = retrieve_module.retrieve

    def retrieve(extraction, sentences, event_texts, event_vectors):
        found = real(extraction, sentences, event_texts, event_vectors)
        if not extraction.sentences:
            return found
        bm25 = BM25Okapi([word_tokens(s.text) or ["_"] for s in extraction.sentences])
        relevance = np.full_like(found.relevance, -np.inf)
        for e, text in enumerate(event_texts):
            scores = bm25.get_scores(word_tokens(text))
            keep = [s for s in np.argsort(-scores, kind="stable")[:k] if scores[s] > 0]
            relevance[e, keep] = found.relevance[e, keep]
        return retrieve_module.Retrieval(relevance)

    return retrieve


@contextmanager
def variant(name: str):
    """The evidence stage patched for one variant (the shipped one unpatched)."""
    saved = (retrieve_module.QUANTIZED, topic_module.retrieve)
    if name == "float embeddings":
        retrieve_module.QUANTIZED = False
    elif name.startswith("BM25 candidates"):
        topic_module.retrieve = bm25_retrieve(int(name.rsplit(" ", 1)[1]))
    try:
        yield
    finally:
        retrieve_module.QUANTIZED, topic_module.retrieve = saved


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", required=True)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir() / "evidence-variants")
    parser.add_argument("--sentences", type=int, default=3000, help="sentences embedded by the encoder check")
    args = parser.parse_args()
    print(encoder_check(args.data, args.sentences), flush=True)
    topics = load_labelled(args.data, evidence=True)
    shapes = target_shapes(args.data, "test")
    features = scorer_kinds()[1].keywords["features"]  # the shipped evidence scorer's
    rows = []
    for name in ("shipped (int8 embeddings of every sentence)", "float embeddings", "BM25 candidates, k = 8",
                 "BM25 candidates, k = 16"):
        start = time.time()
        with variant(name):
            folder = default_cache_dir() if name.startswith("shipped") else args.cache_dir / name.replace(" ", "-")
            cache = AnalysisCache.open(folder, DEFAULT_ENCODER)
            analyses = [cache.analyse(t)[0] for t in topics]
        _, sized, held = blend_copies(analyses, shapes)
        cuts = {k: held if k == "test-shaped" else cut_all(analyses, k, 0) for k in SIZES}
        made, _ = scorer_rows(name, analyses, cuts, args.folds, partial(EdgeScorer, features=features), sized, BIAS)
        rows += made
        print(f"{name}: {time.time() - start:.0f}s", file=sys.stderr, flush=True)
    print(f"Grouped-by-topic {args.folds}-fold CV over {len(topics)} topics, the shipped evidence scorer's features, "
          f"bias {BIAS}\n")
    print(format_curve(rows, SIZES))
    return 0


if __name__ == "__main__":
    run_benchmark(main)
