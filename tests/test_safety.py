"""Hostile input and faults: one-line errors that name the option, file or line; no input overwritten; all
outputs written or none."""

import json
import os
import shutil
import stat

import pytest

from causalgraph.cli import answer, evaluate, train, visualize
from causalgraph.cli.common import run_command
from causalgraph.data import DataError, load_answers, load_questions, load_split

from .conftest import NONE, question_row, write_questions


@pytest.fixture
def demo_copy(tmp_path, demo_dir):
    """A writable copy of the demo data folder."""
    return shutil.copytree(demo_dir, tmp_path / "demo")


def answer_demo(data, *extra) -> int:
    return answer.main(["--data", str(data), "--split", "sample", "--quiet", *extra])


@pytest.mark.parametrize("option", ["--out", "--explain", "--timings"])
@pytest.mark.parametrize("name", ["questions.jsonl", "docs.json"])
def test_an_output_naming_an_input_is_refused_and_the_input_kept(demo_copy, capsys, option, name):
    target = demo_copy / "sample" / name
    before = target.read_bytes()
    extra = [] if option == "--out" else ["--out", str(demo_copy / "p.jsonl")]
    assert answer_demo(demo_copy, *extra, option, str(target)) == 2
    assert f"error: {option} {target}: is an input of this run" in capsys.readouterr().err
    assert target.read_bytes() == before and not (demo_copy / "p.jsonl").exists()


def test_two_outputs_naming_one_file_are_refused(demo_copy, tmp_path, capsys):
    out = tmp_path / "same.jsonl"
    assert answer_demo(demo_copy, "--out", str(out), "--explain", str(out)) == 2
    assert "--explain" in capsys.readouterr().err and not out.exists()


def test_unwritable_outputs_are_found_before_any_work(demo_copy, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(answer, "run_topics", lambda *a: pytest.fail("topics answered before the outputs were checked"))
    folder = tmp_path / "a-folder"
    folder.mkdir()
    assert answer_demo(demo_copy, "--out", str(folder)) == 2
    assert f"--out {folder}: is a folder" in capsys.readouterr().err
    if os.geteuid() != 0:  # root writes anywhere
        locked = tmp_path / "locked"
        locked.mkdir(mode=0o500)
        assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--explain", str(locked / "new" / "e.jsonl")) == 2
        assert "--explain" in capsys.readouterr().err and not (tmp_path / "p.jsonl").exists()


def test_outputs_are_written_together_or_not_at_all(demo_copy, tmp_path, monkeypatch):
    out, explain = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    out.write_text("old\n")
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst) == str(explain):
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)
    assert answer_demo(demo_copy, "--out", str(out), "--explain", str(explain)) == 2
    # the submission was renamed first and the explanation failed: the old submission is back
    assert out.read_text() == "old\n" and not explain.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo", "p.jsonl"]


def test_output_files_follow_the_umask_and_keep_an_existing_mode(demo_copy, tmp_path):
    out, kept = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    kept.write_text("old\n")
    kept.chmod(0o640)
    old = os.umask(0o022)
    try:
        assert answer_demo(demo_copy, "--out", str(out), "--explain", str(kept)) == 0
    finally:
        os.umask(old)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644 and stat.S_IMODE(kept.stat().st_mode) == 0o640


@pytest.mark.parametrize("option, value", [("--time-limit", "inf"), ("--time-limit", "1e300"), ("--time-limit", "nan"),
                                           ("--none-prior", "4294967296"), ("--none-prior", "2147483648"),
                                           ("--bias", "3000000000"), ("--workers", "0")])
def test_numeric_options_out_of_range_are_usage_errors(demo_copy, tmp_path, capsys, option, value):
    with pytest.raises(SystemExit) as exit_info:
        answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), option, value)
    assert exit_info.value.code == 2 and option in capsys.readouterr().err


def test_two_none_options_in_one_question_are_answered(tmp_path):
    rows = [question_row("q1", 1, "The dam failed.", ["Rain fell.", NONE, "Gates jammed.", NONE]),
            question_row("q2", 1, "The town flooded.", ["The dam failed.", "Rain fell.", "A cup was won.", "Gates jammed."])]
    write_questions(tmp_path / "data" / "sample" / "questions.jsonl", rows)
    out, explain = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    assert answer_demo(tmp_path / "data", "--out", str(out), "--explain", str(explain)) == 0
    answers = {r["id"]: r["answer"] for r in map(json.loads, out.read_text().splitlines())}
    assert set(answers) == {"q1", "q2"} and all(answers.values())
    page = tmp_path / "page.html"
    assert visualize.main(["--data", str(tmp_path / "data"), "--split", "sample", "--topic", "1", "--out", str(page)]) == 0


