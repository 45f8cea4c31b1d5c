"""The rule files themselves, each on a few hand-written facts, with clintest (Potassco's test library).

Every check also asserts that the program has an answer set (a quantifier over no answer sets holds
vacuously), and an optimal one where the program optimises."""

import pytest
from clintest.assertion import And, Contains, Implies, Not, Optimal, Or, True_
from clintest.quantifier import All, Any, Exact
from clintest.solver import Clingo
from clintest.test import And as AllOf
from clintest.test import Assert

from causalgraph.config import RULES_DIR

# One active question q1 about target 0 with real options A (event 1), B (event 2), C (event 3).
QUESTION = ('question("q1"). q_active("q1"). target("q1",0). option("q1","A",1). option("q1","B",2).'
            ' option("q1","C",3).')

def run(groups: list[str], facts: str, *tests, optimal: bool = False, arguments=()):
    """Solve the groups' rule files over `facts` (every answer set; with `optimal`, every optimal one) and
    check the tests, that an answer set exists and, with `optimal`, that one is proven optimal."""
    arguments = ["--opt-mode=optN", *arguments, "0"] if optimal else [*arguments, "0"]
    guards = [Assert(Any(), True_())] + ([Assert(Any(), Optimal())] if optimal else [])  # fresh: quantifiers keep state
    solver = Clingo(arguments, program=facts, files=[str(RULES_DIR / f"{g}.lp") for g in groups])
    test = AllOf(*guards, *tests)
    solver.solve(test)
    test.assert_()


def test_the_guard_fails_on_an_unsatisfiable_program():
    # All() holds on a program without answer sets; the satisfiability guard does not.
    with pytest.raises(AssertionError):
        run(["core"], QUESTION + ' :- question(Q).', Assert(All(), Contains("cause(1,0)")))


def test_core_answers_every_question():
    # 2^3 choices of three options, less the empty one
    run(["core"], QUESTION,
        Assert(Exact(7), Or(Contains("cause(1,0)"), Contains("cause(2,0)"), Contains("cause(3,0)"))))


def test_core_leaves_an_inactive_question_unanswered():
    facts = QUESTION.replace(' q_active("q1").', '')
    run(["core"], facts, Assert(Exact(1), Not(Contains('select("q1","A")'))))


def test_core_never_selects_the_target_itself():
    facts = 'question("q1"). q_active("q1"). target("q1",0). option("q1","A",0). option("q1","B",2).'
    run(["core"], facts, Assert(All(), Not(Contains('select("q1","A")'))),
        Assert(All(), Contains("excluded(core,0,0)")))


def test_none_is_selected_exactly_when_no_real_option_is():
    facts = QUESTION + ' none_option("q1","D"). active(none).'
    run(["core", "none"], facts,
        Assert(Exact(1), Contains('select("q1","D")')),
        Assert(All(), Implies(Contains('select("q1","D")'), Contains('forced(none,"q1","D")'))))


def test_none_holds_only_while_assumed():
    facts = QUESTION + ' none_option("q1","D").'
    run(["core", "none"], facts,
        Assert(All(), And(Not(Contains('select("q1","D")')), Not(Contains('forced(none,"q1","D")')))))


def test_none_prior_wins_over_edge_evidence_by_priority():
    facts = QUESTION + (' none_option("q1","D"). score(1,0,600). score(2,0,600). score(3,0,600). active(none).'
                        ' active(optimize).')
    run(["core", "none", "optimize"], facts, Assert(All(), Implies(Optimal(), Contains('select("q1","D")'))),
        optimal=True)


def test_consistency_carries_a_pair_across_questions_and_bans_mutual_causes():
    facts = (QUESTION + ' question("q2"). q_active("q2"). target("q2",0). option("q2","A",1). option("q2","B",4).'
             ' question("q3"). q_active("q3"). target("q3",1). option("q3","A",0). active(consistency).')
    run(["core", "consistency"], facts,
        Assert(All(), Implies(Contains('select("q1","A")'), Contains('select("q2","A")'))),
        Assert(All(), Not(And(Contains("cause(1,0)"), Contains("cause(0,1)")))))


