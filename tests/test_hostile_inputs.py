"""Inputs built to hurt, or written carelessly: YAML that expands or nests without end, scalars that YAML would
rewrite, documents longer than the limit, files that are no regular file, fields and options that would be
dropped or coerced in silence, and library arguments the command would refuse. Each gets a one-line error that
names its file, line or argument, or a warning that names what was left out."""

import datetime
import json
import os
import re
import tracemalloc
import unicodedata

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import causalgraph as cg
from causalgraph.analysis import cache
from causalgraph.cli import answer, evaluate, visualize
from causalgraph.config import DEMO_DATA
from causalgraph.data import (DataError, Document, Question, Topic, is_none_option, load_data, load_questions,
                              normalize_text)
from causalgraph.data.load import load_labelled
from causalgraph.graph.topic import build_graph
from causalgraph.readers.scores import load_reader_scores
from causalgraph.reason import solve as solve_module
from causalgraph.text.extract import DocumentReading

from .conftest import NONE, question_row, write_questions
from .test_safety import answer_demo

OPTIONS = ["Rain fell.", "Gates jammed.", "A cup was won.", NONE]


def yaml_topic(question: str = "", documents: str = "", head: str = "") -> str:
    """A YAML topic file of one question (its extra lines `question`) and, where given, documents."""
    text = head + "questions:\n  - target_event: The dam failed.\n"
    text += "".join(f"    option_{label}: {option}\n" for label, option in zip("ABCD", OPTIONS)) + question
    return text + (f"documents:\n{documents}" if documents else "")


def write(tmp_path, text: str, name: str = "t.yaml"):
    path = tmp_path / name
    path.write_text(text)
    return path


# --- YAML: no alias expansion, no unbounded nesting, scalars as written ---

def test_a_yaml_alias_bomb_is_refused_at_its_line(tmp_path):
    # five levels of nine aliases each: 59,049 strings from 200 bytes (nine levels made gigabytes)
    bomb = "topic:\n  - &a [x, x, x, x, x, x, x, x, x]\n"
    bomb += "".join(f"  - &{n} [{', '.join([f'*{p}'] * 9)}]\n" for p, n in zip("abcd", "bcde"))
    path = write(tmp_path, yaml_topic(head=bomb))
    with pytest.raises(DataError,
                       match=rf"^{path}:line 3: bad YAML \(an alias \(\*name\) is not read; write the value out\)$"):
        load_data(path)


def test_yaml_nested_past_the_limit_is_one_line_naming_it(tmp_path):
    path = write(tmp_path, yaml_topic(head="topic: " + "[" * 20_000 + "]" * 20_000 + "\n"))
    with pytest.raises(DataError, match=rf"^{path}:line 1: bad YAML \(nested deeper than 100 levels\)$"):
        load_data(path)


# what YAML 1.1 would read as a number, a date, a boolean or a float: an id keeps the text written
yaml_scalars = (st.from_regex(r"0[0-7]{1,4}|0x[0-9A-F]{1,4}|[1-9]:[0-5][0-9](:[0-5][0-9])?"
                              r"|[1-9][0-9]{0,3}(\.[0-9]+)?(e[0-9])?"
                              r"|20[0-9]{2}-[01][0-9]-[0-3][0-9]|yes|no|on|off|true|False|\.inf|\.nan|-\.inf",
                              fullmatch=True)
                | st.integers(10**30, 10**40).map(str))


@given(yaml_scalars)
@settings(max_examples=80, deadline=None)
def test_yaml_ids_keep_the_text_written(tmp_path_factory, scalar):
    path = write(tmp_path_factory.mktemp("ids"), yaml_topic(question=f"    id: {scalar}\n", head="topic_id: 010\n"))
    [topic] = load_data(path)
    assert topic.questions[0].qid == scalar and topic.topic_id == 10


days = st.dates(datetime.date(1, 1, 1), datetime.date(9999, 12, 31))


