"""Hostile input and faults: one-line errors that name the option, file or line; no input overwritten; all
outputs written or none."""

import json
import os
import re
import shutil
import stat
from pathlib import Path

import pytest

from causalgraph.cli import answer, evaluate, train, visualize
from causalgraph.cli.common import run_command
from causalgraph.data import DataError, load_answers, load_questions, load_split

from causalgraph.config import DEMO_DATA

from .conftest import NONE, question_row, write_questions

DEMO_QUESTIONS = DEMO_DATA / "sample" / "questions.jsonl"


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
        assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl"), "--explain",
                           str(locked / "new" / "e.jsonl")) == 2
        assert "--explain" in capsys.readouterr().err and not (tmp_path / "p.jsonl").exists()


def fail_renaming_onto(path, monkeypatch) -> None:
    """os.replace fails with a full disk when it renames onto `path`."""
    real_replace = os.replace

    def failing_replace(src, dst):
        if str(dst) == str(path):
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", failing_replace)


def test_outputs_are_written_together_or_not_at_all(demo_copy, tmp_path, monkeypatch):
    out, explain = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    out.write_text("old\n")
    fail_renaming_onto(explain, monkeypatch)
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
            question_row("q2", 1, "The town flooded.",
                         ["The dam failed.", "Rain fell.", "A cup was won.", "Gates jammed."])]
    write_questions(tmp_path / "data" / "sample" / "questions.jsonl", rows)
    out, explain = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    assert answer_demo(tmp_path / "data", "--out", str(out), "--explain", str(explain)) == 0
    answers = {r["id"]: r["answer"] for r in map(json.loads, out.read_text().splitlines())}
    assert set(answers) == {"q1", "q2"} and all(answers.values())
    page = tmp_path / "page.html"
    assert visualize.main(["--data", str(tmp_path / "data"), "--split", "sample", "--topics", "1", "--out",
                           str(page)]) == 0


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
    assert train.main(["--data", str(demo_dir), "--folds", "5", "--resize-to", "none", "--out",
                       str(tmp_path / "m.joblib")]) == 2
    assert "--folds 5 is more than the 1 labelled topics" in capsys.readouterr().err


def test_ctrl_c_prints_one_line_and_exits_130(capsys):
    def interrupted(argv):
        raise KeyboardInterrupt

    assert run_command(interrupted) == 130
    err = capsys.readouterr().err
    assert err == "interrupted; nothing written\n"


def test_a_byte_order_mark_is_accepted(tmp_path):
    path = tmp_path / "q.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(question_row("q1", 1, "T.",
                                                               ["a b.", "c d.", "e f.", "g h."])).encode() + b"\n")
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


# --- outputs that are not files, readers that misbehave, inputs built to hurt the parser ---

def special_files(folder):
    """A named pipe, and (as root) a null and a full device made with mknod: never the system's /dev."""
    os.mkfifo(folder / "fifo")
    nodes = [folder / "fifo"]
    if os.geteuid() == 0:
        for name, minor in (("null", 3), ("full", 7)):
            os.mknod(folder / name, stat.S_IFCHR | 0o666, os.makedev(1, minor))
            nodes.append(folder / name)
    return nodes


@pytest.mark.parametrize("option", ["--out", "--explain", "--timings"])
def test_an_output_that_is_a_device_or_a_pipe_is_refused_before_any_work(demo_copy, tmp_path, capsys, monkeypatch,
                                                                         option):
    monkeypatch.setattr(answer, "run_topics", lambda *a: pytest.fail("topics answered before the outputs were checked"))
    extra = [] if option == "--out" else ["--out", str(tmp_path / "p.jsonl")]
    for node in special_files(tmp_path):
        kind = os.stat(node).st_mode
        assert answer_demo(demo_copy, *extra, option, str(node)) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: {option} {node}: is a ") and "not a regular file" in err and err.count("\n") == 1
        assert os.stat(node).st_mode == kind and not (tmp_path / "p.jsonl").exists()


