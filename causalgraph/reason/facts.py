"""Typed ASP predicates (clorm): the facts Python gives clingo, and the atoms it reads back from answer sets.

Every predicate the rule files share with Python is declared here once; `topic_facts` builds a topic's facts
and `read_atoms` unifies an answer set's shown symbols against the output predicates."""

from __future__ import annotations

from collections.abc import Iterable

import networkx as nx
from clorm import ConstantStr, FactBase, Predicate, unify

from ..evidence.timeline import Timeline
from ..readers.base import ReaderJudgements, log_odds
from .groups import ATOM_TEXT

# --- input facts ---


class QuestionFact(Predicate, name="question"):
    """question(Q): Q is a question of the topic."""

    qid: str


class TargetFact(Predicate, name="target"):
    """target(Q,T): event T is the target of question Q."""

    qid: str
    event: int


class OptionFact(Predicate, name="option"):
    """option(Q,L,E): label L of question Q offers event E (real options only, not None)."""

    qid: str
    label: str
    event: int


class NoneOptionFact(Predicate, name="none_option"):
    """none_option(Q,L): label L of question Q reads "None of the others are correct causes."."""

    qid: str
    label: str


class ScoreFact(Predicate, name="score"):
    """score(E,T,W): the edge scorer's log-odds x 100 that E directly caused T."""

    cause: int
    target: int
    weight: int


class LaterFact(Predicate, name="later"):
    """later(E,T,B): E is placed after T on basis B: `dates`, the dates that the texts of E and T state, or
    `documents`, the documents' timeline (the dates of their mentions, or a temporal connective)."""

    cause: int
    target: int
    basis: ConstantStr


class DocCauseFact(Predicate, name="doc_cause"):
    """doc_cause(A,B): a sentence of the documents says that A caused B."""

    cause: int
    effect: int


class ReaderWeightFact(Predicate, name="reader_weight"):
    """reader_weight(R,W): fusion scales reader R's log-odds by W percent."""

    reader: str
    weight: int


class JudgedFact(Predicate, name="judged"):
    """judged(R,Q,L,S): reader R gives label L of question Q the log-odds x 100 S of being a direct cause."""

    reader: str
    qid: str
    label: str
    log_odds: int


# --- atoms read back from the answer set ---


class Select(Predicate, name="select"):
    """select(Q,L): the answer of question Q holds label L."""

    qid: str
    label: str


class Cause(Predicate, name="cause"):
    """cause(E,T): the answer set takes E as a direct cause of T."""

    cause: int
    target: int


class Excluded(Predicate, name="excluded"):
    """excluded(G,E,T): rule group G rules out E as a cause of T."""

    group: ConstantStr
    cause: int
    target: int


class Forced(Predicate, name="forced"):
    """forced(G,Q,L): rule group G makes label L part of the answer of question Q."""

    group: ConstantStr
    qid: str
    label: str


class Why(Predicate, name="why"):
    """why(Q,L,K,Q2): what decided label L of question Q, a reason of kind K (rules/explain.lp) that comes from
    question Q2 (Q itself where no other question is involved)."""

    qid: str
    label: str
    kind: ConstantStr
    other: str


class Guess(Predicate, name="guess"):
    """guess(Q): nothing supports the real option Q answers, and Q cannot answer None: a forced guess."""

    qid: str


class Gain(Predicate, name="gain"):
    """gain(Q,L,G): what selecting real option L of Q adds to the optimum (log-odds x 100 less the bias, plus
    the readers' weighted log-odds)."""

    qid: str
    label: str
    gain: int


class PairGain(Predicate, name="pair_gain"):
    """pair_gain(Q,L,G): the summed gain of every offer of the pair that option L of Q offers."""

    qid: str
    label: str
    gain: int


class NoneGain(Predicate, name="none_gain"):
    """none_gain(Q,L,G): what answering None (label L of Q) adds to the optimum: the readers' weighted log-odds."""

    qid: str
    label: str
    gain: int


OUTPUT = [Select, Cause, Excluded, Forced, Why, Guess, Gain, PairGain, NoneGain]


def describe(atom: Excluded | Forced) -> str:
    """What a rule atom means, in words (its group's, groups.ATOM_TEXT)."""
    name = type(atom).meta.name
    return ATOM_TEXT[(name, atom.group)]


def dated_order(graph: nx.DiGraph, pairs: Iterable[tuple[int, int]], after: Iterable[tuple[int, int]],
                timeline: Timeline | None = None) -> list[LaterFact]:
    """The one source of dated order for rules/temporal.lp: later(E,T,dates) for each pair of `after` (the event
    texts' own dates, see text/dates.later_pairs) and later(E,T,documents) for each candidate pair that the
    documents' `timeline` places in that order."""
    order = [LaterFact(e, t, "dates") for e, t in sorted(after)]
    if timeline is not None:
        norm = {n: graph.nodes[n]["norm"] for n in graph}
        order += [LaterFact(e, t, "documents") for e, t in sorted(pairs) if timeline.after(norm[e], norm[t])]
    return order


def topic_facts(graph: nx.DiGraph, scores: dict[tuple[int, int], float], after: Iterable[tuple[int, int]],
                readers: Iterable[ReaderJudgements] = (), timeline: Timeline | None = None) -> FactBase:
    """The facts of a topic: questions, targets, options, None options, edge scores, dated order, each
    reader's weight and judgements of the topic's questions, and the timeline's order and causal edges."""
    facts: list[Predicate] = []
    for qid, slots in sorted(graph.graph["questions"].items()):
        facts += [QuestionFact(qid), TargetFact(qid, slots.target)]
        facts += [OptionFact(qid, label, event) for label, event in sorted(slots.options.items())]
        if slots.none_label:
            facts.append(NoneOptionFact(qid, slots.none_label))
    facts += [ScoreFact(e, t, log_odds(p)) for (e, t), p in sorted(scores.items())]
    facts += dated_order(graph, scores, after, timeline)
    if timeline is not None:
        norm = {n: graph.nodes[n]["norm"] for n in graph}
        node = {v: k for k, v in norm.items()}
        facts += [DocCauseFact(node[a], node[b]) for a, b in sorted(timeline.causes) if a in node and b in node]
    questions = graph.graph["questions"]
    for reader in readers:
        facts.append(ReaderWeightFact(reader.reader, reader.weight))
        facts += [JudgedFact(reader.reader, qid, label, judgement.log_odds())
                  for (qid, label), judgement in sorted(reader.judgements.items()) if qid in questions]
    return FactBase(facts)


def read_atoms(symbols) -> FactBase:
    """The typed atoms of an answer set's shown symbols."""
    return unify(OUTPUT, symbols)
