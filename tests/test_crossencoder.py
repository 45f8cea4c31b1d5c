"""The cross-encoder reader: evidence retrieval, examples, a real fine-tuned MiniLM pair model saved in fp16 and
loaded back, the reader in `answer`, and `train --reader crossencoder` end to end on a small data folder."""

from __future__ import annotations

import json

import numpy as np
import pytest

from causalgraph.cli.answer import main as answer_main
from causalgraph.cli.train import main as train_main
from causalgraph.data import load_split
from causalgraph.readers.crossencoder import (PairExample, PairModel, distinct_examples, hypothesis, option_inputs)

from .conftest import generated_topic, write_data


def test_options_get_evidence_from_their_documents_and_none_is_skipped(demo_dir):
    [demo] = load_split(demo_dir, "sample")
    inputs = option_inputs(demo, gold=True)
    real = sum(1 for q in demo.questions for o in q.options if not o.startswith("None of the others"))
    assert len(inputs) == real
    first = inputs[0]
    q = demo.questions[0]
    assert first.example.hypothesis == hypothesis(q.target, q.option(first.label))
    assert first.example.label == int(first.label in q.gold)
    assert 1 <= len(first.evidence) <= 2 and first.example.premise == " ".join(s for _, s in first.evidence)
    assert all(not i.evidence for i in option_inputs(demo, evidence=False))


def test_distinct_examples_keep_one_per_statement_and_a_gold_one_wins(demo_dir):
    [demo] = load_split(demo_dir, "sample")
    inputs = option_inputs(demo, evidence=False, gold=True)
    doubled = distinct_examples(inputs + inputs)
    assert len(doubled) == len({i.example.hypothesis.lower() for i in inputs})
    positive = {e.hypothesis for e in doubled if e.label}
    assert positive == {i.example.hypothesis for i in inputs if i.example.label}


def test_a_fine_tuned_model_saves_in_fp16_and_loads_back(tmp_path):
    examples = [PairExample("The gates jammed.", hypothesis("The dam failed.", "The gates jammed"), 1),
                PairExample("", hypothesis("The gates jammed.", "The dam failed"), 0)] * 4
    model = PairModel(seed=0).fit(examples, epochs=1, batch_size=4, class_weight=True)
    model.save(tmp_path / "m")
    assert (tmp_path / "m" / "model.safetensors").stat().st_size < 50 * 2**20
    again = PairModel(str(tmp_path / "m")).predict_proba(examples[:2])
    assert np.allclose(again, model.predict_proba(examples[:2]), atol=0.01)


@pytest.fixture
def three_topics(tmp_path):
    rows, docs = [], []
    for topic_id, seed in ((1, 3), (2, 5), (3, 9)):
        r, d = generated_topic(topic_id, seed=seed)
        rows += r
        docs.append(d)
    return write_data(tmp_path / "data", "sample", rows, docs)


def test_train_measures_the_reader_fused_and_writes_it_and_answer_reads_with_it(three_topics, tmp_path, capsys):
    folder = tmp_path / "reader"
    assert train_main(["--reader", "crossencoder", "--data", str(three_topics), "--folds", "3", "--epochs", "1",
                       "--resize-to", "none", "--out", str(folder)]) == 0
    out = capsys.readouterr().out
    assert "option AUC" in out and "| whole |" in out and f"wrote {folder}" in out
    assert {"config.json", "model.safetensors", "README.md", "causalgraph.json"} <= {p.name for p in folder.iterdir()}
    explain = tmp_path / "explain.jsonl"
    assert answer_main(["--data", str(three_topics), "--split", "sample", "--out", str(tmp_path / "p.jsonl"),
                        "--explain", str(explain), "--crossencoder", str(folder), "--quiet"]) == 0
    record = json.loads(explain.read_text().splitlines()[0])
    judged = [r for option in record["options"].values() for r in option.get("readers", [])]
    assert judged and all(r["reader"] == "crossencoder" and 0 <= r["probability"] <= 1 for r in judged)
    assert any(r["evidence"] for r in judged)


def test_answer_names_a_missing_crossencoder_folder(demo_dir, tmp_path, capsys):
    assert answer_main(["--demo", "--crossencoder", str(tmp_path / "none")]) == 2
    assert "--crossencoder" in capsys.readouterr().err


def test_a_hub_name_out_of_reach_fails_at_once_in_one_line(monkeypatch, capsys):
    import time

    import causalgraph.readers.load as load_module

    def unreachable(*args, **kwargs):
        raise OSError("no route to host")

    monkeypatch.setattr(load_module.socket, "create_connection", unreachable)
    start = time.perf_counter()
    assert answer_main(["--demo", "--crossencoder", "someone/no-such-model", "--quiet"]) == 2
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and err.startswith("error: --crossencoder someone/no-such-model: ")
    assert "hub is out of reach (huggingface.co cannot be reached: no route to host)" in err
    assert time.perf_counter() - start < 30  # the hub client's own retries take about a minute


def test_judgements_are_cached_by_model_and_topic(demo_dir, tmp_path):
    from causalgraph.readers.crossencoder import CrossEncoderReader

    folder = tmp_path / "m"
    PairModel(seed=1).save(folder)
    [demo] = load_split(demo_dir, "sample")
    reader = CrossEncoderReader(folder, cache_dir=tmp_path / "cache")
    first = reader.judge([demo], progress=False)
    assert len(list((tmp_path / "cache" / "crossencoder").iterdir())) == 1
    reader._topic = None  # a second run must read the cache, not the model
    assert reader.judge([demo], progress=False).judgements == first.judgements
    assert any(j.evidence for j in first.judgements.values())
    (folder / "causalgraph.json").write_text('{"evidence": false}')  # as trained with --no-evidence
    plain = CrossEncoderReader(folder, cache_dir=tmp_path / "cache").judge([demo], progress=False)
    assert not any(j.evidence for j in plain.judgements.values())


def test_reader_options_without_reader_are_a_usage_error(demo_dir, capsys):
    with pytest.raises(SystemExit) as exit_:
        train_main(["--data", str(demo_dir), "--epochs", "2"])
    assert exit_.value.code == 2 and "--epochs applies to --reader crossencoder only" in capsys.readouterr().err