def test_visualize_and_write_files_refuse_a_device_too(demo_copy, tmp_path, capsys):
    from causalgraph.data.files import write_files

    for node in special_files(tmp_path):
        assert visualize.main(["--demo", "--out", str(node)]) == 2
        assert f"--out {node}: is a " in capsys.readouterr().err
        with pytest.raises(OSError, match="not a regular file"):  # a node made after the check
            write_files({tmp_path / "ok.txt": "x", node: "x"})
        assert not (tmp_path / "ok.txt").exists() and not stat.S_ISREG(os.stat(node).st_mode)


def test_a_symlink_to_a_regular_file_is_followed(demo_copy, tmp_path):
    real, link = tmp_path / "real.jsonl", tmp_path / "link.jsonl"
    real.write_text("old\n")
    link.symlink_to(real)
    assert answer_demo(demo_copy, "--out", str(link)) == 0
    assert link.is_symlink() and len(real.read_text().splitlines()) == 8


def test_an_old_output_is_renamed_aside_and_back_never_copied(tmp_path, monkeypatch):
    from causalgraph.data import files as output

    out, explain = tmp_path / "p.jsonl", tmp_path / "e.jsonl"
    out.write_text("old\n")
    inode = out.stat().st_ino
    monkeypatch.setattr(shutil, "copy2", lambda *a: pytest.fail("an output was copied"))
    monkeypatch.setattr(shutil, "copyfile", lambda *a: pytest.fail("an output was copied"))
    fail_renaming_onto(explain, monkeypatch)
    with pytest.raises(OSError):
        output.write_files({out: "new\n", explain: "new\n"})
    assert out.read_text() == "old\n" and out.stat().st_ino == inode  # the same file, renamed back
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.jsonl"]


KILLER = """
import os, signal, sys
from pathlib import Path
from causalgraph.data import files as output

point, calls = int(sys.argv[1]), [0]


def fault(real):
    def call(*args):
        if calls[0] == point:
            os.kill(os.getpid(), signal.SIGKILL)
        calls[0] += 1
        return real(*args)
    return call


os.replace, os.fsync = fault(os.replace), fault(os.fsync)
output.write_files({Path(name): f"new {Path(name).name}\\n" for name in sys.argv[2:]})
"""


def test_a_run_killed_at_any_point_leaves_no_mix_and_the_next_run_cleans_up(tmp_path):
    import subprocess
    import sys

    names = ["p.jsonl", "e.jsonl", "t.json"]
    outputs = [tmp_path / name for name in names]
    for point in range(20):
        for path in outputs:
            path.write_text(f"old {path.name}\n")
        run = subprocess.run([sys.executable, "-c", KILLER, str(point), *map(str, outputs)], capture_output=True,
                             text=True)
        if run.returncode == 0:
            break
        assert run.returncode == -9, run.stderr
        present = {p.read_text().split()[0] for p in outputs if p.exists()}
        assert len(present) <= 1, (point, present)  # all old, or all new: never a new --out beside an old --explain
        debris = {p.name for p in tmp_path.iterdir()} - set(names)
        assert all(re.fullmatch(r"\.(p|e|t)\.jsonl?\.\d+-\w{8}\.(tmp|old)", d) for d in debris), debris
        from causalgraph.data.files import write_files

        write_files({path: "again\n" for path in outputs})
        assert sorted(p.name for p in tmp_path.iterdir()) == sorted(names)  # the dead run's debris went
    assert point > 5 and all(p.read_text() == f"new {p.name}\n" for p in outputs)


def test_the_debris_of_a_live_run_is_left_alone(tmp_path):
    from causalgraph.data.files import write_files

    live = tmp_path / f".p.jsonl.{os.getpid()}-abcdefgh.tmp"  # this process is alive
    dead = tmp_path / ".p.jsonl.abcdefgh.old"  # debris without a process id: an earlier version's
    live.write_text("")
    dead.write_text("")
    write_files({tmp_path / "p.jsonl": "x\n"})
    assert live.exists() and not dead.exists()


NESTED = "[" * 100_000 + "]" * 100_000