@given(days, st.sampled_from(["", " 10:30:00", "T10:30:00Z", "T10:30:00.25+02:00"]))
@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_yaml_dates_and_date_times_keep_their_day_or_say_why_not(tmp_path_factory, caplog, day, time_of_day):
    caplog.clear()
    written = f"{day.year:04d}-{day.month:02d}-{day.day:02d}"
    path = write(tmp_path_factory.mktemp("dates"),
                 yaml_topic(documents=f"  - content: Rain fell.\n    date: {written}{time_of_day}\n"))
    [topic] = load_data(path)
    if 1900 <= day.year <= 2099:
        assert topic.documents[0].date == written and not caplog.text
    else:
        assert topic.documents[0].date == ""
        assert (f"{path}:line 8, topic 1, document 1 (id '1-0'): date '{written}' lies outside the years 1900-2099 "
                "that the timeline reads; ignored") in caplog.text


@pytest.mark.parametrize("written", ["2024-02-30", "2023-02-29", "2024-13-01"])
def test_a_date_that_is_no_day_is_named_with_its_line_in_evaluate(tmp_path, capsys, caplog, written):
    path = write(tmp_path, yaml_topic(documents=f"  - content: Rain fell.\n    date: {written}\n",
                                      head="topic_id: 1\n").replace(
        "  - target_event", "  - id: q1\n    golden_answer: B\n    target_event"))
    pred = write(tmp_path, json.dumps({"id": "q1", "answer": "B"}) + "\n", "p.jsonl")
    assert evaluate.main(["--pred", str(pred), "--gold", str(path)]) == 0
    assert "score 1.0000 over 1 question" in capsys.readouterr().out
    assert f"{path}:line 11, topic 1, document 1 (id '1-0'): date '{written}' is no such day; ignored" in caplog.text


# --- input limits: one setting of characters per document ---

def test_the_characters_per_document_are_one_setting_named_in_its_warning(tmp_path, caplog):
    folder = tmp_path / "mine"
    write_questions(folder / "questions.jsonl", [question_row("m-1", 5, "The dam failed.", OPTIONS)])
    long = "Rain fell on the town. " * 20_000  # 460,000 characters: over the default 200,000
    (folder / "docs.json").write_text(json.dumps([{"topic_id": 5, "docs": [{"content": "Short."}, {"content": long}]}]))
    [topic] = load_data(folder)
    assert len(topic.documents[1].content) == 200_000
    assert (f"docs.json:topic entry 1, document 2 (id '5-1'): {len(long):,} characters; keeping the first 200,000 "
            "(--max-document-chars raises the limit)") in caplog.text
    [whole] = cg.load_topics(folder, max_document_chars=500_000)
    assert whole.documents[1].content == long
    from causalgraph.text.extract import document_text

    assert document_text(whole.documents[1]) == long  # read whole: nothing cuts it further
    [short] = load_data(folder, max_document_chars=3)
    assert [d.content for d in short.documents] == ["Sho", "Rai"]
    for command in (answer, visualize):
        assert command.build_parser().parse_args(["--demo", "--max-document-chars", "7"]).max_document_chars == 7
    with pytest.raises(ValueError, match="max_document_chars must be 1 or more, got 0"):
        cg.load_topics(folder, max_document_chars=0)


# --- the library checks its arguments as the command does ---

@pytest.mark.parametrize("weight, error, message", [
    (10**7, ValueError, "reader_weight must be within \\+-1,000,000 \\(clingo's weights are 32-bit\\), got 10000000"),
    (-1, ValueError, "reader_weight must be 0 or more"), ("50", TypeError, "reader_weight must be an integer, got str"),
    (True, TypeError, "reader_weight must be an integer, got bool"),
])
def test_the_library_checks_the_reader_weight_as_the_command_does(weight, error, message):
    with pytest.raises(error, match=message):
        cg.Reasoner.load(reader_weight=weight)


