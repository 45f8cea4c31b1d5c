"""Explanations of answers, from the typed atoms of the answer set: edge scores and the rules that forced or
excluded options."""

from __future__ import annotations

import networkx as nx

from ..data import LABELS, Question
from ..readers.base import ReaderJudgements
from .facts import Excluded, Forced, describe, log_odds
from .solve import Solution


def atom_record(atom) -> dict:
    """A rule atom as JSON: the atom as clingo writes it, its predicate, rule group and meaning."""
    return {"atom": str(atom), "predicate": type(atom).meta.name, "group": getattr(atom, "group", None),
            "meaning": describe(atom)}


def explain_question(
    question: Question, graph: nx.DiGraph, scores: dict[tuple[int, int], float], solution: Solution,
    readers: tuple[ReaderJudgements, ...] = (),
) -> dict:
    """One JSON-ready record: the chosen labels, each option's edge score, each reader's judgement (with the
    evidence it read) and the rule atoms that touched it."""
    slots = graph.graph["questions"][question.qid]
    chosen = solution.answers[question.qid]
    options = {}
    for label in LABELS:
        record = {"text": question.option(label), "selected": label in chosen}
        atoms: list[Excluded | Forced] = [*solution.label_atoms(question.qid, label)]
        if label in slots.options:
            event = slots.options[label]
            p = scores.get((event, slots.target))
            atoms = [*solution.pair_atoms(event, slots.target, question.qid), *atoms]
            record.update(event=event, score=None if p is None else round(p, 4),
                          log_odds=None if p is None else log_odds(p))
        record["rules"] = [atom_record(a) for a in atoms]
        judged = [(r, r.judgements.get((question.qid, label))) for r in readers]
        record["readers"] = [{"reader": r.reader, "weight": r.weight, "reliability": reliability(r), **j.as_record()}
                             for r, j in judged if j]
        options[label] = record
    return {
        "id": question.qid,
        "topic_id": question.topic_id,
        "answer": ",".join(sorted(chosen)),
        "target": question.target,
        "target_event": slots.target,
        "options": options,
        "optimal": solution.optimal,
        "dropped_rule_groups": list(solution.dropped_for(question.qid)),
        "answered_alone": question.qid in solution.alone,
    }


def reliability(reader: ReaderJudgements) -> str:
    """How far fusion trusts the reader, and why: its calibration's line, or the weight that was given."""
    if reader.calibration is not None:
        return reader.calibration.reliability()
    return f"not estimated: weight {reader.weight}% given (--reader-weight)"


def reason_line(record: dict) -> str:
    """A one-line reason: the chosen labels with their scores, and why the others were not chosen."""
    chosen: list[str] = []
    rejected: list[str] = []
    for label, opt in record["options"].items():
        if opt.get("event") is None:
            why = "no other option is a cause" if opt["selected"] else "another option is a cause"
            (chosen if opt["selected"] else rejected).append(f"{label} (None: {why})")
            continue
        note = f"p={opt['score']:.2f}" if opt["score"] is not None else "unscored"
        note += "".join(f"; {r['reader']} " + (f"p={r['probability']:.2f}" if r["probability"] is not None
                                                 else ("yes" if r["verdict"] else "no")) for r in opt.get("readers", []))
        meanings = list(dict.fromkeys(r["meaning"] for r in opt["rules"]))
        if meanings:
            note += "; " + "; ".join(meanings)
        (chosen if opt["selected"] else rejected).append(f"{label} ({note})")
    line = f"{record['id']}: {record['answer']}  chose {', '.join(chosen)}"
    return line + (f"; not {', '.join(rejected)}" if rejected else "")
