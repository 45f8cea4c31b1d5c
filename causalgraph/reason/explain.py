"""Explanations of answers, from the typed atoms of the answer set: edge scores, the rules that forced or
excluded options, and what decided each option (the why(Q,L,K,Q2) atoms of the rule files' explain parts) in
the words of its kind (reason/groups.py). Nothing here decides: each sentence is the words of an atom."""

from __future__ import annotations

from collections.abc import Callable

import networkx as nx

from ..data import LABELS, Question
from ..evidence.features import GROUPS, Source
from ..evidence.reading import READ_FEATURES
from ..readers.base import ReaderJudgements
from ..text.dates import date_text, parse_date
from ..text.extract import TopicExtraction
from .facts import Excluded, Forced, describe, log_odds
from .groups import WORDS
from .solve import Confidence, Solution

# What each evidence group read, in words; an effect below EFFECT_SHOWN (log-odds) is not listed.
GROUP_WORDS = {"documents": "where the documents tell the two events (together, near each other, which first, "
                            "a causal cue between them, the order of their dates)",
               "dates": "the days between the dates the texts (or their best mentions) state",
               "later dates": "how far the cause is dated after the target, by the dates the texts (or their best "
                              "mentions) state, or before it where a sentence relates the two",
               "told": "where each event is best told, and the documents' dates",
               "dependency cues": "a cue's cause and effect in the parse",
               "statements": "what the sentences state of the two events, read with the connective's direction",
               "read statements": "what the sentences state of the two events, as the trained reader reads them"}
EFFECT_SHOWN = 0.1
# The statements that speak for an option being a cause, and against it: a group that lowers an option does not
# cite the first (it lowered the option for another reason: a stronger statement of another option, say), nor does
# one that raises it cite the second.
FOR = ("stated_cause", "stated_cause_across", "stated_before", "read_cause", "read_cause_across")
AGAINST = ("stated_consequence", "stated_consequence_across", "stated_not_cause", "stated_after", "read_consequence",
           "read_consequence_across")
SENTENCES_SHOWN = 3
# The sentences of a group in this order of the features they fed: a stated cause first, co-mention last.
FEATURE_ORDER = ("read_cause", "read_cause_across", "read_consequence", "read_consequence_across",
                 "stated_cause", "stated_cause_across", "stated_not_cause", "stated_consequence",
                 "stated_consequence_across", "stated_after", "stated_before", "cue_forward", "dependency_cue_forward",
                 "nearby_sentences", "same_sentence", "told_order", "event_date_gap", "event_dated_after")


def evidence_record(effects: dict[str, float], sources: tuple[Source, ...], extraction: TopicExtraction,
                    texts: tuple[str, str] = ("", "")) -> list[dict]:
    """What moved an option's score, from its pair's evidence: each evidence group whose blanking moves the
    log-odds by EFFECT_SHOWN or more (learn.scorer.evidence_effects), most first, with the sentences that group
    read (less those that say the opposite of its effect: FOR, AGAINST), their documents (title and date) and the
    feature each fed; the dates group names the dates of the cause and the target
    (`texts`, their event texts: the date each states, else its best dated mention's)."""
    record = []
    for group, effect in sorted(effects.items(), key=lambda kv: (-abs(kv[1]), kv[0])):
        if abs(effect) < EFFECT_SHOWN:
            continue
        against = AGAINST if effect > 0 else FOR  # a sentence is never shown moving an option against what it says
        read = sorted((s for s in sources if s.feature in GROUPS[group] and s.feature not in against),
                      key=lambda s: FEATURE_ORDER.index(s.feature))
        read = list(dict.fromkeys(read))[:SENTENCES_SHOWN]
        record.append({"group": group, "log_odds": round(effect, 2), "what": GROUP_WORDS[group],
                       "sentences": [cited(extraction, s) for s in read]})
        if group in ("dates", "later dates"):
            mentioned = {s.role.rsplit(" ", 1)[-1]: extraction.sentences[s.sentence].date for s in sources
                         if s.feature in GROUPS[group]}
            record[-1]["dates"] = {role: date_text(parse_date(text) or mentioned.get(role))
                                   for role, text in zip(("cause", "target"), texts)}
    return record