def test_the_library_checks_topics_and_workers(demo_dir):
    reasoner = cg.Reasoner.load()
    topics = cg.demo_topics()
    for topics_given, workers, error, message in [
        (topics, "2", TypeError, "workers must be an integer, got str '2'"),
        (topics, 0, ValueError, "workers must be from 1"),
        ("demo", 1, TypeError, "topics must be an iterable of Topic objects"),
        (topics[0], 1, TypeError, "topics must be an iterable of Topic objects .*got Topic"),
        ([{"topic_id": 1}], 1, TypeError, "topics must hold Topic objects .*got dict"),
        (topics + topics, 1, ValueError, "topics holds topic 1 twice"),
    ]:
        with pytest.raises(error, match=message):
            next(reasoner.answer(topics_given, workers=workers))
    with pytest.raises(TypeError, match="topics must be an iterable of topic ids"):
        cg.load_topics(demo_dir, split="sample", topics=1)


# --- files that are no regular file are errors that name them ---

def topic_folder(tmp_path):
    folder = tmp_path / "mine"
    write_questions(folder / "questions.jsonl", [question_row("m-1", 5, "The dam failed.", OPTIONS)])
    return folder


def test_a_dangling_docs_json_is_named(tmp_path):
    folder = topic_folder(tmp_path)
    (folder / "docs.json").symlink_to(tmp_path / "gone.json")
    with pytest.raises(DataError, match=rf"^{folder / 'docs.json'}: is a link to nothing \(dangling symlink\)$"):
        load_data(folder)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_fifo_docs_json_or_topic_file_is_named_and_not_opened(tmp_path, capsys):
    folder = topic_folder(tmp_path)
    os.mkfifo(folder / "docs.json")  # opening it to read would wait for a writer for ever
    with pytest.raises(DataError, match=rf"^{folder / 'docs.json'}: is a FIFO, not a regular file to read$"):
        load_data(folder)
    os.mkfifo(tmp_path / "t.yaml")
    assert answer.main(["--data", str(tmp_path / "t.yaml"), "--quiet"]) == 2
    assert capsys.readouterr().err == f"error: {tmp_path / 't.yaml'}: is a FIFO, not a regular file to read\n"


def test_a_docs_json_folder_in_a_data_folder_is_named(tmp_path):
    write_questions(tmp_path / "aer" / "test" / "questions.jsonl", [question_row("q1", 1, "The dam failed.", OPTIONS)])
    (tmp_path / "aer" / "sample" / "docs.json").mkdir(parents=True)
    with pytest.raises(DataError, match="sample/docs.json: is a folder, not a regular file to read"):
        load_data(tmp_path / "aer")


def test_a_folder_of_both_layouts_is_refused(tmp_path):
    write_questions(tmp_path / "aer" / "sample" / "questions.jsonl",
                    [question_row("q1", 1, "The dam failed.", OPTIONS, "A")])
    write_questions(tmp_path / "aer" / "test_data" / "questions.jsonl",
                    [question_row("q2", 1, "The dam failed.", OPTIONS)])
    for load in (lambda: load_data(tmp_path / "aer"), lambda: load_labelled(tmp_path / "aer")):
        with pytest.raises(DataError, match=r"aer: mixes the two layouts \(sample/ and test_data/\); keep one"):
            load()


# --- nothing dropped or coerced in silence ---

def test_unknown_question_fields_are_named(tmp_path, caplog):
    rows = [{**question_row(f"q{i}", 1, "The dam failed.", OPTIONS), "golden_answers": "A"} for i in range(1, 4)]
    path = write_questions(tmp_path / "questions.jsonl", [*rows, {**rows[0], "id": "q4", "option_E": "Snow."}])
    assert len(load_questions(path)) == 4
    assert f"{path}:lines 1-4: unknown field 'golden_answers' ignored (a question has id, topic_id," in caplog.text
    assert f"{path}:line 4: unknown field 'option_E' ignored" in caplog.text
    topic_file = write(tmp_path, yaml_topic(question="    golden_answers: A\n"))
    load_data(topic_file)
    assert f"{topic_file}:line 2, topic 1, question 1: unknown field 'golden_answers' ignored" in caplog.text


