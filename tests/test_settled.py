"""The options the rules settle whatever the evidence says (clingo's brave and cautious consequences), and the
open ones that reader calibration rests on."""

from causalgraph.data import Question, Topic
from causalgraph.graph.topic import build_graph
from causalgraph.reason.settled import settled_options
from causalgraph.config import DEFAULT_MODEL
from causalgraph.run.batch import Settings

NONE = "None of the others are correct causes."
RAIN, GATES, FAIL, CUP, FLOOD, INQUIRY = (
    "Rain fell.", "Gates jammed.", "The dam failed.", "A cup was won.", "The town flooded.", "An inquiry opened.",
)


def settle(*questions, after=(), priors="aer"):
    graph = build_graph(Topic(1, [Question(qid, 1, target, tuple(options)) for qid, target, options in questions]))
    ids = {graph.nodes[n]["text"]: n for n in graph}
    without, params = Settings(DEFAULT_MODEL, priors=priors).rules()
    return settled_options(graph, {(ids[e], ids[t]) for e, t in after}, None, without, params)


def test_none_questions_repeats_and_pairs_rejected_elsewhere_are_settled_the_rest_open():
    settled = settle(
        ("q1", FLOOD, [RAIN, GATES, CUP, NONE]),  # offers None: its real options are not causes
        ("q2", FLOOD, [RAIN, FAIL, FAIL, INQUIRY]),  # RAIN rejected in q1; FAIL repeated, so a cause
        ("q3", INQUIRY, [RAIN, GATES, CUP, FAIL]),  # nothing settles it
    )
    assert {k: v for k, v in settled.items() if k[0] == "q1"} == {("q1", "A"): False, ("q1", "B"): False,
                                                                  ("q1", "C"): False}
    assert settled[("q2", "A")] is False and settled[("q2", "B")] is True and settled[("q2", "C")] is True
    assert ("q2", "D") not in settled  # open: the repeated option answers q2, so D may or may not join it
    assert not any(k[0] == "q3" for k in settled)


def test_an_option_that_is_its_target_or_dated_after_it_is_settled_as_no_cause():
    settled = settle(("q1", FLOOD, [FLOOD, RAIN, GATES, CUP]), after=[(CUP, FLOOD)])
    assert settled == {("q1", "A"): False, ("q1", "D"): False}


def test_the_last_open_option_of_a_question_is_settled_as_its_answer():
    settled = settle(("q1", FLOOD, [RAIN, GATES, CUP, FAIL]), ("q2", FLOOD, [RAIN, GATES, CUP, NONE]),
                     ("q3", INQUIRY, [RAIN, GATES, CUP, FAIL]))
    assert settled[("q1", "D")] is True  # RAIN, GATES and CUP are rejected where q2 answers None
    assert not any(k[0] == "q3" for k in settled)


def test_without_the_construction_priors_a_none_question_and_a_repeat_settle_nothing():
    settled = settle(("q1", FLOOD, [RAIN, GATES, CUP, NONE]), ("q2", FLOOD, [RAIN, FAIL, FAIL, INQUIRY]),
                     priors="none")
    assert settled == {}  # the evidence decides them under --priors none, so a reader is judged on them