@pytest.mark.parametrize("value, shown", [("1e400", "inf"), ("1.7", "1.7"), ("true", "True"), ('"x"', "'x'")])
def test_bad_topic_ids_are_rejected_with_their_line(tmp_path, value, shown):
    path = tmp_path / "q.jsonl"
    row = json.dumps(question_row("q1", 1, "T.", ["a b.", "c d.", "e f.", "g h."]))
    path.write_text(row.replace('"topic_id": 1', f'"topic_id": {value}') + "\n")
    with pytest.raises(DataError, match=rf"q.jsonl:line 1: topic_id must be an integer, got {shown}"):
        load_questions(path)


@pytest.mark.parametrize("value", ["null", '{"x": [1]}', '""', "true"])
def test_bad_question_ids_are_rejected_with_their_line(tmp_path, value):
    path = tmp_path / "q.jsonl"
    row = json.dumps(question_row("q1", 1, "T.", ["a b.", "c d.", "e f.", "g h."]))
    path.write_text(row.replace('"id": "q1"', f'"id": {value}') + "\n")
    with pytest.raises(DataError, match="q.jsonl:line 1: id must be a non-empty string"):
        load_questions(path)


def test_an_empty_questions_file_and_an_empty_topic_list_are_errors(tmp_path, demo_copy, capsys):
    write_questions(tmp_path / "empty" / "sample" / "questions.jsonl", [])
    with pytest.raises(DataError, match="no questions in the file"):
        load_split(tmp_path / "empty", "sample")
    assert answer_demo(tmp_path / "empty", "--out", str(tmp_path / "p.jsonl")) == 2
    with pytest.raises(SystemExit):
        answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--topics", ",")
    assert "--topics names no topic" in capsys.readouterr().err


def test_a_garbage_model_file_is_named(demo_copy, tmp_path, capsys):
    model = tmp_path / "model.joblib"
    model.write_text("not a model\n")
    assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--model", str(model)) == 2
    assert f"error: {model}: not a causalgraph model file" in capsys.readouterr().err


@pytest.mark.parametrize("folds, message", [("0", "at least 3"), ("1", "at least 3")])
def test_train_rejects_too_few_folds(tmp_path, capsys, folds, message):
    with pytest.raises(SystemExit):
        train.main(["--data", str(tmp_path), "--folds", folds])
    assert message in capsys.readouterr().err


def test_train_names_a_missing_folder_and_too_many_folds(tmp_path, demo_dir, capsys):
    assert train.main(["--data", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: no such data folder" in capsys.readouterr().err
    assert train.main(["--data", str(demo_dir), "--folds", "5", "--resize-to", "none", "--out", str(tmp_path / "m.joblib")]) == 2
    assert "--folds 5 is more than the 1 labelled topics" in capsys.readouterr().err


def test_ctrl_c_prints_one_line_and_exits_130(capsys):
    def interrupted(argv):
        raise KeyboardInterrupt

    assert run_command(interrupted) == 130
    err = capsys.readouterr().err
    assert err == "interrupted; nothing written\n"


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(question_row("q1", 1, "T.", ["a b.", "c d.", "e f.", "g h."])).encode() + b"\n")
    assert load_questions(path)[0].qid == "q1"


def test_evaluate_reports_labels_as_written_and_scores_an_empty_answer_zero(tmp_path, capsys, caplog):
    gold = tmp_path / "gold.jsonl"
    gold.write_text('{"id": "q1", "answer": "A"}\n{"id": "q2", "answer": "B"}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "q1", "answer": "None"}\n')
    assert evaluate.main(["--pred", str(bad), "--gold", str(gold)]) == 2
    assert "label 'None' is outside A-D" in capsys.readouterr().err
    empty = tmp_path / "empty.jsonl"
    empty.write_text('{"id": "q1", "answer": ""}\n{"id": "q2", "answer": "B"}\n')
    assert load_answers(empty, predictions=True)["q1"] == frozenset()
    assert evaluate.main(["--pred", str(empty), "--gold", str(gold)]) == 0
    assert "score 0.5000 over 2 questions" in capsys.readouterr().out
    assert "empty answer for 'q1'; it scores 0" in caplog.text


def test_a_closed_output_pipe_ends_quietly(tmp_path):
    import subprocess
    import sys

    # the reader goes away before the demo prints anything (answering it takes seconds)
    process = subprocess.Popen([sys.executable, "-m", "causalgraph.answer", "--demo", "--quiet"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    process.stdout.close()
    stderr = process.stderr.read()
    assert process.wait() == 141 and "Traceback" not in stderr