@pytest.mark.parametrize("name, text", [("t.yaml", yaml_topic(head="topic: null\n")),
                                        ("t.json", json.dumps({"topic": None, "questions": [
                                            question_row("q1", 1, "The dam failed.", OPTIONS)]}))])
def test_a_null_topic_name_is_refused(tmp_path, name, text):
    path = write(tmp_path, text, name)
    with pytest.raises(DataError, match=r"topic 1: topic \(its title\) must be a text, got None"):
        load_data(path)


def test_a_null_topic_name_in_docs_json_is_refused(tmp_path):
    folder = topic_folder(tmp_path)
    (folder / "docs.json").write_text(json.dumps([{"topic_id": 5, "topic": None, "docs": []}]))
    with pytest.raises(DataError, match=r"docs.json:topic entry 1: topic \(its title\) must be a text, got None"):
        load_data(folder)


def test_none_offered_more_than_once_is_named(tmp_path, caplog):
    path = write_questions(tmp_path / "q.jsonl",
                           [question_row("q1", 1, "The dam failed.", [NONE, "Rain fell.", NONE, NONE])])
    load_questions(path)
    assert (f"{path}:line 1: question 'q1' offers None of the others 3 times (option_A, option_C, option_D)"
            in caplog.text)


@pytest.mark.parametrize("text", ["\u200b", "...", "\u200b\u200d!?", "\u2014"])
def test_an_option_with_no_letter_or_digit_is_refused_naming_the_field(tmp_path, text):
    path = write_questions(tmp_path / "q.jsonl",
                           [question_row("q1", 1, "The dam failed.", ["Rain fell.", text, "Snow.", NONE])])
    with pytest.raises(DataError, match=r"q.jsonl:line 1: option_B of question 'q1' has no letter or digit"):
        load_questions(path)


def test_evaluate_says_how_much_of_a_partial_gold_file_it_scores(tmp_path, capsys):
    rows = [question_row("q1", 1, "The dam failed.", OPTIONS, "A"), question_row("q2", 1, "The town flooded.", OPTIONS),
            question_row("q3", 1, "The bridge fell.", OPTIONS)]
    gold = write_questions(tmp_path / "questions.jsonl", rows)
    pred = write(tmp_path, "".join(json.dumps({"id": f"q{i}", "answer": "A"}) + "\n" for i in (1, 2, 3)), "p.jsonl")
    assert evaluate.main(["--pred", str(pred), "--gold", str(gold)]) == 0
    out = capsys.readouterr()
    assert ("score 1.0000 over 1 question\n  (every question of the gold file with a golden_answer; 2 questions of the "
            "gold file without a golden_answer not scored)") in out.out


# --- what was a traceback is one line ---

def test_a_calibration_spread_below_the_floor_is_one_line_naming_the_file(tmp_path):
    from causalgraph.readers.trust import load_calibrations

    record = {"reader": "r", "kind": "probabilities", "method": "gold", "options": 40, "cause": 1.0, "other": -1.0,
              "spread": 1e-200, "dependence": 0.0, "sensitivity": 0.8, "specificity": 0.9}
    path = write(tmp_path, json.dumps({"readers": [record]}), "cal.json")
    with pytest.raises(DataError, match=rf"^{path}:.*spread must be at least 0.5 \(the fit's floor\), got 1e-200$"):
        load_calibrations(path)


def test_visualize_on_a_full_disk_is_one_line_and_writes_nothing(tmp_path, capsys, monkeypatch):
    topic = write(tmp_path, yaml_topic())
    out = tmp_path / "out" / "page.html"
    real_open = open

    def full_disk(file, mode="r", *args, **kwargs):
        if "w" in mode and os.path.dirname(file) == str(out.parent):
            raise OSError(28, "No space left on device")
        return real_open(file, mode, *args, **kwargs)

    monkeypatch.setattr("builtins.open", full_disk)
    assert visualize.main(["--data", str(topic), "--out", str(out), "--quiet"]) == 2
    assert capsys.readouterr().err == f"error: --out {out}: No space left on device; no page written\n"
    assert not out.parent.exists()


