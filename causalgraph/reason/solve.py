"""A topic's typed facts solved by clingo with the rule groups in rules/; the answers read from the optimal answer set."""

from __future__ import annotations

import logging
from collections import defaultdict
from dataclasses import dataclass, field
from functools import cached_property

import clingo
import networkx as nx

from ..config import RULES_DIR
from ..graph.timeline import Timeline
from ..readers.base import ReaderJudgements
from .facts import Cause, Excluded, Forced, Select, read_atoms, topic_facts

RULE_GROUPS = ("core", "none", "consistency", "priors", "temporal", "directness", "optimize")
# Groups that --without may switch off: each changes answers in the grouped-CV ablation. core is the
# question format; temporal changed no answer on the labelled topics (their dates order 1 candidate pair), so
# it stays on, unswitchable, until the documents give it more edges.
SWITCHABLE = ("none", "consistency", "priors", "optimize")
# Groups whose hard rules hold under the assumption active(G). An unsatisfiable topic drops groups of clingo's
# unsat core, the first in this order (least trusted first) whose dropping alone restores an answer set.
RELAXABLE = ("temporal", "consistency", "priors")
OPT_ARGS = ["--opt-strategy=usc"]  # core-guided optimisation: 100x faster than branch-and-bound here
FALLBACK_ARGS = ["--opt-strategy=bb"]  # under a time limit: answer sets early, improving step by step
NO_MODEL = "no answer set found in time"
# clingo's weights are 32-bit integers; each constant stays far inside them, so that weights and their sums
# over a topic's options cannot overflow.
MAX_CONSTANT = 1_000_000

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Unsat:
    """An unsatisfiable search, with the relaxable groups of clingo's unsat core."""

    core: tuple[str, ...]


@dataclass(frozen=True)
class SolverParams:
    """Constants of the rule groups, in log-odds x 100. `bias` None means the scorer's own (`EdgeScorer.bias`,
    chosen by grouped CV in `train`). `none_prior` None keeps the None prior at its own priority level, above
    all edge evidence; a number W makes it a cost of W beside the edge evidence. `doc_order` and `mediated`
    are the costs of the documents' timeline edges (rules/temporal.lp, rules/directness.lp); None keeps the
    rule files' values, which `python -m causalgraph.timeline` chose by grouped CV."""

    bias: int | None = None
    none_prior: int | None = None
    doc_order: int | None = None
    mediated: int | None = None

    def __post_init__(self):
        for name, value in vars(self).items():
            if value is not None and not (isinstance(value, int) and -MAX_CONSTANT <= value <= MAX_CONSTANT):
                raise ValueError(f"{name.replace('_', '-')} must be an integer within +-{MAX_CONSTANT:,}, got {value!r}")

    def clingo_args(self) -> list[str]:
        consts = {"bias": self.bias, "doc_order": self.doc_order, "mediated": self.mediated}
        if self.none_prior is not None:
            consts.update(none_weight=self.none_prior, none_level=1)
        return [arg for name, value in consts.items() if value is not None for arg in ("-c", f"{name}={value}")]


@dataclass(frozen=True)
class Solution:
    """What the optimal answer set of one topic says, as typed atoms (see reason/facts.py)."""

    topic_id: int
    answers: dict[str, frozenset[str]]
    causes: tuple[Cause, ...]
    excluded: tuple[Excluded, ...]
    forced: tuple[Forced, ...]
    optimal: bool
    cost: tuple[int, ...]
    dropped: tuple[str, ...] = field(default=())
    alone: dict[str, tuple[str, ...]] = field(default_factory=dict)  # questions answered on their own: their dropped groups

    def dropped_for(self, qid: str) -> tuple[str, ...]:
        """The rule groups dropped where question `qid` was solved."""
        return self.alone.get(qid, self.dropped)

    def chosen(self, cause: int, target: int) -> bool:
        return Cause(cause, target) in self.causes

    @cached_property
    def _atoms_by_key(self) -> dict[tuple, list]:
        """The excluded atoms by (cause, target) and the forced ones by (question, label), read once."""
        index = defaultdict(list)
        for a in self.excluded:
            index[(a.cause, a.target)].append(a)
        for a in self.forced:
            index[(a.qid, a.label)].append(a)
        return index

    def pair_atoms(self, cause: int, target: int) -> list[Excluded]:
        """The rule atoms that exclude the pair (cause, target)."""
        return list(self._atoms_by_key.get((cause, target), ()))

    def label_atoms(self, qid: str, label: str) -> list[Forced]:
        """The rule atoms that forced this label into the answer of question `qid`."""
        return list(self._atoms_by_key.get((qid, label), ()))


