"""A user's own topic: the example under examples/ run as a user runs it, the same topic as one JSON or YAML
file, the loader's errors, `answer` without --out and `evaluate` on the questions that were answered."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import causalgraph as cg
from causalgraph.cli import answer, evaluate
from causalgraph.data import DataError, load_data, load_topic_file

from .conftest import question_row, write_questions

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "examples" / "key-bridge"
OPTS = ["Rain fell on March 2.", "Gates jammed on March 6.", "None of the others are correct causes.", "A cup was won."]


def example_as_one_topic() -> dict:
    """The example folder's topic as the object of a topic file: documents and questions in one."""
    rows = [json.loads(line) for line in (EXAMPLE / "questions.jsonl").read_text().splitlines()]
    (entry,) = json.loads((EXAMPLE / "docs.json").read_text())
    documents = [{**{k: v for k, v in d.items() if k != "parsed_date"}, "date": d["parsed_date"]}
                 for d in entry["docs"]]
    questions = [{k: v for k, v in r.items() if k != "topic_id"} for r in rows]
    return {"topic": entry["topic"], "documents": documents, "questions": questions}


def test_the_example_runs_as_a_user_runs_it(tmp_path):
    # from the repository root, with no --out: readable answers, each option with what decided it
    run = subprocess.run([sys.executable, "-m", "causalgraph", "answer", "--data", "examples/key-bridge", "--quiet"],
                         cwd=REPO, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert out.startswith("Topic 1: The Francis Scott Key Bridge collapse (example) (2 documents)")
    blocks = out.split("\n- ")[1:]
    assert [b.split(":")[0] for b in blocks] == [f"kb-{i}" for i in range(1, 7)]
    for block in blocks:
        whys = [line.strip() for line in block.splitlines() if line.startswith(" " * 15) and "evidence: " not in line]
        assert len(whys) == 4 and all(w.startswith(("chosen", "not chosen")) for w in whys)
        assert "  answer " in block and "; gold " in block
    assert "Score " in out and "over 6 questions" in out
    assert "fewer than 10 questions and no reader" in run.stderr and "answered 6 questions" in run.stderr
    # then written out and scored
    pred = tmp_path / "p.jsonl"
    assert subprocess.run([sys.executable, "-m", "causalgraph", "answer", "--data", "examples/key-bridge", "--out",
                           str(pred), "--quiet"], cwd=REPO, capture_output=True, timeout=600).returncode == 0
    scored = subprocess.run([sys.executable, "-m", "causalgraph", "evaluate", "--pred", str(pred), "--gold",
                             "examples/key-bridge"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert (scored.returncode == 0 and "over 6 questions" in scored.stdout
            and "every question of the gold file" in scored.stdout)


@pytest.mark.parametrize("suffix", [".json", ".yaml"])
def test_one_topic_file_holds_what_the_folder_holds(tmp_path, suffix):
    topic = example_as_one_topic()
    path = tmp_path / f"key-bridge{suffix}"
    if suffix == ".json":
        path.write_text(json.dumps(topic))
    else:
        import yaml

        path.write_text(yaml.safe_dump(topic, sort_keys=False))
        assert "date: '2024-03-26'" in path.read_text()
        path.write_text(path.read_text().replace("date: '2024-03-26'", "date: 2024-03-26"))  # a YAML date
    (from_file,) = load_data(path)
    (from_folder,) = load_data(EXAMPLE)
    assert from_file == from_folder
    out_file, out_folder = tmp_path / "f.jsonl", tmp_path / "d.jsonl"
    assert answer.main(["--data", str(path), "--out", str(out_file), "--quiet"]) == 0
    assert answer.main(["--data", str(EXAMPLE), "--out", str(out_folder), "--quiet"]) == 0
    assert out_file.read_text() == out_folder.read_text()
    assert [t.topic_id for t in cg.load_topics(path)] == [1]


def test_a_topic_file_may_leave_out_ids_and_hold_several_topics(tmp_path):
    question = {"target_event": "The dam failed on March 7.", **{f"option_{l}": t for l, t in zip("ABCD", OPTS)}}
    path = tmp_path / "t.json"
    path.write_text(json.dumps([{"questions": [question, question]}, {"topic_id": 9, "questions": [question]}]))
    topics = load_topic_file(path)
    assert [(t.topic_id, [q.qid for q in t.questions]) for t in topics] == [(1, ["q1", "q2"]), (9, ["q3"])]
    assert [t.topic_id for t in load_data(path, topics=[9])] == [9]


@pytest.mark.parametrize("content, message", [
    ('{"questions": []}', "topic 1: expected an object with a non-empty 'questions' list"),
    ('{"questions": [{"target_event": "T."}]}', "topic 1, question 1: missing field 'option_A'"),
    ('{"questions": [{"id": "a", "target_event": "T.", "option_A": "x", "option_B": "y", "option_C": "z", '
     '"option_D": "w"}, {"id": "a", "target_event": "U.", "option_A": "x", "option_B": "y", "option_C": "z", '
     '"option_D": "w"}]}', "topic 1, question 2: duplicate question id 'a' (first in topic 1, question 1)"),
    ('{"questions": [{"target_event": "T.", "option_A": "x", "option_B": "y", "option_C": "z", "option_D": "w"}], '
     '"documents": {"title": "x"}}', "topic 1: 'documents' must be a list"),
    ('[{"questions": [{"target_event": "T.", "option_A": "x", "option_B": "y", "option_C": "z", "option_D": "w"}]}, '
     '{"topic_id": 1, "questions": [{"id": "b", "target_event": "T.", "option_A": "x", "option_B": "y", '
     '"option_C": "z", "option_D": "w"}]}]', "topic 2: topic_id 1 is given to two topics"),
    ("{oops", "line 1: bad JSON"),
    ("[]", "t.json: no topics in the file"),
    ('{"docs": [], "questions": [{"target_event": "T.", "option_A": "x", "option_B": "y", "option_C": "z", '
     '"option_D": "w"}]}', "topic 1: unknown key 'docs' (a topic has topic_id, topic, questions, documents)"),
    ('{"topic_id": -1, "questions": [{"target_event": "T.", "option_A": "x", "option_B": "y", "option_C": "z", '
     '"option_D": "w"}]}', "topic 1: topic_id must be a whole number (0 or more)"),
])
def test_a_bad_topic_file_is_named_in_one_line(tmp_path, content, message):
    path = tmp_path / "t.json"
    path.write_text(content)
    with pytest.raises(DataError, match=message.replace("(", r"\(").replace(")", r"\)")):
        load_data(path)


def test_bad_yaml_names_its_line(tmp_path):
    path = tmp_path / "t.yaml"
    path.write_text("questions:\n  - target_event: [unclosed\n")
    with pytest.raises(DataError, match=r"t\.yaml:line \d+: bad YAML"):
        load_data(path)


def test_a_topic_folder_takes_no_split_and_the_cli_says_so(tmp_path, capsys):
    folder = tmp_path / "mine"
    write_questions(folder / "questions.jsonl", [question_row("m-1", 5, "The dam failed on March 7.", OPTS, "B")])
    (topic,) = load_data(folder)
    assert (topic.topic_id, topic.documents) == (5, [])
    with pytest.raises(DataError, match="holds questions.jsonl itself, not splits; leave out --split"):
        load_data(folder, "test")
    assert answer.main(["--data", str(folder), "--split", "test", "--quiet"]) == 2
    assert "leave out --split" in capsys.readouterr().err
    assert answer.main(["--data", str(tmp_path / "none.json"), "--quiet"]) == 2
    assert "none.json: no such file" in capsys.readouterr().err


def test_commands_that_read_labelled_splits_say_a_topic_folder_is_not_one():
    from causalgraph.data.load import load_labelled

    with pytest.raises(DataError, match="a topic folder .questions.jsonl at its top.; this command reads an AER data"):
        load_labelled(EXAMPLE)


def test_a_topic_folders_documents_of_no_question_are_named(tmp_path, caplog):
    folder = tmp_path / "mine"
    write_questions(folder / "questions.jsonl", [question_row("m-1", 5, "The dam failed on March 7.", OPTS, "B")])
    (folder / "docs.json").write_text(json.dumps([{"topic_id": 6, "topic": "x",
                                                   "docs": [{"title": "t", "content": "c"}]}]))
    with caplog.at_level("WARNING"):
        (topic,) = load_data(folder)
    assert topic.documents == []
    assert "documents of topic 6, which no question of questions.jsonl is about" in caplog.text


def test_evaluate_scores_the_answered_questions_or_chosen_topics(tmp_path, two_topics, capsys):
    pred = tmp_path / "p.jsonl"
    assert answer.main(["--data", str(two_topics), "--split", "sample", "--topics", "1", "--out", str(pred),
                        "--quiet"]) == 0
    gold = two_topics / "sample" / "questions.jsonl"
    capsys.readouterr()
    assert evaluate.main(["--pred", str(pred), "--gold", str(gold)]) == 0
    out = capsys.readouterr().out
    assert "over 8 questions" in out and "only the questions that have a prediction: 8 of 14" in out
    assert evaluate.main(["--pred", str(pred), "--gold", str(gold), "--topics", "1-2"]) == 0
    out = capsys.readouterr().out
    assert ("over 14 questions" in out and "the gold questions of topics 1-2" in out
            and "6 questions without a prediction scored 0" in out)
    assert evaluate.main(["--pred", str(pred), "--gold", str(gold), "--all"]) == 0
    assert "over 14 questions" in capsys.readouterr().out
    plain = tmp_path / "gold.jsonl"
    plain.write_text("".join(json.dumps({"id": json.loads(line)["id"], "answer": "A"}) + "\n"
                             for line in gold.read_text().splitlines()))
    assert evaluate.main(["--pred", str(pred), "--gold", str(plain), "--topics", "1"]) == 2
    assert "--topics needs the gold questions with their topic ids" in capsys.readouterr().err


def test_the_api_warns_about_thin_topics_through_logging(caplog, demo_dir):
    reasoner = cg.Reasoner.load()
    with caplog.at_level("WARNING", logger="causalgraph.api"):
        list(reasoner.answer(cg.demo_topics()))
    thin = [r for r in caplog.records if r.name == "causalgraph.api" and "no reader" in r.getMessage()]
    assert len(thin) == 1 and thin[0].getMessage().startswith("topic 1: fewer than 10 questions")
    assert "--crossencoder" not in thin[0].getMessage()


def test_the_construction_priors_are_a_named_choice(tmp_path, demo_dir):
    """--priors: aer by default for an AER data folder, none for your own topics; none answers None only where no
    real option clears the bias, with the scorer trained without the None structure."""
    def explained(*args):
        out = tmp_path / "explain.jsonl"
        assert answer.main([*args, "--explain", str(out), "--out", str(tmp_path / "p.jsonl"), "--quiet",
                            "--no-cache"]) == 0
        return [json.loads(line) for line in out.read_text().splitlines()]

    aer = explained("--data", str(demo_dir), "--split", "sample")
    assert {r["priors"] for r in aer} == {"aer"}
    own = tmp_path / "own"
    own.mkdir()
    for name in ("questions.jsonl", "docs.json"):
        (own / name).write_bytes((demo_dir / "sample" / name).read_bytes())
    plain = explained("--data", str(own))
    assert {r["priors"] for r in plain} == {"none"} and plain != aer
    assert explained("--data", str(own), "--priors", "aer") == aer
    for record in plain:  # None only where no real option was chosen, whatever the None prior would say
        options = record["options"]
        none = [label for label, o in options.items() if o.get("event") is None]
        real = [label for label, o in options.items() if o.get("event") is not None and o["selected"]]
        assert not none or options[none[0]]["selected"] == (not real)
