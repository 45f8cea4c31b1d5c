"""The command-line tools end to end on the demo topic, with real spaCy, MiniLM and clingo."""

import argparse
import importlib
import inspect
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from causalgraph import __main__ as entry
from causalgraph.cli import answer, evaluate, train
from causalgraph.cli.common import parse_topics, plural
from causalgraph.config import DEFAULT_MODEL
from causalgraph.data import LABELS, load_answers, load_split, question_score
from lab.solver import timeline

from .conftest import generated_topic, write_data

REPO = Path(__file__).resolve().parents[1]


def test_demo_prints_questions_options_answers_and_a_checkable_score(capsys, demo_dir):
    assert answer.main(["--demo", "--quiet"]) == 0
    out, err = capsys.readouterr()
    assert "no reader" not in err  # advice on a topic of one's own, which the demo's is not
    assert out.startswith("Topic 1: ")  # .ci/run greps for it
    questions = load_split(demo_dir, "sample")[0].questions
    blocks = out.split("\n- ")[1:]
    assert len(blocks) == len(questions) == 8
    scores = []
    for question, block in zip(questions, blocks):
        assert block.startswith(f"{question.qid}: what directly caused \"{question.target}\"?")
        assert all(question.option(label) in block for label in LABELS)  # the option texts
        found = re.search(r"answer ([A-D,]+)(?: \(.*\))?; gold ([A-D,]+): score ([\d.]+)", block)
        assert found and found[2] == ",".join(sorted(question.gold))
        predicted = frozenset(found[1].split(","))
        assert {line.split()[1] for line in block.splitlines() if line.startswith("  * ")} == predicted
        # under each option, what decided it
        whys = [line.strip() for line in block.splitlines() if line.startswith(" " * 15) and "evidence: " not in line]
        assert len(whys) == 4 and all(w.startswith(("chosen", "not chosen")) for w in whys)
        assert float(found[3]) == question_score(predicted, question.gold)
        scores.append(float(found[3]))
    assert f"Score {sum(scores) / len(scores):.3f} over 8 questions" in out and "causalgraph evaluate" in out
    # and what in the documents moved the scores, with a sentence and its document
    assert re.search(r"\n {15}evidence: (raised|lowered) by documents \([+-][\d.]+ log-odds\): \".+\" \(.+\)\n", out)
    assert "p: the edge scorer's probability" in out
    # the README's figure for the demo is the one the demo prints
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert f"shipped model scores {sum(scores) / len(scores):.3f}" in readme


def test_answer_writes_submission_and_explanations(tmp_path, demo_dir, capsys):
    out, explain = tmp_path / "preds.jsonl", tmp_path / "explain.jsonl"
    code = answer.main(["--data", str(demo_dir), "--split", "sample", "--out", str(out), "--explain", str(explain),
                        "--quiet"])
    assert code == 0
    # it says where the answers went and, the questions having gold, their score (the demo's 0.875)
    written = f"wrote 8 answers to {out}, {explain}; score 0.875 over 8 questions with a gold answer"
    assert written in capsys.readouterr().err
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["id"] for r in rows] == [f"demo-{i}" for i in range(1, 9)]
    assert all(set(r) == {"id", "answer"} and set(r["answer"].split(",")) <= set(LABELS) for r in rows)
    records = [json.loads(line) for line in explain.read_text().splitlines()]
    opt = records[0]["options"]["A"]
    assert {"score", "log_odds", "selected", "rules"} <= set(opt)
    none_q = next(r for r in records if r["id"] == "demo-5")
    assert none_q["answer"] == "C" and [r["atom"]
                                        for r in none_q["options"]["C"]["rules"]] == ['forced(none,"demo-5","C")']


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


def test_help_shows_your_own_topic_then_every_command_with_one_line(capsys):
    for argv in (["--help"], ["-h"], ["help"]):
        assert entry.main(argv) == 0
        out = capsys.readouterr().out
        own, commands = out.split("\ncommands:\n")
        listed = [line.split()[0] for line in commands.splitlines() if line.startswith("  ")]
        assert listed == list(entry.COMMANDS), out
        assert all(len(line.split()) > 3 for line in commands.splitlines()
                   if line.startswith("  "))  # each has its line
        assert "your own topic" in own and "answer --data FOLDER" in own  # a user's own topic comes first
    assert entry.main([]) == 2 and "commands:" in capsys.readouterr().err


def test_an_unknown_command_is_an_error_naming_it(capsys):
    assert entry.main(["bogus"]) == 2
    err = capsys.readouterr().err
    assert "unknown command 'bogus'" in err and "answer" in err


