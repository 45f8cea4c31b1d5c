"""The options a topic's rules decide whatever the evidence says: what clingo's brave and cautious consequences
of the program without edge scores or readers hold. Among the answer sets that are optimal when no evidence
speaks (the None prior, a priority level above the evidence, still holds), an option selected in every one is
settled as a cause, one selected in none as not a cause; the others are open, and only they tell how far a
reader can be trusted where the answer is not given away (readers/trust/)."""

from __future__ import annotations

import networkx as nx

from ..evidence.timeline import Timeline
from .facts import Select, read_atoms, topic_facts
from .solve import SolverParams, TopicProgram

Key = tuple[str, str]  # (question id, label)


def _consequences(program: TopicProgram, mode: str, questions: list[str], without: frozenset[str]) -> set[Key] | None:
    """The select/2 atoms that are brave or cautious (`mode`) consequences of the optimal answer sets with the
    rule groups not in `without` and exactly `questions` active; None when there is no answer set."""
    solve = program.control.configuration.solve
    solve.enum_mode = mode  # type: ignore[union-attr]  # clingo's stubs type configuration entries loosely
    solve.opt_mode = "optN"  # type: ignore[union-attr]
    solve.models = 0  # type: ignore[union-attr]
    assumptions = [(s, g not in without) for g, s in program.groups.items()]
    assumptions += [(s, q in questions) for q, s in sorted(program.questions.items())]
    last: list = []
    result = program.control.solve(assumptions=assumptions, on_model=lambda m: last.__setitem__(
        slice(None), m.symbols(shown=True)))
    if result.unsatisfiable or not last:
        return None
    return {(a.qid, a.label) for a in read_atoms(last) if isinstance(a, Select)}


def settled_options(graph: nx.DiGraph, after=frozenset(), timeline: Timeline | None = None,
                    without: frozenset[str] = frozenset(), params: SolverParams = SolverParams()) -> dict[Key, bool]:
    """The real options of the topic's questions that the rules settle, with their settled label: True where
    every evidence-free optimal answer set selects them, False where none does. The rules are those the topic is
    answered with: the groups not in `without`, the constants of `params` (under `--priors none` the construction
    priors settle nothing). A topic whose rules admit no answer set is taken question by question; a question
    without one on its own settles nothing."""
    program = TopicProgram(topic_facts(graph, {}, after, (), timeline), params)
    qids = sorted(graph.graph["questions"])
    whole = _consequences(program, "brave", qids, without)
    parts = [qids] if whole is not None else [[q] for q in qids]
    settled: dict[Key, bool] = {}
    for part in parts:
        brave = whole if part is qids else _consequences(program, "brave", part, without)
        cautious = _consequences(program, "cautious", part, without)
        if brave is None or cautious is None:
            continue
        for qid in part:
            slots = graph.graph["questions"][qid]
            for label in slots.options:
                key = (qid, label)
                if key not in brave:
                    settled[key] = False
                elif key in cautious:
                    settled[key] = True
    return settled