def program_files(without: set[str] | frozenset[str] = frozenset()) -> list:
    unknown = set(without) - set(SWITCHABLE)
    if unknown:
        raise ValueError(f"unknown rule group {sorted(unknown)[0]!r}; switchable: {', '.join(SWITCHABLE)}")
    return [RULES_DIR / f"{g}.lp" for g in RULE_GROUPS if g not in without]


def clingo_message(code: clingo.MessageCode, message: str) -> None:
    """clingo's warnings and infos, logged at debug level (tests turn undefined atoms into failures)."""
    log.debug("clingo %s: %s", code.name, message.strip())


def _search(facts, files, groups: list[str], params: SolverParams, opt_args: list[str], time_limit: float | None,
            wait_for_model: bool):
    """One optimising search with active(G) assumed for `groups`. Returns Unsat (with the core's groups),
    NO_MODEL when time ran out before any answer set (unless wait_for_model), else (atoms, cost, optimal)."""
    ctl = clingo.Control([*params.clingo_args(), "--opt-mode=opt", *opt_args], logger=clingo_message)
    for path in files:
        ctl.load(str(path))
    ctl.add("base", [], facts.asp_str())
    ctl.ground([("base", [])])
    switches = {clingo.Function("active", [clingo.Function(g)]): g for g in groups}
    literals = {}
    for symbol, group in switches.items():
        if ctl.symbolic_atoms[symbol] is not None:
            ctl.assign_external(symbol, None)  # free, so that the assumption decides it (externals start false)
            literals[ctl.symbolic_atoms[symbol].literal] = group
    best: dict = {}

    def on_model(model: clingo.Model) -> None:
        best["symbols"] = model.symbols(shown=True)
        best["cost"] = tuple(model.cost)

    assumptions = [(s, True) for s in switches]
    with ctl.solve(assumptions=assumptions, on_model=on_model, async_=True) as handle:
        finished = handle.wait(time_limit) if time_limit else handle.wait()
        while wait_for_model and not finished and "symbols" not in best:
            finished = handle.wait(0.01)
        if not finished:
            handle.cancel()
        result = handle.get()
        core = handle.core() if result.unsatisfiable else []
    if result.unsatisfiable:
        return Unsat(tuple(sorted({literals[lit] for lit in core if lit in literals})))
    if "symbols" not in best:
        return NO_MODEL
    return read_atoms(best["symbols"]), best["cost"], bool(finished and result.exhausted)


def _solve_once(facts, files, groups, params: SolverParams, time_limit: float | None):
    """Core-guided search, which finds no answer set before it proves the optimum; when it runs out of time,
    branch-and-bound, which improves answer sets step by step, gets another time_limit (and runs on until its
    first answer set if it has none by then)."""
    found = _search(facts, files, groups, params, OPT_ARGS, time_limit, wait_for_model=False)
    if found is NO_MODEL:
        found = _search(facts, files, groups, params, FALLBACK_ARGS, time_limit, wait_for_model=True)
    return found


def _relaxing(facts, files, active: list[str], params: SolverParams, time_limit: float | None, where: str,
              found=None):
    """Solve (unless `found` is this program's result already); while unsatisfiable, drop the first group of
    clingo's unsat core whose dropping alone restores an answer set (else the core's first), with a warning.
    Returns (atoms, cost, optimal) and the dropped groups."""
    dropped: list[str] = []
    if found is None:
        found = _solve_once(facts, files, active, params, time_limit)
    while isinstance(found, Unsat):
        core = [g for g in RELAXABLE if g in found.core]
        if not core:
            raise RuntimeError(f"{where}: unsatisfiable even without the relaxable rule groups")
        trials = {}  # each trial is the solve of the program with that group dropped: the next `found`
        for group in core:
            trials[group] = _solve_once(facts, files, [g for g in active if g != group], params, time_limit)
            if not isinstance(trials[group], Unsat):
                break
        drop = group if not isinstance(trials[group], Unsat) else core[0]
        log.warning("%s: program unsatisfiable; dropping rule group %r (unsat core: %s)", where, drop, ", ".join(core))
        dropped.append(drop)
        active = [g for g in active if g != drop]
        found = trials[drop]
    return found, tuple(dropped)


