"""The shipped reader of causal statements in int8 (the answer path) against float (`read`, `cg.read`): on a
seeded sample of the Causal News Corpus's sentences and EventStoryLine's pairs (training data of the shipped
reader: this compares the two builds, not their accuracy), how many readings cross 0.5, the largest difference,
and the seconds each build takes on one thread.

    python -m lab.reader_of_statements.reader_int8
"""

from __future__ import annotations

import random
import time

import numpy as np
import torch

from causalgraph.read.corpora import causal_news, storyline
from causalgraph.read.reader import READER_DIR, CausalReader
from lab.common import SHARED



def main() -> None:
    torch.set_num_threads(1)
    sentences, _, _ = causal_news(SHARED / "causal-news")
    rng = random.Random(1)
    texts = [x.text for x in rng.sample(sentences, 300)]
    pairs = [(x.text, x.a, x.b) for x in rng.sample(storyline(SHARED / "storyline"), 400)]
    builds = {"float": CausalReader.load(READER_DIR), "int8": CausalReader.load(READER_DIR, quantized=True)}
    read = {}
    for name, reader in builds.items():
        start = time.perf_counter()
        causal = reader.causal(texts)
        middle = time.perf_counter()
        linked = reader.pairs(pairs)[:, 1:].sum(1)
        read[name] = (causal, linked, middle - start, time.perf_counter() - middle)
    (fc, fl, fs, fp), (qc, ql, qs, qp) = read["float"], read["int8"]
    print(f"{len(texts)} sentences: {int(((fc >= 0.5) != (qc >= 0.5)).sum())} cross 0.5, largest difference "
          f"{np.abs(fc - qc).max():.3f}; float {fs:.2f} s, int8 {qs:.2f} s")
    print(f"{len(pairs)} pairs (a link either way): {int(((fl >= 0.5) != (ql >= 0.5)).sum())} cross 0.5, largest "
          f"difference {np.abs(fl - ql).max():.3f}; float {fp:.2f} s, int8 {qp:.2f} s")


if __name__ == "__main__":
    main()
