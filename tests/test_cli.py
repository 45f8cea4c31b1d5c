"""The command-line tools end to end on the demo topic, with real spaCy, MiniLM and clingo."""

import json
import subprocess
import sys

import pytest

from causalgraph.cli import answer, evaluate
from causalgraph.data import LABELS, load_answers


def test_demo_prints_an_answer_and_reason_per_question(capsys):
    assert answer.main(["--demo", "--quiet"]) == 0
    out = capsys.readouterr().out
    lines = [l for l in out.splitlines() if l.strip().startswith("demo-")]
    assert len(lines) == 8 and all(" chose " in l for l in lines)


def test_answer_writes_submission_and_explanations(tmp_path, demo_dir):
    out, explain = tmp_path / "preds.jsonl", tmp_path / "explain.jsonl"
    code = answer.main(["--data", str(demo_dir), "--split", "sample", "--out", str(out), "--explain", str(explain), "--quiet"])
    assert code == 0
    rows = [json.loads(l) for l in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [f"demo-{i}" for i in range(1, 9)]
    assert all(set(r) == {"id", "answer"} and set(r["answer"].split(",")) <= set(LABELS) for r in rows)
    records = [json.loads(l) for l in explain.read_text().splitlines()]
    opt = records[0]["options"]["A"]
    assert {"score", "log_odds", "selected", "rules"} <= set(opt)
    none_q = next(r for r in records if r["id"] == "demo-5")
    assert none_q["answer"] == "C" and [r["atom"] for r in none_q["options"]["C"]["rules"]] == ['forced(none,"demo-5","C")']


def test_without_rule_group_changes_the_program(tmp_path, demo_dir):
    out = tmp_path / "p.jsonl"
    answer.main(["--data", str(demo_dir), "--split", "sample", "--out", str(out), "--without", "none", "--quiet"])
    assert load_answers(out)["demo-5"] != frozenset("C")


def test_unknown_rule_group_is_a_usage_error(demo_dir):
    with pytest.raises(SystemExit):
        answer.main(["--demo", "--without", "bogus"])


def test_bad_data_gives_a_clear_error_and_no_output(tmp_path, capsys):
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "questions.jsonl").write_text("{oops\n")
    out = tmp_path / "preds.jsonl"
    assert answer.main(["--data", str(tmp_path), "--split", "test", "--out", str(out), "--quiet"]) == 2
    assert "questions.jsonl:line 1: bad JSON" in capsys.readouterr().err
    assert not out.exists() and not list(tmp_path.glob(".preds*"))


def test_evaluate_prints_score_and_breakdown(tmp_path, demo_dir, capsys):
    gold = demo_dir / "sample" / "questions.jsonl"
    pred = tmp_path / "p.jsonl"
    pred.write_text("".join(json.dumps({"id": f"demo-{i}", "answer": a}) + "\n"
                            for i, a in enumerate(["A", "B", "C", "A", "C", "B", "C", "A"], start=1)))
    assert evaluate.main(["--pred", str(pred), "--gold", str(gold)]) == 0
    out = capsys.readouterr().out
    # demo-1 (A,C) and demo-2 (B,D) get one of two causes: 0.5 each; demo-8 "A" is wrong: 6 / 8.
    assert "score 0.7500 over 8 questions" in out
    assert "offers None" in out and "gold size 2" in out


def test_console_script_entry_point(demo_dir):
    result = subprocess.run([sys.executable, "-m", "causalgraph", "evaluate", "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and "--pred" in result.stdout
