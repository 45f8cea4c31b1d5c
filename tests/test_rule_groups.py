"""The table of rule groups (reason/groups.py) against the rule files, and adding a group as docs/rules.md says:
one rule file and one row, in a copy of the package, which the solver, the explanations, `--without` and the
rule ablation then all see."""

import dataclasses
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

from causalgraph.config import PACKAGE_DIR, RULES_DIR
from causalgraph.reason.groups import CONSTANTS, GROUPS, PRIORS, RELAXABLE, SWITCHABLE, WORDS
from causalgraph.reason.solve import SolverParams

# A rule that derives a reason atom: its rank, its kind and its first body atom's predicate.
REASON = re.compile(r"^reason\(Q,[^,]+,(\d),(\w+),\w+\) :- (\w+)\(", re.M)


def reasons() -> dict[str, set[tuple[int, str]]]:
    """Each kind of reason that a rule file derives, with the rank and the first body predicate of its rules."""
    found: dict[str, set[tuple[int, str]]] = {}
    for path in sorted(RULES_DIR.glob("*.lp")):
        for rank, kind, first in REASON.findall(path.read_text()):
            found.setdefault(kind, set()).add((int(rank), first))
    return found


def test_every_kind_of_reason_has_its_words_and_a_cost_is_rank_4():
    found = reasons()
    assert set(found) - {"unexplained"} == set(WORDS)
    # a cost: what cost a rejected option that beats (explain.lp), at rank 4
    assert {k for k, rules in found.items() if rules == {(4, "beats")}} == {k for k, w in WORDS.items() if w.cost}
    cases = {"", "gain > 0", "gain < 0", "chosen", "weighed", "one other", "one chosen"}
    assert all(set(w.why) <= cases for w in WORDS.values() if isinstance(w.why, dict))


def test_explain_lp_holds_no_group_condition():
    text = "\n".join(line for line in (RULES_DIR / "explain.lp").read_text().splitlines() if not line.startswith("%"))
    assert not re.search(r"\b(active|forced|excluded)\(", text)  # no group's switch, nor the atoms of its rules
    assert not {c.name for c in CONSTANTS} & set(re.findall(r"\w+", text))
    for group in GROUPS:  # each group's file holds its own explain part
        assert "#program explain." in (RULES_DIR / f"{group.name}.lp").read_text(), group.name


def test_the_table_agrees_with_the_rule_files_and_the_solver():
    fields = {f.name for f in dataclasses.fields(SolverParams)}
    for group in GROUPS:
        text = (RULES_DIR / f"{group.name}.lp").read_text()
        assert text.startswith(f"% {group.name}: "), group.name  # each file says first what its group encodes
        assert (f"#external active({group.name})." in text) == (group.switchable or bool(group.relaxable))
        for c in group.constants:
            assert f"#const {c.name} = " in text and (c.param is None or c.param in fields), c
    assert RELAXABLE == ("temporal", "consistency", "priors") and SWITCHABLE == ("none", "consistency", "priors",
                                                                                 "optimize")
    assert PRIORS["none"] == (frozenset({"priors"}), 0)
    args = SolverParams(bias=5, none_prior=7, doc_order=1, mediated=2).clingo_args()
    assert sorted(zip(args[1::2], args[::2])) == [("bias=5", "-c"), ("doc_order=1", "-c"), ("mediated=2", "-c"),
                                                  ("none_level=1", "-c"), ("none_weight=7", "-c")]