def test_a_question_whose_options_all_repeat_its_target_is_answered_alone(tmp_path, caplog):
    rows = [question_row("q1", 1, "The dam failed.", OPTIONS),
            question_row("q2", 1, "The dam failed.",
                         ["The dam failed.", "the dam failed", "The dam failed!", "The dam failed."]),
            question_row("q3", 2, "The town flooded.", ["The dam failed.", "Rain fell.", "A cup was won.", NONE])]
    path = write_questions(tmp_path / "data" / "sample" / "questions.jsonl", rows)
    out = tmp_path / "p.jsonl"
    assert answer_demo(tmp_path / "data", "--out", str(out)) == 0  # no --keep-going
    answers = {r["id"]: r["answer"] for r in map(json.loads, out.read_text().splitlines())}
    assert set(answers) == {"q1", "q2", "q3"} and answers["q2"] == "" and answers["q1"] and answers["q3"]
    assert (f"{path}:line 2: question 'q2' offers its target as every option; it has no answer (an event never "
            "causes itself) and is answered on its own, with no label") in caplog.text



# --- no output overwrites an input, however it is spelt ---

def test_an_output_naming_any_input_of_any_command_is_refused_and_the_input_kept(tmp_path, capsys, monkeypatch):
    from causalgraph.cli import calibrate

    monkeypatch.chdir(tmp_path)
    topic = tmp_path / "ud" / "fukushima"
    questions = write_questions(topic / "questions.jsonl", [question_row("f-1", 5, "The dam failed.", OPTIONS, "A")])
    (topic / "notes.json").write_text("{}\n")  # a topic file, as the loader may read one
    scores = write(tmp_path, json.dumps({"id": "f-1", "answer": "A"}) + "\n", "r.jsonl")
    cal = write(tmp_path, "{}", "cal.json")
    (tmp_path / "link.jsonl").symlink_to(questions)
    os.link(scores, tmp_path / "hard.jsonl")
    files = {p: p.read_bytes() for p in (questions, topic / "notes.json", scores, cal)}
    for out in ("ud/fukushima/questions.jsonl", "ud/../ud/fukushima/questions.jsonl", "link.jsonl",
                "ud/fukushima/notes.json", "r.jsonl", "hard.jsonl"):
        assert calibrate.main(["--data", "ud", "--reader-scores", "r.jsonl", "--out", out]) == 2
        assert capsys.readouterr().err == f"error: --out {out}: is an input of this run; refusing to overwrite it\n"
    for out in ("cal.json", "hard.jsonl", "ud/fukushima/notes.json"):
        assert answer.main(["--data", "ud", "--reader-scores", "r.jsonl", "--reader-calibration", "cal.json",
                            "--out", out, "--quiet"]) == 2
        assert capsys.readouterr().err == f"error: --out {out}: is an input of this run; refusing to overwrite it\n"
    assert visualize.main(["--data", "ud", "--out", "ud/fukushima/notes.json", "--quiet"]) == 2
    assert "is an input of this run" in capsys.readouterr().err
    assert {p: p.read_bytes() for p in files} == files


# --- a calibration file is checked field by field where it is read ---

ESTIMATED = {"reader": "r", "kind": "answers", "method": "gold answers", "options": 200, "cause": 1.0, "other": -1.0,
             "sensitivity": 0.8, "specificity": 0.9}


@pytest.mark.parametrize("change, message", [
    ({"sensitivity": None, "specificity": None}, "missing field 'sensitivity'"),
    ({"specificity": None}, "missing field 'specificity'"),
    ({"options": -5}, "options must be a whole number, 0 or more, got -5"),
    ({"options": 2.5}, "options must be a whole number, 0 or more, got 2.5"),
    ({"options": "200"}, "options must be a whole number, 0 or more, got '200'"),
    ({"method": 7}, "method must be a text, got 7"),
    ({"cause": None, "fallback": True, "options": -1}, "options must be a whole number, 0 or more, got -1"),
])
def test_a_calibration_record_missing_or_bad_in_any_field_is_one_line_naming_the_file(tmp_path, change, message):
    from causalgraph.readers.trust import load_calibrations

    record = {k: v for k, v in {**ESTIMATED, **change}.items() if v is not None}
    path = write(tmp_path, json.dumps({"readers": [record]}), "cal.json")
    with pytest.raises(DataError, match=rf"^{path}:readers\[0\]: {re.escape(message)}$"):
        load_calibrations(path)


