"""Explanations of answers, read from the answer set: edge scores and the rules that forced or excluded options."""

from __future__ import annotations

import networkx as nx

from .data import LABELS, Question
from .reason import Solution, log_odds

RULE_TEXT = {
    "core": "an event cannot cause itself",
    "consistency": "the same pair was rejected where None was the answer",
    "temporal": "dated after the target",
}


def option_rules(solution: Solution, event: int, target: int) -> list[str]:
    """The rule atoms of the answer set that concern the pair (event, target)."""
    rules = [f"excluded({g},{e},{t})" for g, e, t in solution.excluded if (e, t) == (event, target)]
    rules += [f"mediated({e},{m},{t})" for e, m, t in solution.mediated if (e, t) == (event, target)]
    return rules


def explain_question(
    question: Question, graph: nx.DiGraph, scores: dict[tuple[int, int], float], solution: Solution
) -> dict:
    """One JSON-ready record: the chosen labels, each option's edge score and the rules that touched it."""
    slots = graph.graph["questions"][question.qid]
    chosen = solution.answers[question.qid]
    options = {}
    for label in LABELS:
        record = {"text": question.option(label), "selected": label in chosen}
        if label == slots.none_label:
            record["rules"] = [f"forced(none,{question.qid})"] if ("none", question.qid) in solution.forced else []
        else:
            event = slots.options[label]
            p = scores.get((event, slots.target))
            record.update(
                event=event,
                score=None if p is None else round(p, 4),
                log_odds=None if p is None else log_odds(p),
                rules=option_rules(solution, event, slots.target),
            )
        options[label] = record
    return {
        "id": question.qid,
        "topic_id": question.topic_id,
        "answer": ",".join(sorted(chosen)),
        "target": question.target,
        "target_event": slots.target,
        "options": options,
        "optimal": solution.optimal,
        "dropped_rule_groups": list(solution.dropped),
    }


def reason_line(record: dict) -> str:
    """A one-line reason: the chosen labels with their scores, and why the others were not chosen."""
    chosen, rejected = [], []
    for label, opt in record["options"].items():
        if opt.get("event") is None:
            why = "no other option is a cause" if opt["selected"] else "another option is a cause"
            (chosen if opt["selected"] else rejected).append(f"{label} (None: {why})")
            continue
        rules = [r.split("(")[1].split(",")[0] for r in opt["rules"] if r.startswith("excluded")]
        note = f"p={opt['score']:.2f}" if opt["score"] is not None else "unscored"
        if rules:
            note += "; " + "; ".join(RULE_TEXT.get(r, r) for r in rules)
        if any(r.startswith("mediated") for r in opt["rules"]):
            note += "; mediated chain"
        (chosen if opt["selected"] else rejected).append(f"{label} ({note})")
    line = f"{record['id']}: {record['answer']}  chose {', '.join(chosen)}"
    return line + (f"; not {', '.join(rejected)}" if rejected else "")
