"""Each rule group on a tiny hand-made topic where switching it off changes the answer; unsatisfiable topics
and the time limit (real clingo)."""

import random
import time

import pytest

from causalgraph.data import Question, Topic
from causalgraph.explain import explain_question
from causalgraph.graph import build_graph, candidate_pairs
from causalgraph.reason import SolverParams, solve_topic

from .conftest import assert_valid_solution

NONE = "None of the others are correct causes."
RAIN, GATES, FAIL, CUP, FLOOD, INQUIRY = (
    "Rain fell on March 2.", "Gates jammed on March 6.", "The dam failed on March 7.",
    "A cup was won on March 3.", "The town flooded on March 7.", "An inquiry opened on March 15.",
)


def topic(*questions) -> Topic:
    return Topic(1, [Question(qid, 1, target, tuple(options)) for qid, target, options in questions])


def solve(t: Topic, probs: dict, after=(), without=(), **params):
    graph = build_graph(t)
    ids = {graph.nodes[n]["text"]: n for n in graph}
    scores = {(ids[e], ids[c]): p for (e, c), p in probs.items()}
    dated = {(ids[e], ids[c]) for e, c in after}
    return solve_topic(graph, scores, dated, frozenset(without), SolverParams(**params))


def test_core_answers_every_question_with_one_to_three_labels():
    t = topic(("q1", FAIL, [RAIN, GATES, CUP, INQUIRY]))
    probs = {(RAIN, FAIL): 0.9, (GATES, FAIL): 0.9, (CUP, FAIL): 0.9, (INQUIRY, FAIL): 0.9}
    assert len(solve(t, probs).answers["q1"]) == 3
    low = {k: 0.01 for k in probs}
    assert len(solve(t, low).answers["q1"]) == 1


def test_none_group_selects_none_when_offered():
    t = topic(("q1", FAIL, [RAIN, CUP, GATES, NONE]))
    probs = {(RAIN, FAIL): 0.7, (CUP, FAIL): 0.2, (GATES, FAIL): 0.3}
    solution = solve(t, probs)
    assert solution.answers["q1"] == {"D"} and ("none", "q1") in solution.forced
    assert solve(t, probs, without=["none"]).answers["q1"] == {"A"}


def test_lower_none_prior_lets_strong_evidence_win():
    t = topic(("q1", FAIL, [RAIN, CUP, GATES, NONE]))
    probs = {(RAIN, FAIL): 0.95, (CUP, FAIL): 0.2, (GATES, FAIL): 0.3}
    assert solve(t, probs, none_prior=100).answers["q1"] == {"A"}


def test_consistency_carries_a_rejection_across_questions():
    # q2 answers None, so RAIN -> FAIL is not a cause; q1 must then pick GATES despite its lower score.
    t = topic(("q1", FAIL, [RAIN, GATES, CUP, INQUIRY]), ("q2", FAIL, [RAIN, CUP, INQUIRY, NONE]))
    probs = {(RAIN, FAIL): 0.8, (GATES, FAIL): 0.6, (CUP, FAIL): 0.1, (INQUIRY, FAIL): 0.1}
    solution = solve(t, probs)
    assert solution.answers == {"q1": {"B"}, "q2": {"D"}}
    assert ("consistency", 1, 0) in solution.excluded  # node 1 is RAIN, node 0 the target FAIL
    assert solve(t, probs, without=["consistency"]).answers["q1"] == {"A", "B"}


def test_temporal_excludes_an_event_dated_after_the_target():
    t = topic(("q1", FAIL, [INQUIRY, GATES, CUP, RAIN]))
    probs = {(INQUIRY, FAIL): 0.9, (GATES, FAIL): 0.6, (CUP, FAIL): 0.1, (RAIN, FAIL): 0.2}
    solution = solve(t, probs, after=[(INQUIRY, FAIL)])
    assert solution.answers["q1"] == {"B"} and any(g == "temporal" for g, _, _ in solution.excluded)
    assert solve(t, probs, after=[(INQUIRY, FAIL)], without=["temporal"]).answers["q1"] == {"A", "B"}


def test_temporal_forbids_mutual_causes():
    t = topic(("q1", FAIL, [FLOOD, CUP, RAIN, INQUIRY]), ("q2", FLOOD, [FAIL, CUP, RAIN, INQUIRY]))
    probs = {(FLOOD, FAIL): 0.7, (FAIL, FLOOD): 0.9}
    probs.update({(x, y): 0.05 for x in (CUP, RAIN, INQUIRY) for y in (FAIL, FLOOD)})
    solution = solve(t, probs)
    assert solution.answers["q2"] == {"A"} and solution.answers["q1"] != {"A"}
    assert solve(t, probs, without=["temporal"]).answers["q1"] == {"A"}