def test_answer_refuses_a_calibration_missing_a_field_as_the_users_error(tmp_path, capsys):
    questions = [json.loads(line) for line in (DEMO_DATA / "sample" / "questions.jsonl").read_text().splitlines()]
    scores = write(tmp_path, "".join(json.dumps({"id": q["id"], "answer": "B"}) + "\n" for q in questions), "r.jsonl")
    record = {k: ESTIMATED[k] for k in ("reader", "kind", "method", "options", "cause", "other")}
    cal = write(tmp_path, json.dumps({"readers": [{**record, "method": "x"}]}), "cal.json")
    assert answer.main(["--demo", "--reader-scores", f"r={scores}", "--reader-calibration", str(cal), "--quiet"]) == 2
    assert capsys.readouterr().err == f"error: {cal}:readers[0]: missing field 'sensitivity'\n"


# --- one reader is counted once ---

def test_one_reader_file_given_twice_under_any_spelling_is_refused(tmp_path, capsys, monkeypatch):
    from causalgraph.cli import calibrate

    monkeypatch.chdir(tmp_path)
    questions = [json.loads(line) for line in (DEMO_DATA / "sample" / "questions.jsonl").read_text().splitlines()]
    write(tmp_path, "".join(json.dumps({"id": q["id"], "answer": "B"}) + "\n" for q in questions), "r.jsonl")
    (tmp_path / "sub").mkdir()
    (tmp_path / "link.jsonl").symlink_to(tmp_path / "r.jsonl")
    os.link(tmp_path / "r.jsonl", tmp_path / "hard.jsonl")
    for first, second in [("x=r.jsonl", "y=./r.jsonl"), ("r.jsonl", "sub/../r.jsonl"), ("x=r.jsonl", "link.jsonl"),
                          ("x=r.jsonl", f"y={tmp_path / 'hard.jsonl'}")]:
        assert answer.main(["--demo", "--reader-scores", first, "--reader-scores", second, "--quiet"]) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: --reader-scores: ") and "one file" in err and err.count("\n") == 1
    assert calibrate.main(["--data", str(DEMO_DATA / "sample"), "--reader-scores", "x=r.jsonl",
                           "--reader-scores", "y=./r.jsonl", "--out", "cal.json"]) == 2
    assert "one file" in capsys.readouterr().err and not (tmp_path / "cal.json").exists()


# --- one event, one identity, however its text is encoded ---

ZERO_WIDTH = "\u200b\u200c\u200d\u2060\ufeff"


@pytest.mark.parametrize("twin", [
    unicodedata.normalize("NFD", "The café's dam failed."),  # decomposed accents
    "The caf\u00e9's\u200b dam fail\u2060ed.\ufeff",  # zero-width characters
    "Ｔｈｅ ｃａｆé's ｄａｍ ｆａｉｌｅｄ．",  # fullwidth letters
    "The  café's\u00a0dam\n failed.",  # other whitespace
])
def test_an_event_text_names_one_event_whatever_its_unicode_form(tmp_path, twin):
    from causalgraph.graph.topic import build_graph

    target = "The café's dam failed."
    assert normalize_text(twin) == normalize_text(target)
    for none in (NONE.replace("others", "oth\u200bers"),
                 "Ｎｏｎｅ ｏｆ ｔｈｅ ｏｔｈｅｒｓ ａｒｅ ｃｏｒｒｅｃｔ ｃａｕｓｅｓ．",
                 unicodedata.normalize("NFD", NONE.upper()), ZERO_WIDTH + NONE):
        assert is_none_option(none)
    path = write_questions(tmp_path / "q.jsonl", [
        question_row("q1", 1, target, ["Rain fell.", twin, "Gates jammed.", NONE.replace("None", "No\u200bne")]),
        question_row("q2", 1, "The town flooded.", [twin, "Rain fell\u200b.", "Ｇａｔｅｓ ｊａｍｍｅｄ.", NONE])])
    topic = Topic(1, load_questions(path))
    q1, q2 = topic.questions
    assert q1.option("B") == q2.option("A") == q1.target == target and q1.none_label == "D"
    assert q2.options[1:3] == ("Rain fell.", "Gates jammed.")
    graph = build_graph(topic)
    slots = graph.graph["questions"]["q1"]
    assert slots.options["B"] == slots.target and "D" not in slots.options  # its target: no cause of itself
    assert graph.number_of_nodes() == 4 and graph.nodes[slots.target]["text"] == target