def test_nested_json_is_one_line_naming_the_file_and_line(demo_copy, tmp_path, capsys):
    questions = demo_copy / "sample" / "questions.jsonl"
    lines = questions.read_text().splitlines()
    questions.write_text("\n".join([lines[0], f'{{"id": {NESTED}}}', *lines[1:]]) + "\n")
    assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl")) == 2
    assert capsys.readouterr().err == f"error: {questions}:line 2: bad JSON (nested too deeply)\n"
    questions.write_text("\n".join(lines) + "\n")
    docs = demo_copy / "sample" / "docs.json"
    docs.write_text('[\n{"topic_id": 1,\n "docs": ' + NESTED + "}]\n")
    assert answer_demo(demo_copy, "--out", str(tmp_path / "p.jsonl")) == 2
    assert capsys.readouterr().err == f"error: {docs}:line 3: bad JSON (nested too deeply)\n"
    pred = tmp_path / "pred.jsonl"
    pred.write_text(f'{{"id": "q1", "answer": "A"}}\n{{"id": "q2", "answer": {NESTED}}}\n')
    assert evaluate.main(["--pred", str(pred), "--gold", str(questions)]) == 2
    assert capsys.readouterr().err == f"error: {pred}:line 2: bad JSON (nested too deeply)\n"
    assert not (tmp_path / "p.jsonl").exists()


@pytest.mark.parametrize("field, value, message", [
    ("id", '"q\\u0000x"', "holds a NUL character"),
    ("id", '"q\\ud800"', "id holds '\\ud800', a lone surrogate"),
    ("option_B", '"Rain \\udfff fell."', "an event text of question 'q1' holds '\\udfff', a lone surrogate"),
    ("topic_id", '"\\u00b2"', "topic_id must be an integer, got '\u00b2'"),
    ("topic_id", '"' + "7" * 5000 + '"', "topic_id must be a whole number (0 or more) of at most 18 digits"),
    ("topic_id", "7" * 5000, "bad JSON (Exceeds the limit"),
])
def test_ids_built_to_hurt_are_one_line_naming_the_file_and_line(tmp_path, capsys, field, value, message):
    rows = [question_row(qid, 1, "T.", ["a b.", "c d.", "e f.", "g h."]) for qid in ("q0", "q1")]
    path = write_questions(tmp_path / "data" / "sample" / "questions.jsonl", rows)
    line = json.dumps(rows[1])
    key = f'"{field}": ' + json.dumps(rows[1][field])
    path.write_text(json.dumps(rows[0]) + "\n" + line.replace(key, f'"{field}": {value}') + "\n")
    assert answer_demo(tmp_path / "data", "--out", str(tmp_path / "p.jsonl")) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {path}:line 2: ") and message in err and err.count("\n") == 1 and len(err) < 300


def test_a_document_with_a_lone_surrogate_is_named(demo_copy):
    docs = demo_copy / "sample" / "docs.json"
    docs.write_text(docs.read_text().replace('"content": "', '"content": "\\ud800', 1))
    with pytest.raises(DataError, match=r"docs.json:topic entry 1, document 1 \(id '.*'\): a field holds '\\ud800'"):
        load_split(demo_copy, "sample")


def scores_file(path, answer_of):
    rows = [json.loads(line) for line in (DEMO_QUESTIONS).read_text().splitlines() if line.strip()]
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps({"id": r["id"], "answer": answer_of(r)}) + "\n" for r in rows))
    return path


def explained_readers(explain) -> set[str]:
    records = [json.loads(line) for line in explain.read_text().splitlines()]
    return {r["reader"] for record in records for option in record["options"].values() for r in option["readers"]}


def test_two_reader_files_with_one_basename_are_two_readers(demo_copy, tmp_path, capsys):
    first = scores_file(tmp_path / "a" / "r.jsonl", lambda r: "A")
    second = scores_file(tmp_path / "b" / "r.jsonl", lambda r: "B")
    third = scores_file(tmp_path / "c" / "r.jsonl", lambda r: "A")  # one file given twice is refused (hostile tests)
    explain = tmp_path / "e.jsonl"
    readers = ["--reader-scores", str(first), "--reader-scores", str(second), "--reader-scores", f"mine={third}"]
    before = first.read_bytes(), second.read_bytes()
    assert answer_demo(demo_copy, "--explain", str(explain), *readers) == 0
    assert (first.read_bytes(), second.read_bytes()) == before
    assert explained_readers(explain) == {str(first), str(second), "mine"}
    same_name = ["--reader-scores", f"x={first}", "--reader-scores", f"x={second}"]
    assert answer_demo(demo_copy, "--explain", str(explain), *same_name) == 2
    assert "two reader files are named 'x'; name them apart as NAME=FILE" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        answer_demo(demo_copy, "--explain", str(explain), "--reader-scores", f"={first}")
    assert "--reader-scores: expected FILE or NAME=FILE" in capsys.readouterr().err