def test_help_of_a_command(capsys):
    with pytest.raises(SystemExit) as exit_:
        entry.main(["help", "evaluate"])
    assert exit_.value.code == 0 and "usage: causalgraph evaluate" in capsys.readouterr().out


@pytest.mark.parametrize("command, usage", [
    (["causalgraph", "evaluate"], "usage: causalgraph evaluate"),
    (["-m", "causalgraph", "evaluate"], "usage: python -m causalgraph evaluate"),
    (["-m", "causalgraph.evaluate"], "usage: python -m causalgraph.evaluate"),
])
def test_usage_lines_name_the_way_the_command_was_run(command, usage):
    script = Path(sys.executable).with_name("causalgraph")
    argv = [str(script), *command[1:]] if command[0] == "causalgraph" else [sys.executable, *command]
    result = subprocess.run([*argv, "--help"], capture_output=True, text=True)
    assert result.returncode == 0 and result.stdout.startswith(usage + " "), result.stdout[:200]


def command_parsers(monkeypatch) -> dict[str, argparse.ArgumentParser]:
    """Each command's parser, caught as its main starts parsing."""
    parsers = {}

    def caught(self, *args, **kwargs):
        raise LookupError(self)

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", caught)
    for command in (*entry.COMMANDS, *LAB_COMMANDS):
        module = command if command in LAB_COMMANDS else f"causalgraph.cli.{command}"
        with pytest.raises(LookupError) as parsed:
            importlib.import_module(module).main([])
        parsers[command] = parsed.value.args[0]
    return parsers


LAB_COMMANDS = ("lab.scorer.sizes", "lab.scorer.encoders", "lab.scorer.nli", "lab.solver.timeline")  # as the package's


def test_every_option_of_every_command_has_help_text(monkeypatch):
    parsers = command_parsers(monkeypatch)
    assert set(parsers) == {*entry.COMMANDS, *LAB_COMMANDS}
    missing = [f"{command} {action.option_strings[0]}" for command, parser in parsers.items()
               for action in parser._actions
               if action.option_strings and not (action.help and action.help.strip())]
    assert not missing, missing


def test_topic_ranges_parse_and_bad_ones_are_named():
    ids = parse_topics("1,3-5")
    assert [t for t in range(8) if t in ids] == [1, 3, 4, 5]
    assert [t for t in range(50) if t in parse_topics(" 37 , 40 - 41,37")] == [37, 40, 41]
    for bad in ("5-3", "a", "1-", "-2", ","):
        with pytest.raises(argparse.ArgumentTypeError, match="--topics"):
            parse_topics(bad)