# --- checks that agree with each other ---

@pytest.mark.parametrize("text", ["", "\n", "  \n\t\n"])
def test_an_empty_or_blank_reader_file_is_an_error(tmp_path, capsys, text):
    scores = write(tmp_path, text, "r.jsonl")
    assert answer.main(["--demo", "--reader-scores", str(scores), "--quiet"]) == 2
    assert capsys.readouterr().err == (f"error: {scores}: holds no judgement (an empty file); "
                                       "give one line per question\n")


def test_gold_listing_none_beside_a_cause_is_refused_wherever_gold_is_read(tmp_path, capsys):
    from causalgraph.cli import calibrate

    rows = [question_row("q1", 1, "The dam failed.", OPTIONS, "A,D"),
            question_row("q2", 1, "The town flooded.", OPTIONS, "B")]
    gold = write_questions(tmp_path / "mine" / "questions.jsonl", rows)
    message = "line 1: golden_answer 'A,D' of question 'q1' lists None of the others (D) beside a cause"
    with pytest.raises(DataError, match=rf"^{re.escape(f'{gold}:{message}')}$"):
        load_questions(gold)
    with pytest.raises(DataError, match=rf"^{re.escape(f'{gold}:{message}')}$"):
        load_data(gold.parent)
    pred = write(tmp_path, json.dumps({"id": "q1", "answer": "A,D"}) + "\n", "p.jsonl")
    for run in (lambda: evaluate.main(["--pred", str(pred), "--gold", str(gold)]),
                lambda: answer.main(["--data", str(gold.parent), "--quiet"]),
                lambda: calibrate.main(["--data", str(gold.parent), "--reader-scores", str(pred), "--out",
                                        str(tmp_path / "cal.json")])):
        assert run() == 2
        assert capsys.readouterr().err == f"error: {gold}:{message}\n"


def test_a_confidence_written_as_a_whole_float_is_read_as_the_integer():
    from causalgraph.readers.llm import parse_reply

    reply = {label: {"verdict": label == "A", "confidence": c} for label, c in zip("ABCD", (80.0, 60, 1e2, 75))}
    judged = parse_reply(json.dumps(reply))
    assert judged is not None and judged["A"].probability == pytest.approx(0.8) and judged["C"].probability == 0.0
    for bad in (80.5, float("nan"), 49.0, "80"):
        assert parse_reply(json.dumps({**reply, "B": {"verdict": True, "confidence": bad}})) is None


def test_docs_json_reads_date_as_parsed_date_and_names_unknown_keys(tmp_path, caplog):
    folder = topic_folder(tmp_path)
    docs = [{"content": "Rain fell.", "date": "2024-03-02", "link": "https://x", "imageUrl": "", "section": "news"},
            {"content": "Gates jammed.", "parsed_date": "2024-03-06", "date": "2020-01-01"},
            {"content": "A cup was won.", "pubdate": "2024-03-03"}, {"content": "The dam failed.", "pubdate": "x"}]
    (folder / "docs.json").write_text(json.dumps([{"topic_id": 5, "docs": docs, "sources": []}]))
    [topic] = load_data(folder)
    assert [d.date for d in topic.documents] == ["2024-03-02", "2024-03-06", "", ""]
    warnings = [r.getMessage() for r in caplog.records]
    assert warnings == [
        f"{folder / 'docs.json'}:topic entry 1: unknown field 'sources' ignored (a topic entry has topic_id, topic, "
        "docs)",
        f"{folder / 'docs.json'}:topic entry 1, document 3 (and 1 more): unknown field 'pubdate' ignored (a "
        "document has id, title, content, snippet, source, parsed_date, date, link, imageUrl, section)"]


