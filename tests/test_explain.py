"""What decided each option (rules/explain.lp's why atoms) and each question's confidence, checked against the
answer set they explain: every option of every question has a why, and each why holds of the answer set, the
facts and the gains, computed here on their own. On random topics, the demo topic and (slow) the labelled
topics cut to the test split's shapes."""

import random

import pytest

from causalgraph.config import DEFAULT_ENCODER
from causalgraph.data import Question, Topic
from causalgraph.graph.topic import build_graph
from causalgraph.reason.facts import Forced, log_odds
from causalgraph.readers.base import Judgement, ReaderJudgements
from causalgraph.reason.explain import explain_question
from causalgraph.reason.solve import SolverParams, solve_topic

from .test_reason import NONE, random_topic

SELECTED = {"prior", "evidence", "carried", "pair", "guess", "carried_guess", "against_none", "none_prior", "none_left",
            "none_empty", "none_unweighed", "unexplained"}
COSTS = {"none_in", "mutual", "cap", "cap_in", "doc_after", "shortcut", "pair_short", "shared", "serves"}


def check_whys(graph, scores, after, solution, bias: int, readers=(), none_weight: int | None = None) -> int:
    """Assert that every option of every question has why atoms that hold of the solution (answered with
    `readers`, and a None prior of `none_weight` at the readers' level where given); the number of options
    checked."""
    questions = graph.graph["questions"]
    answers = solution.answers
    gain = solution.gains

    def offers(pair):
        return [(q, l) for q, s in questions.items() for l, e in s.options.items() if (e, s.target) == pair]

    def own(q, l):
        return Forced("priors", q, l) in solution.forced or gain[(q, l)] > 0

    checked = 0
    for qid, slots in questions.items():
        none = slots.none_label
        real = {l: e for l, e in slots.options.items() if e != slots.target}
        for label, event in real.items():  # the edge log-odds less the bias (optimize on), plus the readers'
            p = scores.get((event, slots.target))
            edge = 0 if p is None or not solution.weighed else log_odds(p) - bias
            assert gain[(qid, label)] == edge + sum(added(r, qid, label) for r in readers), (qid, label)
        for label in [l for l in "ABCD" if l in slots.options or l == none]:  # not a second None option
            whys = solution.why_atoms(qid, label)
            kinds = {w.kind for w in whys}
            assert whys and "unexplained" not in kinds, (qid, label, whys)
            selected = label in answers[qid]
            if kinds != {"unweighed"}:  # said of chosen and rejected options alike
                assert selected == (kinds <= SELECTED), (qid, label, kinds)
            assert len(kinds) == 1 or kinds <= COSTS, (qid, label, kinds)  # one rank
            event = slots.options.get(label)
            pair = (event, slots.target)
            g = gain.get((qid, label))
            for w in whys:
                other = w.other
                if w.kind == "prior":
                    assert list(slots.options.values()).count(event) > 1
                elif w.kind == "evidence":
                    assert g > 0
                elif w.kind == "carried":
                    assert not own(qid, label) and other != qid
                    assert any(q == other and label2 in answers[q] and own(q, label2) for q, label2 in offers(pair))
                elif w.kind == "guess":
                    assert qid in solution.guesses and none is None and g <= 0
                    assert not any(own(qid, l) for l in answers[qid] if l in real)
                elif w.kind == "carried_guess":
                    assert other in solution.guesses and any(q == other and l in answers[q] for q, l in offers(pair))
                elif w.kind in ("none_prior", "none_left", "none_empty"):
                    assert label == none and answers[qid] == {none}
                    assert any(gain[(qid, l)] > 0 for l in real) == (w.kind != "none_empty")
                elif w.kind == "real_chosen":
                    assert label == none and answers[qid] and none not in answers[qid]
                elif w.kind == "self":
                    assert event == slots.target
                elif w.kind == "temporal":
                    assert pair in after
                elif w.kind == "none_answer":
                    assert answers[qid] == {none}
                elif w.kind in COSTS:  # it would be chosen on its own gain: above the bias, or a better guess
                    assert g > 0 or (qid in solution.guesses and any(g > gain[(qid, l)] for l in answers[qid]))
                    if w.kind == "none_in":
                        assert other != qid and answers[other] == {questions[other].none_label}
                        assert any(q == other for q, _ in offers(pair))
                    elif w.kind == "mutual":
                        assert any(q == other and l in answers[q] for q, l in offers((slots.target, event)))
                    elif w.kind == "cap":
                        assert len(answers[qid]) == 3
                    elif w.kind == "cap_in":
                        assert len(answers[other]) == 3 and any(q == other for q, _ in offers(pair))
                    elif w.kind == "pair_short":  # readers differ by question: the pair's summed gain is not positive
                        assert g > 0 and solution.pair_gains[(qid, label)] <= 0
                    elif w.kind == "shared":
                        assert qid in solution.guesses
                        assert any(q == other and gain[(q, l)] <= 0 for q, l in offers(pair))
                    elif w.kind == "serves":  # a label chosen here is chosen in `other` too, for the same pair
                        assert qid in solution.guesses and any(
                            any(q == other and l2 in answers[q]
                                for q, l2 in offers((questions[qid].options[l], slots.target)))
                            for l in answers[qid])
                    else:
                        raise AssertionError(f"no check for {w}")
                elif w.kind == "short":
                    assert (g <= 0 if solution.weighed else g < 0) and not selected
                elif w.kind == "against_none":  # the readers weigh against None more than the option falls short
                    assert solution.weighed and none_weight is not None and selected and g <= 0
                    assert solution.none_gains[(qid, none)] + none_weight < g
                elif w.kind == "unweighed":
                    assert not solution.weighed and (label == none or g == 0 or selected)
                elif w.kind == "none_unweighed":
                    assert not solution.weighed and answers[qid] == {none}
                else:
                    raise AssertionError(f"no check for {w}")
            checked += 1
    return checked