@pytest.mark.parametrize("module, extra", [(answer, ["--out", "p.jsonl"]), (timeline, ["--graph-out", "g.json"])])
def test_topic_ranges_work_in_every_command_that_takes_topics(module, extra, demo_dir, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert module.main(["--data", str(demo_dir), "--split", "sample", "--topics", "1-1", *extra, "--quiet"]) == 0
    assert Path(extra[1]).is_file()
    with pytest.raises(SystemExit) as exit_:
        module.main(["--data", str(demo_dir), "--split", "sample", "--topics", "3-1", *extra])
    assert exit_.value.code == 2 and "--topics takes ids and ranges" in capsys.readouterr().err


def test_plurals_read_right(tmp_path, demo_dir, capsys):
    assert [plural(n, "topic") for n in (0, 1, 2)] == ["0 topics", "1 topic", "2 topics"]
    assert plural(1, "analysis", "analyses") == "1 analysis" and plural(3, "analysis", "analyses") == "3 analyses"
    gold = tmp_path / "gold.jsonl"
    gold.write_text(json.dumps({"id": "q1", "answer": "A"}) + "\n")
    pred = tmp_path / "pred.jsonl"
    pred.write_text(json.dumps({"id": "q1", "answer": "A"}) + "\n" + json.dumps({"id": "q2", "answer": "B"}) + "\n")
    assert evaluate.main(["--pred", str(pred), "--gold", str(gold)]) == 0
    captured = capsys.readouterr()
    assert "score 1.0000 over 1 question\n" in captured.out and "1 predicted id not in the gold file" in captured.err
    assert timeline.main(["--data", str(demo_dir), "--graph-out", str(tmp_path / "g.json"), "--quiet"]) == 0
    printed = capsys.readouterr().out
    assert ": 1 topic, " in printed and re.search(r"\d+ nodes?, \d+ before edges? and \d+ cause edges?$",
                                                  printed.strip())


@pytest.fixture
def three_labelled(tmp_path) -> Path:
    topics = [generated_topic(i, seed=20 + i, questions=4) for i in range(1, 4)]
    return write_data(tmp_path / "aer", "train", [r for rows, _ in topics for r in rows], [d for _, d in topics])


def test_train_never_writes_the_shipped_model_unless_told(three_labelled, capsys):
    before = DEFAULT_MODEL.stat().st_mtime_ns, DEFAULT_MODEL.read_bytes()
    with pytest.raises(SystemExit) as exit_:
        train.main(["--data", str(three_labelled), "--folds", "3", "--resize-to", "none"])
    assert exit_.value.code == 2 and "give --out FILE" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_:
        train.main(["--data", str(three_labelled), "--folds", "3", "--resize-to", "none", "--out", str(DEFAULT_MODEL)])
    assert exit_.value.code == 2 and "add --force" in capsys.readouterr().err
    assert (DEFAULT_MODEL.stat().st_mtime_ns, DEFAULT_MODEL.read_bytes()) == before
    with pytest.raises(SystemExit):
        train.main(["--help"])
    assert "--force" in capsys.readouterr().out


DOCUMENTS = [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def doc_commands(path: Path) -> list[str]:
    """The causalgraph command lines of a Markdown file's shell code blocks, and the lab's (python -m lab.X)."""
    lines, fence = [], None  # the open block's language ("" for a shell block), None outside blocks
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()  # blocks inside list items are indented
        if line.startswith("```"):
            fence = line[3:] if fence is None else None
        elif fence == "" and (re.match(r"(python|causalgraph)\b", line) and "causalgraph" in line
                              or line.startswith("python -m lab.")):
            lines.append(line)
    return lines


def test_doc_examples_write_where_git_does_not_look():
    assert doc_commands(REPO / "README.md")  # the README's own-topic commands
    commands = [c for path in DOCUMENTS for c in doc_commands(path)]
    assert len(commands) >= 20
    outputs = [m[1] for c in commands if "--force" not in c  # replacing the shipped model, on purpose
               for m in re.finditer(r"--(?:out|explain|timings|graph-out)\s+(\S+)", c)]
    assert len(outputs) > 10
    assert all(o.startswith("out/") for o in outputs), [o for o in outputs if not o.startswith("out/")]
    assert "/out/" in (REPO / ".gitignore").read_text().splitlines()
    visualize_lines = [c for c in commands if "causalgraph.visualize" in c]
    assert visualize_lines and all("--out out/" in c for c in visualize_lines)  # its default is ./topicN.html


class Parsed(Exception):
    """Raised in place of running a command once its arguments parsed."""


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda p: p.name)
def test_doc_command_lines_parse(path, monkeypatch):
    """Every command line of the README and docs/ (the lab's too) names a command and options that its parser
    accepts."""
    parse = argparse.ArgumentParser.parse_args

    def parse_only(self, args=None, namespace=None):
        raise Parsed(parse(self, args, namespace))

    monkeypatch.setattr(argparse.ArgumentParser, "parse_args", parse_only)
    for line in doc_commands(path):
        words = shlex.split(line, comments=True)
        if words[:2] == ["python", "-m"] and words[2].startswith("lab."):  # a lab command or script
            main = importlib.import_module(words[2]).main
            monkeypatch.setattr(sys, "argv", [words[2], *words[3:]])
            with pytest.raises(Parsed):
                main(words[3:]) if inspect.signature(main).parameters else main()
            continue
        found = re.fullmatch(r"causalgraph\.(\w+)", words[2]) if words[:2] == ["python", "-m"] else None
        command, argv = (found[1], words[3:]) if found else (words[1], words[2:])
        assert words[0] in ("python", "causalgraph") and command in entry.COMMANDS, line
        with pytest.raises(Parsed):  # not SystemExit: argparse accepted every option
            importlib.import_module(f"causalgraph.cli.{command}").main(argv)


def test_readme_test_command_says_what_the_browser_test_needs():
    setup = (REPO / "README.md").read_text(encoding="utf-8").split("## Set up on a fresh machine",
                                                                    1)[1].split("\n## ", 1)[0]
    assert "pytest" in setup and "tests/test_browser.py" in setup and "chromium" in setup.lower()


def test_commands_print_what_the_terminal_cannot_encode_as_escapes(tmp_path):
    """Under the C locale a topic's non-ASCII text comes out as escapes, not as a UnicodeEncodeError."""
    env = {**os.environ, "LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "PYTHONIOENCODING": "ascii"}
    code = ("import sys; from causalgraph.cli.common import run_command; "
            "sys.exit(run_command(lambda argv: print('Z\\u00fcrich dam \\u2014 failed') or 0))")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    assert done.stdout.strip() == "Z\\xfcrich dam \\u2014 failed"