def _questions(graph: nx.DiGraph, qids: list[str]) -> nx.DiGraph:
    """The topic graph with only these questions (the facts are built from its `questions`)."""
    view = graph.copy(as_view=True)
    view.graph = {**graph.graph, "questions": {q: graph.graph["questions"][q] for q in qids}}
    return view


def solve_topic(
    graph: nx.DiGraph,
    scores: dict[tuple[int, int], float],
    after: set[tuple[int, int]] = frozenset(),
    without: set[str] | frozenset[str] = frozenset(),
    params: SolverParams = SolverParams(),
    time_limit: float | None = None,
    readers: tuple[ReaderJudgements, ...] = (),
    timeline: Timeline | None = None,
) -> Solution:
    """Solve a whole topic at once, fusing the judgements of `readers` (rules/readers.lp) and the order and
    causal edges of the documents' `timeline` where given. When the
    program is unsatisfiable, a question that is unsatisfiable on its own is named and answered on its own;
    then, while the rest is unsatisfiable, the rule groups of clingo's unsat core (one assumption per relaxable
    group) are dropped, with a warning, and named in the solution.
    With a time limit, the best answer set found so far is used (`optimal` is then False)."""
    topic_id = graph.graph["topic_id"]
    files = program_files(without) + ([RULES_DIR / "readers.lp"] if readers else [])
    active = [g for g in RELAXABLE if g not in without]
    qids = list(graph.graph["questions"])
    found = _solve_once(topic_facts(graph, scores, after, readers, timeline), files, active, params, time_limit)
    alone_facts, alone_found = {}, {}  # for each question solved on its own: its facts and first result
    if isinstance(found, Unsat):
        for q in qids:
            alone_facts[q] = topic_facts(_questions(graph, [q]), scores, after, readers, timeline)
            alone_found[q] = _solve_once(alone_facts[q], files, active, params, time_limit)
    impossible = [q for q in qids if isinstance(alone_found.get(q), Unsat)]
    if impossible:
        log.warning("topic %s: question(s) %s cannot be answered under the rules even on their own; "
                    "answering each on its own, the rest of the topic together", topic_id, ", ".join(impossible))
    parts, alone = [], {}
    rest = [q for q in qids if q not in impossible]
    if not isinstance(found, Unsat):
        parts.append((found, ()))
    elif rest:
        facts = topic_facts(_questions(graph, rest), scores, after, readers, timeline)
        parts.append(_relaxing(facts, files, active, params, time_limit, f"topic {topic_id}"))
    for q in impossible:
        parts.append(_relaxing(alone_facts[q], files, active, params, time_limit, f"topic {topic_id}, question {q}",
                               alone_found[q]))
        alone[q] = parts[-1][1]
    optimal = all(found[2] for found, _ in parts)
    if not optimal:
        log.warning("topic %s: solver time limit reached; using the best answer set found", topic_id)
    atoms = [atom for (fact_base, _, _), _ in parts for atom in fact_base]
    answers: dict[str, set[str]] = {qid: set() for qid in qids}
    for sel in (a for a in atoms if isinstance(a, Select)):
        answers[sel.qid].add(sel.label)
    pick = lambda kind: tuple(sorted({a for a in atoms if isinstance(a, kind)}))
    costs = [found[1] for found, _ in parts]
    return Solution(
        topic_id=topic_id,
        answers={q: frozenset(v) for q, v in answers.items()},
        causes=pick(Cause),
        excluded=pick(Excluded),
        forced=pick(Forced),
        optimal=optimal,
        cost=tuple(map(sum, zip(*costs))) if len({len(c) for c in costs}) == 1 else costs[0],
        dropped=parts[0][1] if rest else (),
        alone=alone,
    )


def solve_analysis(analysis, scores: dict[tuple[int, int], float], without: frozenset[str] = frozenset(),
                   params: SolverParams = SolverParams(), time_limit: float | None = None,
                   readers: tuple[ReaderJudgements, ...] = ()) -> Solution:
    """Solve an analysed topic (see analysis.TopicAnalysis: its graph, dated `after` pairs and timeline)."""
    return solve_topic(analysis.graph, scores, analysis.after, without, params, time_limit, readers, analysis.timeline)