def added(reader, qid: str, label: str) -> int:
    """What the reader's judgement adds to the option's gain: its log-odds at its weight, truncated as clingo
    divides."""
    judgement = reader.judgements.get((qid, label))
    if judgement is None:
        return 0
    product = judgement.log_odds() * reader.weight
    return (1 if product >= 0 else -1) * (abs(product) // 100)


def check_confidence(solution, qids) -> None:
    """Every question has a confidence whose alternative differs from its answer and costs no less."""
    for qid in qids:
        c = solution.confidence[qid]
        assert c.alternative is None or c.alternative != solution.answers[qid]
        assert c.alternative is None or c.margin >= (0,) * len(c.margin), (qid, c)


def test_every_option_of_random_topics_has_a_why_that_holds():
    rng = random.Random(11)
    checked = kinds = 0
    seen: set[str] = set()
    for _ in range(80):
        t, graph, scores, after = random_topic(rng)
        bias = rng.choice([0, 100, 200])
        plain = rng.random() < 0.25  # --priors none: no priors group, a None prior that weighs nothing
        solution = solve_topic(graph, scores, after, without=frozenset({"priors"}) if plain else frozenset(),
                               params=SolverParams(bias=bias, none_prior=0 if plain else None), explain=True)
        checked += check_whys(graph, scores, after, solution, bias)
        check_confidence(solution, [q.qid for q in t.questions])
        seen |= {w.kind for w in solution.why}
    kinds = len(seen)
    assert checked > 500 and kinds >= 10, seen


def test_every_option_with_readers_or_without_optimize_has_a_why_that_holds():
    # Random readers (answers and probabilities, on None options too) at random weights, the None prior at the
    # readers' level or above it, and the optimize group on or off.
    rng = random.Random(12)
    checked = 0
    seen: set[str] = set()
    for _ in range(80):
        t, graph, scores, after = random_topic(rng)
        judged = {(q.qid, label): (Judgement(verdict=rng.random() < 0.5) if rng.random() < 0.5 else
                                   Judgement(probability=rng.uniform(0.01, 0.99)))
                  for q in t.questions for label in "ABCD" if rng.random() < 0.7}
        readers = (ReaderJudgements("r", judged, rng.choice([0, 50, 100, 300])),) if rng.random() < 0.8 else ()
        bias = rng.choice([0, 100, 200])
        none_weight = rng.choice([None, 0, 150])
        without = frozenset({"optimize"}) if rng.random() < 0.4 else frozenset()
        solution = solve_topic(graph, scores, after, without=without,
                               params=SolverParams(bias=bias, none_prior=none_weight),
                               readers=readers, explain=True)
        checked += check_whys(graph, scores, after, solution, bias, readers, none_weight)
        seen |= {w.kind for w in solution.why}
    assert checked > 500 and {"against_none", "unweighed", "none_unweighed", "short", "evidence"} <= seen, seen


FAIL, RAIN, GATES, CUP, INQUIRY, BUILT = ("The dam failed on March 7.", "Rain fell on March 2.",
                                         "Gates jammed on March 6.", "A cup was won on March 3.",
                                         "An inquiry opened on March 15.", "The dam was built in 1952.")


def solved(questions, probs, **params):
    t = Topic(1, [Question(q, 1, target, tuple(options)) for q, target, options in questions])
    graph = build_graph(t)
    ids = {graph.nodes[n]["text"]: n for n in graph}
    scores = {(ids[e], ids[c]): p for (e, c), p in probs.items()}
    solution = solve_topic(graph, scores, params=SolverParams(**{"bias": 200, **params}), explain=True)
    check_whys(graph, scores, set(), solution, params.get("bias", 200))
    return solution


def kinds(solution, qid):
    return {label: sorted(f"{w.kind}:{w.other}" for w in solution.why_atoms(qid, label)) for label in "ABCD"}


def test_a_forced_guess_and_a_better_guess_that_consistency_would_carry():
    # No option clears the bias: each question must guess. BUILT is q2's best guess, but taking it in q1 too
    # (consistency) costs more than q1's own guess, RAIN.
    s = solved([("q1", FAIL, [RAIN, BUILT, CUP, INQUIRY]), ("q2", FAIL, [BUILT, GATES, CUP, INQUIRY])],
               {(RAIN, FAIL): 0.75, (BUILT, FAIL): 0.74, (GATES, FAIL): 0.5, (CUP, FAIL): 0.05, (INQUIRY, FAIL): 0.05})
    # log-odds 110 (RAIN), 105 (BUILT), 0 (GATES) against the bias 200: BUILT in both costs 190, RAIN and GATES 290
    assert s.guesses == {"q1", "q2"} and s.answers == {"q1": {"B"}, "q2": {"A"}}
    assert kinds(s, "q1")["B"] == ["guess:q1"] and kinds(s, "q2")["A"] == ["guess:q2"]
    assert kinds(s, "q1")["A"] == ["serves:q2"]  # the better guess of q1 alone
    # the same with q2 unable to take BUILT cheaply: RAIN is offered in q2 at a low score
    s = solved([("q1", FAIL, [RAIN, BUILT, CUP, INQUIRY]), ("q2", FAIL, [RAIN, GATES, CUP, INQUIRY])],
               {(RAIN, FAIL): 0.75, (BUILT, FAIL): 0.74, (GATES, FAIL): 0.73, (CUP, FAIL): 0.05, (INQUIRY, FAIL): 0.05})
    assert s.answers["q1"] in ({"A"}, {"B"})


def test_carried_from_the_question_whose_prior_forced_it():
    # q2 repeats GATES, so the priors force it there; consistency carries the pair into q1, where its own
    # evidence is below the bias.
    s = solved([("q1", FAIL, [GATES, RAIN, CUP, INQUIRY]), ("q2", FAIL, [GATES, CUP, GATES.upper(), INQUIRY])],
               {(GATES, FAIL): 0.3, (RAIN, FAIL): 0.95, (CUP, FAIL): 0.05, (INQUIRY, FAIL): 0.05})
    assert kinds(s, "q2")["A"] == ["prior:q2"] and kinds(s, "q1")["A"] == ["carried:q2"]
    assert kinds(s, "q1")["B"] == ["evidence:q1"] and "q1" not in s.guesses


def test_none_elsewhere_and_at_most_three_labels_name_what_cost_an_option():
    s = solved([("q1", FAIL, [RAIN, GATES, CUP, BUILT]), ("q2", FAIL, [RAIN, INQUIRY, CUP, NONE])],
               {(RAIN, FAIL): 0.95, (GATES, FAIL): 0.95, (CUP, FAIL): 0.95, (BUILT, FAIL): 0.95, (INQUIRY, FAIL): 0.1})
    assert kinds(s, "q1")["A"] == ["none_in:q2"] and kinds(s, "q1")["C"] == ["none_in:q2"]
    assert kinds(s, "q2")["A"] == ["none_answer:q2"] and kinds(s, "q2")["D"] == ["none_prior:q2"]
    capped = solved([("q1", FAIL, [RAIN, GATES, CUP, BUILT])],
                    {(RAIN, FAIL): 0.95, (GATES, FAIL): 0.96, (CUP, FAIL): 0.97, (BUILT, FAIL): 0.98})
    assert kinds(capped, "q1")["A"] == ["cap:q1"] and capped.answers["q1"] == {"B", "C", "D"}
    assert capped.confidence["q1"].alternative is not None


def test_without_optimize_no_reason_cites_the_bias():
    # The optimize group off: nothing weighs the edge evidence, so no option "falls short of the bias" or is a
    # guess for want of one that clears it; each says that the solver picked among what the other rules allow.
    t = Topic(1, [Question("q1", 1, FAIL, (RAIN, GATES, CUP, INQUIRY)),
                  Question("q2", 1, FAIL, (RAIN, CUP, INQUIRY, NONE))])
    graph = build_graph(t)
    ids = {graph.nodes[n]["text"]: n for n in graph}
    scores = {(ids[e], ids[FAIL]): p for e, p in ((RAIN, 0.95), (GATES, 0.5), (CUP, 0.05), (INQUIRY, 0.05))}
    s = solve_topic(graph, scores, without=frozenset({"optimize"}), params=SolverParams(bias=200), explain=True)
    assert {w.kind for label in "ABCD" for w in s.why_atoms("q1", label)} == {"unweighed"}
    assert kinds(s, "q2") == {"A": ["none_answer:q2"], "B": ["none_answer:q2"], "C": ["none_answer:q2"],
                              "D": ["none_unweighed:q2"]}  # the None prior still answers q2
    for question in t.questions:
        whys = [o["why"] for o in explain_question(question, graph, scores, s)["options"].values()]
        assert all("bias" not in why for why in whys), whys
        assert all("optimize group off" in why for why in whys if "answers None" not in why)
    # with a reader and optimize off, only the readers weigh: their judgements are what the reasons name
    reader = ReaderJudgements("sys", {("q1", "B"): Judgement(verdict=True), ("q1", "C"): Judgement(verdict=False)}, 100)
    s = solve_topic(graph, scores, without=frozenset({"optimize"}), params=SolverParams(bias=200), readers=(reader,),
                    explain=True)
    whys = {label: o["why"]
            for label, o in explain_question(t.questions[0], graph, scores, s, (reader,))["options"].items()}
    assert whys["B"] == "chosen: the readers favour it by 294" and s.answers["q1"] == {"B"}
    assert whys["C"] == "not chosen: the readers weigh against it by 294"


def test_readers_that_weigh_against_none_are_named():
    # q1 may answer None, and RAIN falls short of the bias (log-odds 0 against 200), so None is the structure's
    # answer (under --priors none's rules); a reader that says no to None at weight 300 (-882) makes RAIN (-200 + 0) the
    # cheaper answer.
    t = Topic(1, [Question("q1", 1, FAIL, (RAIN, CUP, INQUIRY, NONE))])
    graph = build_graph(t)
    ids = {graph.nodes[n]["text"]: n for n in graph}
    scores = {(ids[e], ids[FAIL]): p for e, p in ((RAIN, 0.5), (CUP, 0.05), (INQUIRY, 0.05))}
    reader = ReaderJudgements("sys", {("q1", "D"): Judgement(verdict=False)}, 300)
    s = solve_topic(graph, scores, without=frozenset({"priors"}), params=SolverParams(bias=200, none_prior=0),
                    readers=(reader,), explain=True)  # as --priors none answers: no None prior
    assert s.answers["q1"] == {"A"} and kinds(s, "q1")["A"] == ["against_none:q1"]
    assert s.none_gains[("q1", "D")] == -882
    why = explain_question(t.questions[0], graph, scores, s, (reader,))["options"]["A"]["why"]
    assert why == ("chosen: its evidence falls short of the precision bias by 200, but the readers weigh against "
                   "None (D) by more, 882")
    # under the default None prior (above the readers' level) the readers cannot be what chose a real option
    s = solve_topic(graph, scores, without=frozenset({"priors"}), params=SolverParams(bias=200), readers=(reader,),
                    explain=True)
    assert s.answers["q1"] == {"D"} and kinds(s, "q1")["A"] == ["none_answer:q1"]


def test_the_margin_is_the_cost_of_the_next_best_answer():
    # One question, scores 0.95 (log-odds 294) and 0.5 (0): bias 200 takes A alone; the next best answer adds
    # B, which falls 200 short of the bias (B alone would lose A's 94 as well).
    s = solved([("q1", FAIL, [RAIN, GATES, CUP, INQUIRY])],
               {(RAIN, FAIL): 0.95, (GATES, FAIL): 0.5, (CUP, FAIL): 0.05, (INQUIRY, FAIL): 0.05})
    c = s.confidence["q1"]
    assert s.answers["q1"] == {"A"} and c.alternative == {"A", "B"} and c.margin == (200,) and not c.prior
    none = solved([("q1", FAIL, [RAIN, GATES, CUP, NONE])], {(RAIN, FAIL): 0.95, (GATES, FAIL): 0.5, (CUP, FAIL): 0.05})
    assert none.answers["q1"] == {"D"} and none.confidence["q1"].prior  # any other answer breaks the None prior


def test_the_default_answers_do_not_depend_on_explaining():
    rng = random.Random(5)
    for _ in range(30):
        t, graph, scores, after = random_topic(rng)
        plain = solve_topic(graph, scores, after, params=SolverParams(bias=100))
        explained = solve_topic(graph, scores, after, params=SolverParams(bias=100), explain=True)
        assert plain.answers == explained.answers and plain.cost == explained.cost and not plain.why


@pytest.mark.slow  # the labelled topics' analyses and their test-shaped copies: minutes on a cold cache
def test_every_option_of_the_test_shaped_copies_has_a_why_that_holds(aer):
    from causalgraph.config import DEFAULT_MODEL
    from causalgraph.measure.inputs import cv_inputs, labelled_analyses
    from causalgraph.learn.crossval import HELD_COPIES, resized_copies
    from causalgraph.learn.scorer import edge_scores, load_scorer, reads_documents

    scorer, encoder = load_scorer(DEFAULT_MODEL)
    topics, shapes = cv_inputs(aer, folds=2, evidence=True)
    analyses = labelled_analyses(topics, encoder, progress=False, documents=reads_documents(scorer))
    held = resized_copies(analyses, shapes, HELD_COPIES, seed=2)  # the held-out copies of resized_sets
    checked = 0
    for copy in (c for cs in held for c in cs):
        scores = edge_scores(copy.table, scorer)
        bias = scorer.bias_for(len(copy.topic.questions))
        solution = solve_topic(copy.graph, scores, copy.after, params=SolverParams(bias=bias),
                               timeline=copy.timeline, explain=True)
        checked += check_whys(copy.graph, scores, copy.after, solution, bias)
        check_confidence(solution, [q.qid for q in copy.topic.questions])
    assert checked > 4 * 2000


def test_confidence_groups_held_out_answers(labelled):
    from causalgraph.analysis.analyse import analyse_topic
    from causalgraph.data import load_labelled
    from lab.solver.confidence_cv import format_confidence, held_out_confidence
    from causalgraph.learn.crossval import fold_scorers, held_out_edges

    analyses = [analyse_topic(t, documents=False) for t in load_labelled(labelled)]
    scored, edges = held_out_edges(analyses, fold_scorers(analyses, 3))
    result = held_out_confidence("whole", scored, edges, SolverParams(bias=100))
    assert len(result.scores) == sum(len(a.topic.questions) for a in analyses)
    groups = list(result.groups().values())
    assert (groups[0] | groups[1] | groups[2]).all() and not (groups[0] & groups[1]).any()
    assert (groups[3] ^ groups[4]).all()
    assert 0 <= result.auc() <= 1 and "| forced guesses |" in format_confidence([result])


@pytest.mark.slow  # grouped CV over the labelled topics: about two minutes on two cores
def test_confidence_orders_right_answers_above_wrong_ones(aer):
    from lab.solver.confidence_cv import held_out_confidence
    from causalgraph.measure.inputs import cv_inputs, labelled_analyses
    from causalgraph.learn.bands import blend_copies, fold_blends, shipped_bands
    from causalgraph.learn.crossval import held_out_regimes, per_copy

    topics, shapes = cv_inputs(aer, folds=5, evidence=True)
    analyses = labelled_analyses(topics, DEFAULT_ENCODER, progress=False)
    copies = blend_copies(analyses, shapes)
    models = fold_blends(analyses, copies, 5, shipped_bands())
    scorers = {"whole": models, "test-shaped": per_copy(models, copies[2])}
    for regime, scored, edges in held_out_regimes(analyses, models, copies[2]):
        result = held_out_confidence(regime, scored, edges, scorers=scorers[regime])
        # lab/solver/confidence.py: the AUC over all answers and among those the evidence decides
        assert result.auc() > 0.8 and result.auc(evidence_only=True) > 0.65, (regime, result.auc())
        guesses = result.guesses
        assert result.scores[guesses].mean() < result.scores[~guesses].mean() or regime == "whole"


def test_the_temporal_rule_and_the_dates_group_name_the_dates():
    from causalgraph.evidence.features import Source
    from causalgraph.reason.explain import evidence_line, evidence_record
    from causalgraph.text.dates import PartialDate
    from causalgraph.text.extract import Sentence, TopicExtraction

    t = Topic(1, [Question("q1", 1, "The dam failed on March 7, 2024.",
                           (RAIN, GATES, CUP, "An inquiry opened on March 15, 2024."))])
    graph = build_graph(t)
    ids = {graph.nodes[n]["text"]: n for n in graph}
    target, inquiry = ids[t.questions[0].target], ids[t.questions[0].options[3]]
    scores = {(e, target): 0.5 for e in ids.values() if e != target}
    solution = solve_topic(graph, scores, {(inquiry, target)}, explain=True)
    record = explain_question(t.questions[0], graph, scores, solution)
    assert record["options"]["D"]["why"] == ("not chosen: its own text is dated 2024-03-15, after the target's "
                                             "(2024-03-07; temporal rule)")
    # the dates group's line names both dates, the target's from its best dated mention where its text has none
    told = TopicExtraction(("Report",), (Sentence(0, 0, "The dam failed on March 7.", PartialDate(2024, 3, 7)),), ())
    for group, feature in (("dates", "event_date_gap"), ("later dates", "event_dated_after")):
        moved = evidence_record({group: -1.2}, (Source(feature, 0, "dates the target"),), told,
                                ("An inquiry opened on March 15, 2024.", "The dam failed."))
        assert evidence_line({"evidence": moved}) == (f'lowered by {group} (-1.20 log-odds): the cause dated '
                                                      '2024-03-15, the target 2024-03-07, as told in "The dam failed '
                                                      'on March 7." (Report)')


def test_a_sentence_is_never_shown_moving_an_option_against_what_it_states():
    from causalgraph.evidence.features import Source
    from causalgraph.reason.explain import evidence_record
    from causalgraph.text.extract import Sentence, TopicExtraction

    told = TopicExtraction(("d",), (Sentence(0, 0, "The dam failed because the gates jammed.", None),
                                    Sentence(0, 1, "The gates jammed because the dam failed.", None)), ())
    sources = (Source("stated_cause", 0, "states it as a cause of the target"),
               Source("stated_consequence", 1, "states it as a consequence of the target"))
    lowered = evidence_record({"statements": -0.4}, sources, told)[0]
    raised = evidence_record({"statements": 0.4}, sources, told)[0]
    assert [s["feature"] for s in lowered["sentences"]] == ["stated_consequence"]
    assert [s["feature"] for s in raised["sentences"]] == ["stated_cause"]


def test_a_cited_sentence_names_its_document_and_its_date():
    from causalgraph.evidence.features import Source
    from causalgraph.reason.explain import evidence_line, evidence_record
    from causalgraph.text.extract import Sentence, TopicExtraction

    sentences = (Sentence(0, 0, "The dam failed because the gates jammed.", None),
                 Sentence(1, 0, "The gates jammed, and so the dam failed.", None))
    dated = TopicExtraction(("Dam fails", "Inquiry"), sentences, (), ("2024-03-08", ""))
    for sentence, line in ((0, '"The dam failed because the gates jammed." (Dam fails, 2024-03-08)'),
                           (1, '"The gates jammed, and so the dam failed." (Inquiry)')):
        record = evidence_record({"statements": 0.9}, (Source("stated_cause", sentence, "states it as a cause"),),
                                 dated)
        assert record[0]["sentences"][0]["document_date"] == dated.dates[sentence]
        assert evidence_line({"evidence": record}) == f"raised by statements (+0.90 log-odds): {line}"