def test_the_table_loads_without_the_solver():
    code = ("import sys; sys.modules['clingo'] = None; import causalgraph.reason.groups as g; "
            "print(len(g.GROUPS), 'clorm' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=PACKAGE_DIR.parent)
    assert done.returncode == 0 and done.stdout.split() == [str(len(GROUPS)), "False"], done.stderr


TOY_RULES = """\
% toy: a rule group added by the test of adding one: no question selects its option A, and choosing its
% option B costs toy_cost. Its rules hold while active(toy) is assumed (`--without toy` assumes it false).
#external active(toy).
#const toy_cost = 0.

% Option A is never selected.
:- select(Q,"A"), active(toy).
% Choosing option B costs toy_cost.
:~ select(Q,"B"), active(toy). [toy_cost@1,Q,toy]

#program explain.
% The explanation atom of the constraint above, under the same conditions.
reason(Q,"A",2,toy,Q) :- rejected(Q,"A",_,_), active(toy).
"""
TOY_ROW = ('    Group("toy", switchable=True, constants=(Constant("toy_cost"),), words=(\n'
           '        Words("toy", "not chosen: the toy rule bans option A", "banned by the toy"),)),\n')
# Run in the copy: one topic solved with the toy group, without it and with its constant set, explained, and
# ablated (its held-out edge scores given, so that no scorer is trained).
TOY_RUN = """
import json, types
import causalgraph
from causalgraph.cli.common import parse_groups
from causalgraph.data import Question, Topic
from causalgraph.measure import ablation
from causalgraph.graph.topic import build_graph
from causalgraph.reason.explain import explain_question, reason_line
from causalgraph.reason.solve import SolverParams, solve_topic

texts = ("The dam failed on March 7.", "Rain fell on March 2.", "Gates jammed on March 6.", "A cup was won on March 3.",
         "An inquiry opened on March 15.")
question = Question("q1", 1, texts[0], texts[1:], gold=frozenset("ABC"))
graph = build_graph(Topic(1, [question]))
ids = {graph.nodes[n]["text"]: n for n in graph}
scores = {(ids[e], ids[texts[0]]): p for e, p in zip(texts[1:], (0.9, 0.6, 0.55, 0.05))}
answer = lambda without=(), **params: ",".join(sorted(solve_topic(graph, scores, without=frozenset(without),
                                                                  params=SolverParams(bias=0, **params)).answers["q1"]))
record = explain_question(question, graph, scores,
                          solve_topic(graph, scores, params=SolverParams(bias=0), explain=True))
analysis = types.SimpleNamespace(graph=graph, after=frozenset(), timeline=None, topic=Topic(1, [question]))
ablation.held_out_edges = lambda analyses, models, held=None: (analyses, [scores])
rows = ablation.ablation_rows([analysis], [None], SolverParams(bias=0))
print(json.dumps({"package": causalgraph.__file__, "answer": answer(), "without": answer(["toy"]),
                  "costly": answer(constants=(("toy_cost", 10000),)), "why": record["options"]["A"]["why"],
                  "line": reason_line(record), "switch": sorted(parse_groups("toy")),
                  "ablation": {row.name: float(row.mean) for row in rows}}))
"""


def test_a_new_group_is_one_rule_file_and_one_row(tmp_path):
    copy = tmp_path / "causalgraph"
    shutil.copytree(PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("models", "__pycache__"))
    (copy / "reason" / "rules" / "toy.lp").write_text(TOY_RULES)
    table = copy / "reason" / "groups.py"
    text = table.read_text()
    end = text.index("\n)\n", text.index("GROUPS = ("))  # the table's last line
    table.write_text(text[:end + 1] + TOY_ROW + text[end + 1:])
    done = subprocess.run([sys.executable, "-c", TOY_RUN], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert Path(found["package"]).parent == copy
    # the solver loads it: A is banned, and B costs toy_cost; --without switches it off
    assert (found["answer"], found["without"], found["costly"]) == ("B,C", "A,B,C", "C")
    # its explanation words
    assert found["why"] == "not chosen: the toy rule bans option A" and "A (p=0.90: banned by the toy)" in found["line"]
    assert found["switch"] == ["toy"]
    # the rule ablation sees it: switched off, the gold answer A,B,C is chosen
    ablated = found["ablation"]
    assert list(ablated)[-1] == "without toy" and ablated["without toy"] > ablated["full program"]
