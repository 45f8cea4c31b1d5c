"""The rule files themselves, each on a few hand-written facts, with clintest (Potassco's test library)."""

import pytest
from clintest.assertion import And, Contains, Implies, Not, Optimal, Or
from clintest.quantifier import All, Any, Exact
from clintest.solver import Clingo
from clintest.test import Assert
from clintest.test import And as AllOf

from causalgraph.config import RULES_DIR

# One question q1 about target 0 with real options A (event 1), B (event 2), C (event 3) and None at D.
QUESTION = 'question("q1"). target("q1",0). option("q1","A",1). option("q1","B",2). option("q1","C",3).'


def run(groups: list[str], facts: str, *tests, arguments=("0",)):
    solver = Clingo(list(arguments), program=facts, files=[str(RULES_DIR / f"{g}.lp") for g in groups])
    test = AllOf(*tests)
    solver.solve(test)
    test.assert_()


def test_core_answers_every_question():
    # 2^3 choices of three options, less the empty one
    run(["core"], QUESTION, Assert(Exact(7), Or(Contains("cause(1,0)"), Contains("cause(2,0)"), Contains("cause(3,0)"))))


def test_core_never_selects_the_target_itself():
    facts = 'question("q1"). target("q1",0). option("q1","A",0). option("q1","B",2).'
    run(["core"], facts, Assert(All(), Not(Contains('select("q1","A")'))), Assert(Any(), Contains("excluded(core,0,0)")))


def test_none_is_selected_exactly_when_no_real_option_is():
    facts = QUESTION + ' none_option("q1","D").'
    run(["core", "none"], facts,
        Assert(Exact(1), Contains('select("q1","D")')),
        Assert(All(), Implies(Contains('select("q1","D")'), Contains('forced(none,"q1","D")'))))


def test_none_prior_wins_over_edge_evidence_by_priority():
    facts = QUESTION + ' none_option("q1","D"). score(1,0,600). score(2,0,600). score(3,0,600).'
    run(["core", "none", "optimize"], facts, Assert(All(), Implies(Optimal(), Contains('select("q1","D")'))),
        arguments=["--opt-mode=optN", "0"])


def test_consistency_carries_a_pair_across_questions_and_bans_mutual_causes():
    facts = (QUESTION + ' question("q2"). target("q2",0). option("q2","A",1). option("q2","B",4).'
             ' question("q3"). target("q3",1). option("q3","A",0). active(consistency).')
    run(["core", "consistency"], facts,
        Assert(All(), Implies(Contains('select("q1","A")'), Contains('select("q2","A")'))),
        Assert(All(), Not(And(Contains("cause(1,0)"), Contains("cause(0,1)")))))


def test_priors_select_repeated_options_and_at_most_three_labels():
    facts = ('question("q1"). target("q1",0). option("q1","A",1). option("q1","B",2). option("q1","C",1).'
             ' option("q1","D",3). active(priors).')
    run(["core", "priors"], facts,
        Assert(All(), And(Contains('select("q1","A")'), Contains('select("q1","C")'))),
        Assert(All(), And(Contains('forced(priors,"q1","A")'), Contains('forced(priors,"q1","C")'))),
        Assert(All(), Not(And(Contains('select("q1","B")'), Contains('select("q1","D")')))))


def test_priors_hold_only_while_assumed():
    facts = ('question("q1"). target("q1",0). option("q1","A",1). option("q1","B",2). option("q1","C",1).'
             ' option("q1","D",3).')
    run(["core", "priors"], facts, Assert(Any(), Not(Contains('select("q1","A")'))))


def test_temporal_excludes_a_cause_dated_after_its_target():
    facts = QUESTION + " after(1,0). active(temporal)."
    run(["core", "temporal"], facts, Assert(All(), And(Not(Contains("cause(1,0)")), Contains("excluded(temporal,1,0)"))))


@pytest.mark.parametrize("bias, chosen", [(0, ["A", "B"]), (300, ["A"])])
def test_optimize_takes_options_whose_log_odds_beat_the_bias(bias, chosen):
    facts = QUESTION + " score(1,0,500). score(2,0,200). score(3,0,-100)."
    expected = [Contains(f'select("q1","{label}")') if label in chosen else Not(Contains(f'select("q1","{label}")'))
                for label in "ABC"]
    run(["core", "optimize"], facts, Assert(All(), Implies(Optimal(), And(*expected))), Assert(Any(), Optimal()),
        arguments=["--opt-mode=optN", "0", "-c", f"bias={bias}"])
