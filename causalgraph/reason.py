"""The topic graph as ASP facts, solved by clingo with the rule groups in rules/; answers read from the answer set."""

from __future__ import annotations

import logging
import math
from dataclasses import dataclass, field
from pathlib import Path

import clingo
import networkx as nx

RULES_DIR = Path(__file__).resolve().parent.parent / "rules"
RULE_GROUPS = ("core", "none", "consistency", "temporal", "directness", "optimize")
SWITCHABLE = RULE_GROUPS[1:]
# Groups dropped, in this order, when a topic's program is unsatisfiable.
RELAX_ORDER = ("temporal", "consistency", "directness", "none")
OPT_ARGS = ["--opt-strategy=usc"]  # core-guided optimisation: 100x faster than branch-and-bound here
FALLBACK_ARGS = ["--opt-strategy=bb"]  # under a time limit: answer sets early, improving step by step
NO_MODEL = "no answer set found in time"

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SolverParams:
    """Constants of the rule groups, in log-odds x 100. `bias` None means the scorer's own (`EdgeScorer.bias_`,
    chosen by grouped CV in `train`), or the rule file's default where no scorer is involved."""

    bias: int | None = None
    none_prior: int = 10000
    chain_penalty: int = 0
    hub_penalty: int = 0

    def clingo_args(self) -> list[str]:
        return [arg for name, value in vars(self).items() if value is not None for arg in ("-c", f"{name}={value}")]


@dataclass(frozen=True)
class Solution:
    """What the optimal answer set of one topic says."""

    topic_id: int
    answers: dict[str, frozenset[str]]
    causes: frozenset[tuple[int, int]]
    excluded: tuple[tuple[str, int, int], ...]
    forced: tuple[tuple[str, str], ...]
    mediated: tuple[tuple[int, int, int], ...]
    optimal: bool
    cost: tuple[int, ...]
    dropped: tuple[str, ...] = field(default=())


def log_odds(p: float, cap: float = 6.0) -> int:
    """P(cause) as integer log-odds x 100, capped at +-cap."""
    p = min(max(p, 1e-6), 1 - 1e-6)
    return int(round(100 * max(-cap, min(cap, math.log(p / (1 - p))))))


def topic_facts(graph: nx.DiGraph, scores: dict[tuple[int, int], float], after: set[tuple[int, int]]) -> str:
    """The ASP facts of a topic: questions, targets, options, None options, edge scores and known orders."""
    lines = []
    for qid, slots in sorted(graph.graph["questions"].items()):
        q = clingo.String(qid)
        lines.append(f"question({q}). target({q},{slots.target}).")
        for label, event in sorted(slots.options.items()):
            lines.append(f'option({q},"{label}",{event}).')
        if slots.none_label:
            lines.append(f'none_option({q},"{slots.none_label}").')
    for (e, t), p in sorted(scores.items()):
        lines.append(f"score({e},{t},{log_odds(p)}).")
    for e, t in sorted(after):
        lines.append(f"after({e},{t}).")
    return "\n".join(lines) + "\n"


def program_files(without: set[str] | frozenset[str] = frozenset()) -> list[Path]:
    unknown = set(without) - set(SWITCHABLE)
    if unknown:
        raise ValueError(f"unknown rule group {sorted(unknown)[0]!r}; switchable: {', '.join(SWITCHABLE)}")
    return [RULES_DIR / f"{g}.lp" for g in RULE_GROUPS if g not in without]


def _search(facts: str, files: list[Path], params: SolverParams, opt_args: list[str], time_limit: float | None,
            wait_for_model: bool):
    """One optimising search: None when unsatisfiable, NO_MODEL when the time ran out before any answer set
    (unless wait_for_model), else (symbols, cost, optimal) of the best answer set found."""
    ctl = clingo.Control([*params.clingo_args(), "--opt-mode=opt", *opt_args], logger=lambda code, msg: None)
    for path in files:
        ctl.load(str(path))
    ctl.add("base", [], facts)
    ctl.ground([("base", [])])
    best: dict = {}

    def on_model(model: clingo.Model) -> None:
        best["symbols"] = model.symbols(shown=True)
        best["cost"] = tuple(model.cost)

    with ctl.solve(on_model=on_model, async_=True) as handle:
        finished = handle.wait(time_limit) if time_limit else handle.wait()
        while wait_for_model and not finished and "symbols" not in best:
            finished = handle.wait(0.01)
        if not finished:
            handle.cancel()
        result = handle.get()
    if result.unsatisfiable:
        return None
    if "symbols" not in best:
        return NO_MODEL
    return best["symbols"], best["cost"], bool(finished and result.exhausted)


def _solve_once(facts: str, files: list[Path], params: SolverParams, time_limit: float | None):
    """Core-guided search, which finds no answer set before it proves the optimum; when it runs out of time,
    branch-and-bound, which improves answer sets step by step, gets another time_limit (and runs on until its
    first answer set if it has none by then)."""
    found = _search(facts, files, params, OPT_ARGS, time_limit, wait_for_model=False)
    if found is NO_MODEL:
        found = _search(facts, files, params, FALLBACK_ARGS, time_limit, wait_for_model=True)
    return found


def solve_topic(
    graph: nx.DiGraph,
    scores: dict[tuple[int, int], float],
    after: set[tuple[int, int]] = frozenset(),
    without: set[str] | frozenset[str] = frozenset(),
    params: SolverParams = SolverParams(),
    time_limit: float | None = None,
) -> Solution:
    """Solve a whole topic at once. When the program is unsatisfiable, drop rule groups in RELAX_ORDER,
    warn, and name the dropped groups in the solution. With a time limit, return the best answer set
    found so far (`optimal` is then False)."""
    facts = topic_facts(graph, scores, after)
    dropped: list[str] = []
    off = set(without)
    while True:
        found = _solve_once(facts, program_files(off), params, time_limit)
        if found is not None:
            break
        remaining = [g for g in RELAX_ORDER if g not in off]
        if not remaining:
            raise RuntimeError(f"topic {graph.graph['topic_id']}: unsatisfiable even with only the core rules")
        dropped.append(remaining[0])
        off.add(remaining[0])
        log.warning("topic %s: program unsatisfiable; dropping rule group %r", graph.graph["topic_id"], remaining[0])
    symbols, cost, optimal = found
    if not optimal:
        log.warning("topic %s: solver time limit reached; using the best answer set found", graph.graph["topic_id"])
    answers: dict[str, set[str]] = {qid: set() for qid in graph.graph["questions"]}
    causes, excluded, forced, mediated = set(), set(), set(), set()
    for sym in symbols:
        args = sym.arguments
        if sym.name == "select":
            answers[args[0].string].add(args[1].string)
        elif sym.name == "cause":
            causes.add((args[0].number, args[1].number))
        elif sym.name == "excluded":
            excluded.add((args[0].name, args[1].number, args[2].number))
        elif sym.name == "forced":
            forced.add((args[0].name, args[1].string))
        elif sym.name == "mediated":
            mediated.add(tuple(a.number for a in args))
    return Solution(
        topic_id=graph.graph["topic_id"],
        answers={q: frozenset(v) for q, v in answers.items()},
        causes=frozenset(causes),
        excluded=tuple(sorted(excluded)),
        forced=tuple(sorted(forced)),
        mediated=tuple(sorted(mediated)),
        optimal=optimal,
        cost=cost,
        dropped=tuple(dropped),
    )