def cited(extraction: TopicExtraction, source: Source) -> dict:
    """A sentence that an evidence group read: its document's title and publication date ("" where the data gives
    none), the sentence, the feature it fed and its role there."""
    doc = extraction.sentences[source.sentence].doc
    return {"document": extraction.titles[doc], "document_date": extraction.dates[doc] if extraction.dates else "",
            "sentence": extraction.sentences[source.sentence].text, "feature": source.feature, "role": source.role}


def evidence_line(option: dict) -> str | None:
    """One line on what moved the option's score most, with its first sentence; None where nothing did."""
    if not option.get("evidence"):
        return None
    top = option["evidence"][0]
    line = f"{'raised' if top['log_odds'] > 0 else 'lowered'} by {top['group']} ({top['log_odds']:+.2f} log-odds)"
    if top.get("dates"):
        line += (f": the cause dated {top['dates']['cause'] or 'unknown'}, "
                 f"the target {top['dates']['target'] or 'unknown'}")
    if top["sentences"]:
        first = top["sentences"][0]
        line += (", as told in " if top.get("dates") else ": ") + f"\"{first['sentence']}\""
        where = ", ".join(filter(None, (first["document"], first["document_date"])))
        line += f" ({where})" if where else ""
        if first["feature"] in READ_FEATURES:  # the trained reader's probability, with what it read there
            line += f": it {first['role']}"
    elif not top.get("dates"):
        line += f": {top['what']}"
    return line


def atom_record(atom) -> dict:
    """A rule atom as JSON: the atom as clingo writes it, its predicate, rule group and meaning."""
    return {"atom": str(atom), "predicate": type(atom).meta.name, "group": getattr(atom, "group", None),
            "meaning": describe(atom)}


def same_pair_label(graph: nx.DiGraph, qid: str, label: str, other: str) -> str | None:
    """The label under which question `other` offers the pair that `label` of `qid` offers."""
    questions = graph.graph["questions"]
    slots = questions[qid]
    event = slots.options.get(label)
    found = [l for l, e in sorted(questions[other].options.items()) if e == event
             and questions[other].target == slots.target]
    return found[0] if found else None


def by(gain: int | None) -> str:
    """A gain's size, as the sentences say it ("clears the bias by 62", "falls short by 40")."""
    return "?" if gain is None else str(abs(gain))


def clears(solution: Solution, gain: int | None) -> str:
    """An option's positive gain in words: its evidence against the precision bias, or, with the optimize group
    off (where only the readers weigh), the readers' judgements."""
    if solution.weighed:
        return f"its evidence clears the precision bias by {by(gain)}"
    return f"the readers favour it by {by(gain)}"


def falls_short(solution: Solution, gain: int | None) -> str:
    """An option's gain of 0 or less in words (see `clears`)."""
    if solution.weighed:
        return f"its evidence falls short of the precision bias by {by(gain)}"
    return f"the readers weigh against it by {by(gain)}" if gain else "nothing weighs it"


def own_reason(solution: Solution, qid: str, label: str | None) -> str:
    """The words of a question's own reason for a label it chose (rules/explain.lp's own/2): its why atom's `own`
    words (a prior), else its evidence; for the questions that consistency carries the pair to."""
    own = [WORDS[w.kind].own for w in solution.why_atoms(qid, label or "") if w.kind in WORDS and WORDS[w.kind].own]
    return own[0] if own else clears(solution, solution.gains.get((qid, label or "")))


def dated(graph: nx.DiGraph, node: int | None) -> str:
    """The date an event's own text states, as far as it states it ("2024-03-07", "2015-09")."""
    return date_text(parse_date(graph.nodes[node]["text"])) if node is not None else ""


class Fields(dict):
    """A sentence's fields (groups.Words), each made by its function only where the words ask for it."""

    def __init__(self, makers: dict[str, Callable[[], str]]):
        super().__init__()
        self.makers = makers

    def __missing__(self, key: str) -> str:
        self[key] = self.makers[key]()
        return self[key]