def test_directness_penalises_the_shortcut_of_a_chain():
    # RAIN -> GATES -> FAIL; the shortcut RAIN -> FAIL is dropped when chains are penalised.
    t = topic(("q1", FAIL, [RAIN, GATES, CUP, INQUIRY]), ("q2", GATES, [RAIN, CUP, INQUIRY, FLOOD]))
    probs = {(RAIN, FAIL): 0.6, (GATES, FAIL): 0.9, (RAIN, GATES): 0.9}
    probs.update({(x, y): 0.05 for x in (CUP, INQUIRY, FLOOD) for y in (FAIL, GATES)})
    assert solve(t, probs, chain_penalty=200).answers["q1"] == {"B"}
    assert solve(t, probs, chain_penalty=200, without=["directness"]).answers["q1"] == {"A", "B"}


def test_optimize_follows_the_scores():
    t = topic(("q1", FAIL, [RAIN, GATES, CUP, INQUIRY]))
    probs = {(RAIN, FAIL): 0.1, (GATES, FAIL): 0.2, (CUP, FAIL): 0.15, (INQUIRY, FAIL): 0.3}
    assert solve(t, probs).answers["q1"] == {"D"}
    assert solve(t, probs, bias=-300).answers["q1"] == {"B", "C", "D"}
    unoptimised = solve(t, probs, without=["optimize"])
    assert unoptimised.answers["q1"] != {"D"} and unoptimised.cost == ()


def test_unknown_rule_group_is_an_error():
    with pytest.raises(ValueError, match="unknown rule group 'nonsense'"):
        solve(topic(("q1", FAIL, [RAIN, GATES, CUP, INQUIRY])), {}, without=["nonsense"])


def test_unsatisfiable_topic_drops_temporal_warns_and_keeps_the_other_groups(caplog):
    # Every option but FLOOD is dated after FAIL and every option but FAIL after FLOOD, so q1 and q2 make
    # FLOOD and FAIL cause each other, which temporal forbids. Without temporal, consistency still carries
    # FLOOD -> FAIL into q3, which would otherwise answer None (a real option there costs none_prior = 100,
    # more than FLOOD's log-odds of 41).
    t = topic(("q1", FAIL, [FLOOD, RAIN, CUP, INQUIRY]), ("q2", FLOOD, [FAIL, RAIN, CUP, INQUIRY]),
              ("q3", FAIL, [FLOOD, GATES, CUP, NONE]))
    graph = build_graph(t)
    ids = {graph.nodes[n]["text"]: n for n in graph}
    low = {(ids[x], ids[y]): 0.1 for x in (RAIN, CUP, INQUIRY, GATES) for y in (FAIL, FLOOD) if graph.has_edge(ids[x], ids[y])}
    scores = {**low, (ids[FLOOD], ids[FAIL]): 0.6, (ids[FAIL], ids[FLOOD]): 0.6}
    after = {(ids[x], ids[y]) for x in (RAIN, CUP, INQUIRY) for y in (FAIL, FLOOD)}
    solution = solve_topic(graph, scores, after, params=SolverParams(none_prior=100))
    assert solution.dropped == ("temporal",)
    assert "topic 1: program unsatisfiable; dropping rule group 'temporal'" in caplog.text
    assert solution.answers == {"q1": {"A"}, "q2": {"A"}, "q3": {"A"}}
    assert_valid_solution(graph, solution, after)
    record = explain_question(t.questions[2], graph, scores, solution)
    assert record["dropped_rule_groups"] == ["temporal"]


def test_groups_are_dropped_in_relax_order_until_satisfiable(caplog):
    # Four spellings of one event are one node: consistency wants all four labels, the core allows three.
    spellings = ["Rain fell on March 2.", "rain fell on March 2", "RAIN FELL ON MARCH 2!", "Rain  fell on March 2."]
    solution = solve(topic(("q1", FAIL, spellings)), {(spellings[0], FAIL): 0.9})
    assert solution.dropped == ("temporal", "consistency")
    assert caplog.text.count("program unsatisfiable") == 2
    assert 1 <= len(solution.answers["q1"]) <= 3


def test_time_limit_gives_a_valid_answer_and_warns_when_not_optimal(caplog):
    # Chain and hub penalties make this topic take minutes to prove optimal.
    rng = random.Random(0)
    events = [f"Event {i} happened on May {i + 1}." for i in range(15)]
    questions = []
    for i in range(40):
        target, *options = rng.sample(events, 5)
        questions.append((f"q{i}", target, options))
    graph = build_graph(topic(*questions))
    scores = {pair: rng.random() for pair in candidate_pairs(graph)}
    start = time.perf_counter()
    solution = solve_topic(graph, scores, set(), params=SolverParams(chain_penalty=60, hub_penalty=20), time_limit=0.05)
    assert time.perf_counter() - start < 20
    assert_valid_solution(graph, solution)
    assert ("solver time limit reached" in caplog.text) == (not solution.optimal)