# --- costs bounded by what is used, not by what is given ---

def reader_file_peak(tmp_path, lines: int) -> int:
    """The peak bytes that reading a reader file takes: one judged question among `lines` ids of no question."""
    path = tmp_path / f"r{lines}.jsonl"
    with open(path, "w") as out:
        out.write(json.dumps({"id": "q1", "answer": "A"}) + "\n")
        out.writelines(json.dumps({"id": f"other-{i}", "probs": {"A": 0.25, "B": 0.5, "C": 0.75, "D": 1}}) + "\n"
                       for i in range(lines))
    questions = {"q1": Question("q1", 1, "The dam failed.", tuple(OPTIONS))}
    tracemalloc.start()
    try:
        reader = load_reader_scores(path, questions)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
        assert set(reader.judgements) == {("q1", label) for label in "ABCD"}


def test_a_reader_file_of_other_ids_takes_memory_bounded_by_its_matches(tmp_path):
    # every line was once read, checked and made judgements before the ids were matched: 2.8 GB for 90 MB
    small, large = reader_file_peak(tmp_path, 5_000), reader_file_peak(tmp_path, 20_000)
    assert large < 1.5 * small and large < 1_000_000, (small, large)


def clash_solves(monkeypatch, pairs: int) -> int:
    """The searches that solving a topic of `pairs` clashing pairs of questions takes (lab/speed/hostile_costs.py:
    each question alone is answerable, each pair is not), each over the whole topic's grounding."""
    questions = []
    for i in range(pairs):
        a, b = f"Event A{i} happened.", f"Event B{i} happened."
        questions += [Question(f"q{i}a", 1, a, (b, b, f"Filler C{i}.", f"Filler D{i}.")),
                      Question(f"q{i}b", 1, b, (a, a, f"Filler E{i}.", f"Filler F{i}."))]
    searches = []
    search = solve_module.TopicProgram._search
    monkeypatch.setattr(solve_module.TopicProgram, "_search", lambda *a, **k: searches.append(1) or search(*a, **k))
    solution = solve_module.solve_topic(build_graph(Topic(1, questions)), {})
    assert solution.dropped == ("consistency",) and all(solution.answers.values()) and not solution.alone
    return len(searches)


def test_the_searches_of_a_topic_of_clashing_questions_do_not_grow_with_it(monkeypatch):
    # each question was solved alone over the whole grounding: 2,000 questions took 78 s, 5,000 over 300 s
    small, large = clash_solves(monkeypatch, 20), clash_solves(monkeypatch, 80)
    assert large <= small, (small, large)


def test_the_cache_files_of_many_tiny_documents_do_not_grow_with_them(tmp_path, monkeypatch):
    # each document's reading and embeddings were a file apiece: 10,000 tiny documents left 21,020 files, each
    # write scanning the folder for debris
    read = []
    monkeypatch.setattr(cache, "iter_readings",
                        lambda documents: (read.append(d) or DocumentReading((), ()) for d in documents))
    store = cache.AnalysisCache.open(tmp_path, "hub/name")
    documents = [Document(f"d{i}", "Note", f"Rain fell on day {i}.") for i in range(600)]
    assert store.read(documents[:200]) == [DocumentReading((), ())] * 200
    small = sum(p.is_file() for p in tmp_path.rglob("*"))
    assert store.read(documents) == [DocumentReading((), ())] * 600 and len(read) == 600  # each read once
    assert sum(p.is_file() for p in tmp_path.rglob("*")) == small <= 3