def worded(words: str | dict[str, str], cases: dict[str, bool], fields: Fields) -> str:
    """The words (of groups.Words.why) of the first case that holds, their fields filled in."""
    if isinstance(words, dict):
        words = next(w for case, w in words.items() if case == "" or cases[case])
    return words.format_map(fields)


def why_sentence(graph: nx.DiGraph, solution: Solution, qid: str, label: str) -> str:
    """One sentence naming what decided label `label` of question `qid`, from its why atoms and the words of
    their kinds (groups.WORDS); the costs of a rejected option (rank 4) in one sentence."""
    atoms = solution.why_atoms(qid, label)
    slots = graph.graph["questions"][qid]
    if label not in slots.options and label != slots.none_label:
        return 'not chosen: a second "None of the others" option, which the program leaves out'
    if not atoms:
        return "no explanation atoms (solved without explanations)"
    kind = atoms[0].kind
    chosen = sorted(solution.answers[qid])
    if kind not in WORDS:
        return ("chosen" if label in chosen else "not chosen") + " by the optimum; no rule names why"
    gain = solution.gains.get((qid, label))
    pair_gain = solution.pair_gains.get((qid, label))
    real = [l for l in chosen if (qid, l) in solution.gains]
    cases = {"gain > 0": gain is not None and gain > 0, "gain < 0": gain is not None and gain < 0,
             "chosen": label in chosen, "weighed": solution.weighed, "one chosen": len(real) == 1}

    def words(kind: str, questions: list[str]) -> str:
        other = " and ".join(questions)
        fields = Fields({
            "gain": lambda: by(gain), "clears": lambda: clears(solution, gain),
            "falls_short": lambda: falls_short(solution, gain), "pair_clears": lambda: clears(solution, pair_gain),
            "pair_falls_short": lambda: falls_short(solution, pair_gain), "other": lambda: other,
            "own": lambda: own_reason(solution, other, same_pair_label(graph, qid, label, other)),
            "chosen": lambda: ", ".join(chosen), "real": lambda: ", ".join(real),
            "none_label": lambda: str(slots.none_label),
            "none_gain": lambda: by(solution.none_gains.get((qid, slots.none_label or ""))),
            "beaten": lambda: ", ".join(l for l in LABELS if (solution.gains.get((qid, l)) or 0) > 0),
            "cause_date": lambda: dated(graph, slots.options.get(label)),
            "target_date": lambda: dated(graph, slots.target),
        })
        return worded(WORDS[kind].why, {**cases, "one other": len(questions) == 1}, fields)

    if not WORDS[kind].cost:
        return words(kind, [atoms[0].other])
    if cases["gain > 0"]:
        head = f"not chosen, though {clears(solution, gain)}: "
    else:
        head = f"not chosen, though a better guess than {', '.join(chosen)}: "
    named: dict[str, list[str]] = {}  # kind -> the questions its atoms name, in order
    for a in atoms:
        named.setdefault(a.kind, []).append(a.other)
    return head + "; ".join(words(k, qs) for k, qs in named.items())


def short_why(opt: dict) -> str:
    """What decided an option (its record's `decided_by`) in a few words, for one-line reasons."""
    gain = by(opt.get("gain"))
    texts = [(WORDS[d["kind"]].short if d["kind"] in WORDS else "the optimum").format(other=d["question"], gain=gain)
             for d in opt.get("decided_by", [])]
    return ", ".join(dict.fromkeys(texts)) or "unexplained"


def confidence_words(confidence: dict | None) -> str:
    """A question's confidence record in words."""
    if confidence is None:
        return "confidence not measured"
    if confidence["next_best"] is None:
        return "the rules allow no other answer"
    if confidence["prior"]:
        return (f"the next best answer, {confidence['next_best']}, would take a question's None answer away, "
                "against the None prior")
    if confidence["margin"] == 0:
        return f"a tie with {confidence['next_best']}"
    return f"the next best answer, {confidence['next_best']}, costs {confidence['margin']} more"


