"""Typed ASP predicates (clorm): the facts Python gives clingo, and the atoms it reads back from answer sets.

Every predicate the rule files share with Python is declared here once; `topic_facts` builds a topic's facts
and `read_atoms` unifies an answer set's shown symbols against the output predicates."""

from __future__ import annotations

from typing import Iterable

import networkx as nx
from clorm import ConstantField, FactBase, IntegerField, Predicate, StringField, unify

from ..graph.timeline import Timeline
from ..readers.base import ReaderJudgements, log_odds

# --- input facts ---


class QuestionFact(Predicate):
    """question(Q): Q is a question of the topic."""

    qid = StringField

    class Meta:
        name = "question"


class TargetFact(Predicate):
    """target(Q,T): event T is the target of question Q."""

    qid = StringField
    event = IntegerField

    class Meta:
        name = "target"


class OptionFact(Predicate):
    """option(Q,L,E): label L of question Q offers event E (real options only, not None)."""

    qid = StringField
    label = StringField
    event = IntegerField

    class Meta:
        name = "option"


class NoneOptionFact(Predicate):
    """none_option(Q,L): label L of question Q reads "None of the others are correct causes."."""

    qid = StringField
    label = StringField

    class Meta:
        name = "none_option"


class ScoreFact(Predicate):
    """score(E,T,W): the edge scorer's log-odds x 100 that E directly caused T."""

    cause = IntegerField
    target = IntegerField
    weight = IntegerField

    class Meta:
        name = "score"


class AfterFact(Predicate):
    """after(E,T): the dates of E and T place E after T."""

    cause = IntegerField
    target = IntegerField

    class Meta:
        name = "after"


class DocAfterFact(Predicate):
    """doc_after(E,T): the documents' timeline places E after T (by dates or a temporal connective)."""

    cause = IntegerField
    target = IntegerField

    class Meta:
        name = "doc_after"


class DocCauseFact(Predicate):
    """doc_cause(A,B): a sentence of the documents says that A caused B."""

    cause = IntegerField
    effect = IntegerField

    class Meta:
        name = "doc_cause"


class ReaderWeightFact(Predicate):
    """reader_weight(R,W): fusion scales reader R's log-odds by W percent."""

    reader = StringField
    weight = IntegerField

    class Meta:
        name = "reader_weight"


class JudgedFact(Predicate):
    """judged(R,Q,L,S): reader R gives label L of question Q the log-odds x 100 S of being a direct cause."""

    reader = StringField
    qid = StringField
    label = StringField
    log_odds = IntegerField

    class Meta:
        name = "judged"


# --- atoms read back from the answer set ---


class Select(Predicate):
    """select(Q,L): the answer of question Q holds label L."""

    qid = StringField
    label = StringField

    class Meta:
        name = "select"


class Cause(Predicate):
    """cause(E,T): the answer set takes E as a direct cause of T."""

    cause = IntegerField
    target = IntegerField

    class Meta:
        name = "cause"


class Excluded(Predicate):
    """excluded(G,E,T): rule group G rules out E as a cause of T."""

    group = ConstantField
    cause = IntegerField
    target = IntegerField

    class Meta:
        name = "excluded"


class Forced(Predicate):
    """forced(G,Q,L): rule group G makes label L part of the answer of question Q."""

    group = ConstantField
    qid = StringField
    label = StringField

    class Meta:
        name = "forced"


OUTPUT = [Select, Cause, Excluded, Forced]
# What each rule atom says, for explanations and the page.
ATOM_TEXT = {
    ("excluded", "core"): "an event cannot cause itself",
    ("excluded", "consistency"): "the same pair was rejected where None was the answer",
    ("excluded", "temporal"): "dated after the target",
    ("forced", "none"): "no real option was chosen, so None is the answer",
    ("forced", "priors"): "the option's text is offered twice in this question",
}


def describe(atom: Excluded | Forced) -> str:
    """What a rule atom means, in words."""
    name = type(atom).meta.name
    return ATOM_TEXT[(name, getattr(atom, "group", None))]


def topic_facts(graph: nx.DiGraph, scores: dict[tuple[int, int], float], after: Iterable[tuple[int, int]],
                readers: Iterable[ReaderJudgements] = (), timeline: Timeline | None = None) -> FactBase:
    """The facts of a topic: questions, targets, options, None options, edge scores, known orders, each
    reader's weight and judgements of the topic's questions, and the timeline's order and causal edges."""
    facts: list[Predicate] = []
    for qid, slots in sorted(graph.graph["questions"].items()):
        facts += [QuestionFact(qid), TargetFact(qid, slots.target)]
        facts += [OptionFact(qid, label, event) for label, event in sorted(slots.options.items())]
        if slots.none_label:
            facts.append(NoneOptionFact(qid, slots.none_label))
    facts += [ScoreFact(e, t, log_odds(p)) for (e, t), p in sorted(scores.items())]
    facts += [AfterFact(e, t) for e, t in sorted(after)]
    if timeline is not None:
        norm = {n: graph.nodes[n]["norm"] for n in graph}
        facts += [DocAfterFact(e, t) for e, t in sorted(scores) if timeline.after(norm[e], norm[t])]
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
