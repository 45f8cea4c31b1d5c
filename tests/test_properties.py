"""Property-based tests: the question loader round trip, the official scorer, and the reasoner's invariants on
generated small topics with random scores (real clingo); hostile ids (NULs, lone surrogates, deep nesting) and
file names, and the output writer."""

import json
import os
import tempfile
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causalgraph.data import LABELS, DataError, Question, Topic, load_questions, question_score
from causalgraph.data.records import normalize_text
from causalgraph.graph.topic import build_graph, candidate_pairs
from causalgraph.readers.scores import reader_name
from causalgraph.run.output import jsonl
from causalgraph.data.files import write_files
from causalgraph.reason.solve import RELAXABLE, SolverParams, solve_topic

from .conftest import NONE, assert_valid_solution

texts = st.text(min_size=1, max_size=40).filter(lambda t: any(c.isalnum() for c in t))  # no letter or digit: refused
label_sets = st.frozensets(st.sampled_from(LABELS))


@st.composite
def questions(draw) -> Question:
    target = draw(texts)
    options = tuple(draw(st.lists(texts, min_size=4, max_size=4).filter(  # the target as every option: refused
        lambda os: len({normalize_text(t) for t in (target, *os)}) > 1)))
    return Question(
        qid=draw(st.text(min_size=1, max_size=12).filter(lambda t: t.strip() and "\0" not in t)),  # NUL: refused
        topic_id=draw(st.integers(0, 10**6)),  # a negative topic id: refused
        target=target,
        options=options,
        gold=draw(st.none() | label_sets.filter(bool)),
    )


def as_row(q: Question) -> dict:
    row = {"id": q.qid, "topic_id": q.topic_id, "target_event": q.target}
    row.update({f"option_{label}": text for label, text in zip(LABELS, q.options)})
    if q.gold is not None:
        row["golden_answer"] = ",".join(sorted(q.gold))
    return row


@given(st.lists(questions(), max_size=8, unique_by=lambda q: q.qid))
@settings(max_examples=60, deadline=None)
def test_questions_survive_a_write_and_load(generated):
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "questions.jsonl"
        write_files({path: jsonl(as_row(q) for q in generated)})
        assert load_questions(path) == generated


@given(label_sets, label_sets.filter(bool))
def test_official_score(predicted, gold):
    score = question_score(predicted, gold)
    assert score in (0.0, 0.5, 1.0)
    assert (score == 1.0) == (predicted == gold)
    assert (score == 0.5) == (bool(predicted) and predicted < gold)


@st.composite
def small_topics(draw):
    """A topic of 1-5 questions over 3-7 events (options may repeat, None may be offered), random edge scores,
    random "dated after" facts and random solver constants."""
    events = [f"Event {i} happened." for i in range(draw(st.integers(3, 7)))]
    questions = []
    for i in range(draw(st.integers(1, 5))):
        target = draw(st.sampled_from(events))
        options = draw(st.lists(st.sampled_from([e for e in events if e != target]), min_size=4, max_size=4))
        none_slot = draw(st.none() | st.integers(0, 3))
        if none_slot is not None:
            options[none_slot] = NONE
        questions.append(Question(f"q{i}", 1, target, tuple(options)))
    graph = build_graph(Topic(1, questions))
    pairs = candidate_pairs(graph)
    scores = {pair: draw(st.floats(0, 1)) for pair in pairs}
    after = draw(st.sets(st.sampled_from(pairs))) if pairs else set()
    params = SolverParams(
        bias=draw(st.integers(-300, 300)),
        none_prior=draw(st.sampled_from([None, 0, 100, 10000])),
    )
    return graph, scores, after, params


@given(small_topics())
@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_reasoner_invariants(generated):
    graph, scores, after, params = generated
    solution = solve_topic(graph, scores, after, params=params)
    assert set(solution.dropped) <= set(RELAXABLE) and len(set(solution.dropped)) == len(solution.dropped)
    assert_valid_solution(graph, solution, after)


# Every character, NUL and lone surrogates included.
any_text = st.text(st.characters(exclude_categories=()), max_size=12)


# JSON text of an id or a topic id as a hostile input file may hold it: any string, a long integer, a deep nesting.
hostile_values = (any_text.map(json.dumps) | st.integers(-(10**20), 10**20).map(str)
                  | st.integers(1, 3000).map(lambda depth: "[" * depth + "]" * depth))


@given(st.lists(st.tuples(hostile_values, hostile_values), min_size=1, max_size=5))
@settings(max_examples=150, deadline=None)
def test_hostile_ids_load_or_name_their_line(values):
    options = "".join(f', "option_{label}": "{label}."' for label in LABELS)
    rows = [f'{{"id": {qid}, "topic_id": {topic}, "target_event": "T."{options}}}' for qid, topic in values]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "q.jsonl"
        path.write_text("\n".join(rows) + "\n")
        try:
            loaded = load_questions(path)
        except DataError as err:
            assert str(err).startswith(f"{path}:line ") and "\n" not in str(err) and len(str(err)) < 400
            return
    for question in loaded:  # what loads can be written to every output and passed to clingo
        assert "\0" not in question.qid and question.qid.encode("utf-8") and abs(question.topic_id) < 10**18


@given(st.binary(min_size=1, max_size=20) | any_text.filter(bool))
def test_reader_names_are_printable_utf8(raw):
    text = os.fsdecode(raw) if isinstance(raw, bytes) else raw
    name = reader_name(text)
    assert name.encode("utf-8") and not any(unicodedata.category(c) == "Cc" for c in name)
    if text.isprintable() and text.encode("utf-8", "surrogatepass").decode("utf-8", "replace") == text:
        assert name == text


file_names = st.text("abcdefgh.-_", min_size=1, max_size=8).filter(lambda n: n not in (".", ".."))


@given(st.dictionaries(file_names, st.binary(max_size=50), min_size=1, max_size=4), st.sets(file_names, max_size=4))
@settings(max_examples=60, deadline=None)
def test_write_files_leaves_the_outputs_and_nothing_else(files, existing):
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        for name in existing:
            (root / name).write_bytes(b"old")
        write_files({root / name: content for name, content in files.items()})
        assert {p.name for p in root.iterdir()} == set(files) | existing
        assert all((root / name).read_bytes() == content for name, content in files.items())
