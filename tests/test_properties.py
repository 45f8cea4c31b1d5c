"""Property-based tests: the question loader round trip, the official scorer, and the reasoner's invariants on
generated small topics with random scores (real clingo)."""

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from causalgraph.data import LABELS, Question, Topic, load_questions, question_score
from causalgraph.graph.topic import build_graph, candidate_pairs
from causalgraph.run.output import jsonl, write_files
from causalgraph.reason.solve import RELAXABLE, SolverParams, solve_topic

from .conftest import NONE, assert_valid_solution

texts = st.text(min_size=1, max_size=40).filter(lambda t: t.strip())
label_sets = st.frozensets(st.sampled_from(LABELS))


@st.composite
def questions(draw) -> Question:
    return Question(
        qid=draw(st.text(min_size=1, max_size=12).filter(lambda t: t.strip())),
        topic_id=draw(st.integers(-(10**6), 10**6)),
        target=draw(texts),
        options=tuple(draw(st.lists(texts, min_size=4, max_size=4))),
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