def test_reader_file_names_that_are_not_utf8_or_ascii_work_under_the_c_locale(demo_copy, tmp_path):
    import subprocess
    import sys

    odd = scores_file(tmp_path / os.fsdecode(b"r\xff.jsonl"), lambda r: "A")
    accented = scores_file(tmp_path / "r\u00e9.jsonl", lambda r: "B")
    explain = tmp_path / "e.jsonl"
    assert answer_demo(demo_copy, "--out",
                       str(tmp_path / "warm.jsonl")) == 0  # the subprocess reads its analysis cached
    env = {**os.environ, "LC_ALL": "C", "PYTHONUTF8": "0"}  # file names are ASCII here, the rest is surrogate escapes
    run = subprocess.run([os.fsencode(a) for a in (sys.executable, "-m", "causalgraph.answer", "--data", str(demo_copy),
                                                      "--split", "sample", "--quiet", "--explain", str(explain),
                                                      "--reader-scores", str(odd), "--reader-scores", str(accented))],
                         capture_output=True, env=env, cwd=tmp_path)
    assert run.returncode == 0 and b"Traceback" not in run.stderr, run.stderr
    assert explained_readers(explain) == {f"{tmp_path}/r\\xff.jsonl", f"{tmp_path}/r\u00e9.jsonl"}


def test_an_empty_probs_object_is_not_counted_as_judged(tmp_path, caplog):
    from causalgraph.readers.scores import load_reader_scores

    questions = {q.qid: q for q in load_questions(DEMO_QUESTIONS)}
    path = tmp_path / "p.jsonl"
    path.write_text('{"id": "demo-1", "probs": {}}\n{"id": "demo-2", "probs": {"A": 0.9}}\n')
    reader = load_reader_scores(path, questions)
    assert set(reader.judgements) == {("demo-2", "A")}
    assert f"{path}: no judgement for 7 of the 8 questions" in caplog.text


def test_topics_without_documents_get_one_warning_naming_them(tmp_path, caplog):
    from causalgraph.data.load import id_ranges

    rows = [question_row(f"q{t}", t, "The dam failed.", ["Rain fell.", "Gates jammed.", "A cup was won.", NONE])
            for t in (1, 2, 3, 5)]
    write_questions(tmp_path / "data" / "sample" / "questions.jsonl", rows)
    assert answer_demo(tmp_path / "data", "--out", str(tmp_path / "p.jsonl")) == 0
    warnings = [r.getMessage() for r in caplog.records if "no documents" in r.getMessage()]
    assert warnings == ["topics 1-3, 5 have no documents; answered from the question texts only"]
    caplog.clear()
    assert answer_demo(tmp_path / "data", "--out", str(tmp_path / "p.jsonl"), "--topics", "5") == 0
    assert [r.getMessage() for r in caplog.records if "no documents" in r.getMessage()] == [
        "topic 5 has no documents; answered from the question texts only"]
    assert id_ranges([9, 1, 2, 2, 4, 5, 6]) == "1-2, 4-6, 9"
    caplog.clear()
    assert answer.main(["--demo", "--quiet", "--out", str(tmp_path / "d.jsonl")]) == 0
    assert "no documents" not in caplog.text


def test_a_folder_made_meanwhile_by_another_writer_is_written_in(tmp_path, monkeypatch):
    """Two writers (the LLM reader's threads caching replies) may both find a folder missing and make it: the
    second one's mkdir fails as the first made it, and its file is written all the same."""
    from causalgraph.data import files

    folder = tmp_path / "llm"
    folder.mkdir()  # made by the other writer after this one looked
    real = files.os.path.lexists
    monkeypatch.setattr(files.os.path, "lexists", lambda p: False if Path(p) == folder else real(p))
    files.write_files({folder / "a.json": "{}"})
    assert (folder / "a.json").read_text() == "{}"
