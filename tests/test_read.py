"""The reader of causal statements (causalgraph.read): its input checks, its marking and decoding, the shipped
model's readings of plain causal and non-causal sentences, the command, and training a small reader end to end."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

import causalgraph as cg
from causalgraph.read.learn import tag_ids
from causalgraph.read.model import TAGS, Encoded
from causalgraph.read.reader import decode, mark, sentences

CAUSAL = "The farmworkers ' strike resumed on Tuesday when their demands were not met ."
PLAIN = "The meeting was held in the town hall on Tuesday afternoon ."


def run_read(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "causalgraph.read", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd, timeout=300)


def test_mark_places_both_events_and_their_opening_markers():
    text, a, b = mark(CAUSAL, (49, 75), (0, 43))
    assert text == "# The farmworkers ' strike resumed on Tuesday # when @ their demands were not met @ ."
    assert (text[a], text[b]) == ("@", "#")
    text, a, b = mark("ab", (0, 1), (1, 2))  # adjacent: a closes before b opens
    assert text == "@ a @# b #" and (a, b) == (0, 5)


def test_sentences_split_at_ends_and_line_breaks():
    text = "He said so. Then troops left!\nA new line. And more"
    assert [text[s:e] for s, e in sentences(text)] == ["He said so.", "Then troops left!", "A new line.", "And more"]


def test_tags_and_their_decoding_round_trip():
    offsets = [(0, 0), (0, 3), (4, 10), (11, 15), (16, 20), (0, 0)]
    tags = tag_ids(offsets, ((0, 10, "E"), (16, 20, "C")))
    assert [TAGS[t] if t >= 0 else None for t in tags] == [None, "B-E", "I-E", "O", "B-C", None]
    probs = np.full((len(offsets), len(TAGS)), 0.01)
    for row, tag in enumerate(tags):
        probs[row, max(tag, 0)] = 0.9
    spans = decode(Encoded([0] * len(offsets), offsets), probs)
    assert [(s, e, k) for s, e, k, _ in spans] == [(0, 10, "E"), (16, 20, "C")]


def test_the_shipped_reader_tells_a_causal_sentence_from_a_plain_one_and_reads_direction():
    causal, plain = cg.read(CAUSAL), cg.read(PLAIN)
    assert causal.causal > 0.5 > plain.causal
    pair = cg.read(CAUSAL, [((49, 75), (0, 43))]).pairs[0]  # a: the unmet demands, b: the strike resuming
    assert pair.a_causes_b > max(pair.b_causes_a, 1 - pair.a_causes_b - pair.b_causes_a)
    swapped = cg.read(CAUSAL, [((0, 43), (49, 75))]).pairs[0]
    assert swapped.b_causes_a > swapped.a_causes_b
    assert any(s.cause[0] >= 49 and s.effect[1] <= 43 for s in causal.statements)


def test_read_rejects_a_span_outside_the_text():
    with pytest.raises(ValueError, match="not a non-empty span"):
        cg.read("short", [((0, 3), (2, 9))])


def test_the_command_writes_a_line_per_input_line_in_order(tmp_path):
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "x", "text": CAUSAL,
                                "pairs": [{"a": [49, 75], "b": [0, 43]}, {"a": [0, 43], "b": [49, 75]}]})
                    + "\n\n" + json.dumps({"id": 7, "text": PLAIN}) + "\n")
    done = run_read("--data", data, "--out", tmp_path / "out.jsonl", "--quiet")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [r["id"] for r in lines] == ["x", "7"]
    assert [p["a"] for p in lines[0]["pairs"]] == [[49, 75], [0, 43]] and lines[1]["pairs"] == []
    assert lines[0]["causal"] > 0.5 > lines[1]["causal"]
    assert set(lines[0]) == {"id", "causal", "statements", "pairs"}


@pytest.mark.parametrize("line, says", [
    ("{not json", "line 1: not JSON"),
    (json.dumps({"text": "a b"}), 'line 1: no "id"'),
    (json.dumps({"id": "a", "text": "a b", "pairs": [{"a": [0, 1], "b": [2, 9]}]}),
     "pair 1 b: span [2, 9] lies outside"),
    (json.dumps({"id": "a", "text": "a b", "pairs": [{"a": [1, 1], "b": [0, 1]}]}), "pair 1 a: span [1, 1] is empty"),
    (json.dumps({"id": "a", "text": "a b", "pairs": [{"a": [0, 1], "b": [3, 2]}]}),
     "pair 1 b: span [3, 2] is reversed"),
])
def test_bad_input_gets_one_line_naming_the_line_and_writes_nothing(tmp_path, line, says):
    data = tmp_path / "in.jsonl"
    data.write_text(line + "\n")
    done = run_read("--data", data, "--out", tmp_path / "out.jsonl")
    assert done.returncode == 2
    assert says in done.stderr and len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert not (tmp_path / "out.jsonl").exists()


def test_the_command_refuses_to_write_over_its_input(tmp_path):
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "a", "text": PLAIN}) + "\n")
    done = run_read("--data", data, "--out", data)
    assert done.returncode == 2 and "input" in done.stderr
    assert json.loads(data.read_text())["id"] == "a"


def test_train_reader_model_writes_a_model_that_reads(tmp_path):
    """A reader trained for one epoch on a handful of sentences and pairs: the command's whole way, from the
    corpora's layouts to a folder `python -m causalgraph.read --model` loads."""
    news, story = tmp_path / "news", tmp_path / "story"
    news.mkdir()
    story.mkdir()
    rows = [{"id": f"train_0{i}_{i}_1", "text": CAUSAL, "causal": 1,
             "relations": [{"cause": [49, 75], "effect": [0, 43], "signals": [[44, 48]]}]} for i in range(4)]
    rows += [{"id": f"train_1{i}_{i}_2", "text": PLAIN, "causal": 0, "relations": []} for i in range(4)]
    (news / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    text = "Police fired . Two men died .\nCrowds gathered ."
    docs = [{"id": f"{t}_1", "topic": str(t), "text": text, "sentences": [[0, 13], [14, 28], [29, 45]], "events": [],
             "relations": []} for t in (1, 2)]
    pairs = [{"a": [7, 12], "b": [22, 26]}, {"a": [22, 26], "b": [36, 44]}]
    gold = [{"same_sentence": False, "causal": 1, "truth": "a_causes_b"},
            {"same_sentence": False, "causal": 0, "truth": None}]
    (story / "train.jsonl").write_text("".join(json.dumps(d) + "\n" for d in docs))
    (story / "train-text.jsonl").write_text("".join(json.dumps({"id": d["id"], "text": text, "pairs": pairs}) + "\n"
                                                    for d in docs))
    (story / "train-pairs.jsonl").write_text("".join(json.dumps({"id": d["id"], "pairs": gold}) + "\n" for d in docs))
    out = tmp_path / "reader"
    done = subprocess.run([sys.executable, "-m", "causalgraph.train", "--reader-model", out, "--causal-news", news,
                           "--storyline", story, "--epochs", "1", "--reader-folds", "2", "--quiet"],
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert "sentence F1" in done.stdout and "pair F1 within" in done.stdout
    assert {p.name for p in out.iterdir()} == {"reader.safetensors", "reader.json", "README.md"}
    card = (out / "README.md").read_text()
    assert "CC0" in card and "CC BY 3.0" in card and "--reader-folds 2" in card
    data = tmp_path / "in.jsonl"
    data.write_text(json.dumps({"id": "a", "text": CAUSAL, "pairs": [{"a": [49, 75], "b": [0, 43]}]}) + "\n")
    done = run_read("--data", data, "--out", tmp_path / "out.jsonl", "--model", out, "--quiet")
    assert done.returncode == 0, done.stderr
    pair = json.loads((tmp_path / "out.jsonl").read_text())["pairs"][0]
    assert 0 <= pair["a_causes_b"] <= 1 and 0 <= pair["b_causes_a"] <= 1