def explain_question(
    question: Question, graph: nx.DiGraph, scores: dict[tuple[int, int], float], solution: Solution,
    readers: tuple[ReaderJudgements, ...] = (), evidence: dict[tuple[int, int], list[dict]] | None = None,
) -> dict:
    """One JSON-ready record: the chosen labels, whether they are a forced guess and how far they win; per option
    its edge score, its gain (what selecting it adds to the optimum), what in the documents moved the score
    (`evidence`: its pair's record of evidence_record, where given), each reader's judgement (with the evidence
    it read), the rule atoms that touched it, and what decided it: `why` in words, `decided_by` as atoms."""
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
                          log_odds=None if p is None else log_odds(p), gain=solution.gains.get((question.qid, label)),
                          evidence=(evidence or {}).get((event, slots.target), []))
        record["rules"] = [atom_record(a) for a in atoms]
        judged = [(r, r.judgements.get((question.qid, label))) for r in readers]
        record["readers"] = [{"reader": r.reader, "weight": r.weight, "reliability": reliability(r), **j.as_record()}
                             for r, j in judged if j]
        record["why"] = why_sentence(graph, solution, question.qid, label)
        record["decided_by"] = [{"atom": str(a), "kind": a.kind, "question": a.other}
                                for a in solution.why_atoms(question.qid, label)]
        options[label] = record
    confidence: Confidence | None = solution.confidence.get(question.qid)
    return {
        "id": question.qid,
        "topic_id": question.topic_id,
        "answer": ",".join(sorted(chosen)),
        "forced_guess": question.qid in solution.guesses,
        "confidence": None if confidence is None else confidence.record(),
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


def judged_words(reader: dict) -> str:
    """A reader's judgement (its record in an option's `readers`) in a word: its probability, or yes or no."""
    return f"p={reader['probability']:.2f}" if reader["probability"] is not None else ("yes" if reader["verdict"]
                                                                                       else "no")


def reader_adds(reader: dict) -> int:
    """What a reader's judgement (its record) adds to choosing the option: its log-odds at its weight, as
    rules/readers.lp weighs them (clingo's integer division truncates towards zero)."""
    product = reader["log_odds"] * reader["weight"]
    return (1 if product >= 0 else -1) * (abs(product) // 100)


def option_note(opt: dict) -> str:
    """An option's scores in a few words: the edge probability (or None) and each reader's judgement."""
    if opt.get("event") is None:
        return "None"
    note = f"p={opt['score']:.2f}" if opt["score"] is not None else "unscored"
    return note + "".join(f", {r['reader']} {judged_words(r)}" for r in opt.get("readers", []))


def summary(record: dict) -> str:
    """A question's answer in a few words: what decided each chosen option (unless it is only a forced guess,
    which is said apart), and how far the answer wins."""
    chosen = {label: opt for label, opt in record["options"].items() if opt["selected"]}
    kinds = {d["kind"] for o in chosen.values() for d in o["decided_by"]}
    whys = [] if kinds == {"guess"} else [
        short_why(o) if len(chosen) == 1 else f"{label}: {short_why(o)}" for label, o in chosen.items()]
    confidence = record.get("confidence")
    if confidence is not None and not (confidence["prior"] and kinds & {"none_empty", "none_prior", "none_left"}):
        whys.append("no other answer allowed" if confidence["next_best"] is None else
                    f"next best {confidence['next_best']}: " + ("loses a None answer" if confidence["prior"] else
                                                                f"+{confidence['margin']}"))
    return "; ".join(whys)


def answer_flags(record: dict) -> str:
    """What qualifies the answer, in words: a forced guess, and its confidence; "" when neither is known."""
    flags = ["a forced guess"] if record.get("forced_guess") else []
    if record.get("confidence") is not None:
        flags.append(confidence_words(record["confidence"]))
    return "; ".join(flags)


def reason_line(record: dict) -> str:
    """One line: each chosen option, then each other one, with its scores and, in a few words, what decided it;
    last, whether the answer is a forced guess, and its confidence."""
    chosen: list[str] = []
    rejected: list[str] = []
    for label, opt in record["options"].items():
        (chosen if opt["selected"] else rejected).append(f"{label} ({option_note(opt)}: {short_why(opt)})")
    line = ", ".join(chosen) + (f"; not {', '.join(rejected)}" if rejected else "")
    flags = answer_flags(record)
    return line + (f"; {flags}" if flags else "")