def test_consistency_explains_a_pair_rejected_where_none_was_the_answer():
    facts = (QUESTION + ' question("q2"). q_active("q2"). target("q2",0). option("q2","A",1). none_option("q2","D").'
             ' score(1,0,-50). active(none). active(consistency). active(optimize).')
    run(["core", "none", "consistency", "optimize"], facts,
        Assert(All(), Implies(Contains("excluded(consistency,1,0)"), Not(Contains("cause(1,0)")))),
        Assert(Any(), Contains("excluded(consistency,1,0)")), optimal=True)


def test_priors_select_repeated_options_and_at_most_three_labels():
    facts = ('question("q1"). q_active("q1"). target("q1",0). option("q1","A",1). option("q1","B",2).'
             ' option("q1","C",1). option("q1","D",3). active(priors).')
    run(["core", "priors"], facts,
        Assert(All(), And(Contains('select("q1","A")'), Contains('select("q1","C")'))),
        Assert(All(), And(Contains('forced(priors,"q1","A")'), Contains('forced(priors,"q1","C")'))),
        Assert(All(), Not(And(Contains('select("q1","B")'), Contains('select("q1","D")')))))


def test_priors_hold_only_while_assumed():
    facts = ('question("q1"). q_active("q1"). target("q1",0). option("q1","A",1). option("q1","B",2).'
             ' option("q1","C",1). option("q1","D",3).')
    run(["core", "priors"], facts, Assert(Any(), Not(Contains('select("q1","A")'))),
        Assert(All(), Not(Contains('forced(priors,"q1","A")'))))


def test_temporal_excludes_a_cause_dated_after_its_target():
    facts = QUESTION + " later(1,0,dates). active(temporal)."
    run(["core", "temporal"], facts,
        Assert(All(), And(Not(Contains("cause(1,0)")), Contains("excluded(temporal,1,0)"))))


def test_temporal_relaxed_neither_excludes_nor_explains():
    # Relaxed, the dated pair may be chosen, and no answer set says it was excluded.
    facts = QUESTION + " later(1,0,dates)."
    run(["core", "temporal"], facts, Assert(Any(), Contains("cause(1,0)")),
        Assert(All(), Not(Contains("excluded(temporal,1,0)"))))


@pytest.mark.parametrize("doc_order, chosen", [(0, True), (1000, False)])
def test_temporal_documents_order_is_a_cost_not_a_ban(doc_order, chosen):
    facts = QUESTION + " later(1,0,documents). score(1,0,500). score(2,0,200). active(temporal). active(optimize)."
    best = Contains("cause(1,0)") if chosen else Not(Contains("cause(1,0)"))
    run(["core", "temporal", "optimize"], facts, Assert(All(), Implies(Optimal(), best)),
        Assert(All(), Not(Contains("excluded(temporal,1,0)"))), optimal=True,
        arguments=["-c", f"doc_order={doc_order}"])


@pytest.mark.parametrize("bias, chosen", [(0, ["A", "B"]), (300, ["A"])])
def test_optimize_takes_options_whose_log_odds_beat_the_bias(bias, chosen):
    facts = QUESTION + " score(1,0,500). score(2,0,200). score(3,0,-100). active(optimize)."
    expected = [Contains(f'select("q1","{label}")') if label in chosen else Not(Contains(f'select("q1","{label}")'))
                for label in "ABC"]
    run(["core", "optimize"], facts, Assert(All(), Implies(Optimal(), And(*expected))), optimal=True,
        arguments=["-c", f"bias={bias}"])


def test_optimize_weighs_nothing_while_not_assumed():
    facts = QUESTION + " score(1,0,500). score(2,0,200). score(3,0,-100)."
    run(["core", "optimize"], facts, Assert(Exact(7), Optimal()), optimal=True)
