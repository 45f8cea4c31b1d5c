"""Directed statements: which sentence says that one event caused, followed, or was the consequence of another.

Each event is placed in a sentence that tells it (relevance REL_MIN or more, evidence/retrieve.py) at the median
position of its own content words there (stems the other event does not share; never the words of a date, which
text/dates.py reads). A connective between the two places gives the statement its direction: "T because of E" and
"E led to T" state E as a cause of T, "E because of T" states E as a consequence of T, "T after E" states only
that E came first. A connective opening one of the next WINDOW sentences of the same document ("As a result,
...") or a target sentence announcing causes ("T was the result of two failures.") links across sentences; a
negation beside a connective ("was not caused by") states that E was not the cause. What was measured:
BENCHMARKS.md, "A user's own topic"."""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

# Connectives -> (kind, direction). "forward": the cause is told before the connective, the effect after it
# ("E led to T"); "backward": the effect before, the cause after ("T because of E"). Matched on whole words of
# the lower-cased sentence; the longest match at a place wins.
CONNECTIVES: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("led to", "leads to", "lead to", "leading to", "resulted in", "results in", "resulting in",
                     "caused", "causing", "triggered", "triggering", "prompted", "prompting", "sparked", "sparking",
                     "forced", "forcing", "drove", "pushed", "brought down", "set off", "gave rise to",
                     "contributed to", "was behind", "were behind", "as a result", "as a consequence",
                     "consequently", "therefore", "which meant", "meaning that", "so", "knocking out", "knocked out",
                     "reflected in"),
                    ("causal", "forward")),
    **dict.fromkeys(("because of", "because", "due to", "owing to", "caused by", "triggered by", "prompted by",
                     "sparked by", "driven by", "brought on by", "set off by", "in response to", "as a result of",
                     "the result of", "a result of", "the consequence of", "in the wake of", "came down to",
                     "comes down to", "blamed on", "blamed", "blaming", "attributed to", "traced to",
                     "stemmed from", "stems from", "resulted from", "results from", "on the grounds that",
                     "knocked out by", "reflected", "reflecting", "reflects", "amid"),
                    ("causal", "backward")),
    **dict.fromkeys(("after", "following", "once", "in the aftermath of"), ("temporal", "backward")),
    **dict.fromkeys(("before", "prior to", "ahead of", "then", "later", "subsequently", "until"),
                    ("temporal", "forward")),
}
# Words that negate the connective they stand right before or after ("was not caused by", "ruled out").
NEGATIONS = ("not", "n't", "never", "no", "ruled out", "rather than", "instead of", "rejected", "denied", "dismissed")
STOPWORDS = frozenset("""a an the of to in on at by for from with and or but as is was were be been being has have had
do does did its it's their his her they them he she it this that these those which who whom what when where while
than then so such into onto over under about after before also more most other some any all each one two three
first second would could should may might will can not no said says say year years day days percent per""".split())
# Words of a date ("on March 7, 2024", "that Tuesday"): the dates are read apart (text/dates.py), and as event words
# they would place any event of the same days in any sentence dated so.
DATE_WORDS = frozenset("""january february march april may june july august september october november december
jan feb mar apr jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday""".split())
# The connectives by their first word, the longest first.
BY_FIRST_WORD: dict[str, list[list[str]]] = {}
for _phrase in sorted(CONNECTIVES, key=lambda p: -len(p.split())):
    BY_FIRST_WORD.setdefault(_phrase.split()[0], []).append(_phrase.split())
WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
WINDOW = 2  # sentences after one that tells an event, where a statement of the other can follow
REL_MIN = 0.45  # relevance (evidence.retrieve) a sentence needs to count as telling an event


def stem(word: str) -> str:
    """A crude stem: the word's first six letters, after a plural or past-tense ending."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:6]


def words_of(text: str) -> list[str]:
    """The lower-case words of a text, as the statements count them."""
    return WORD.findall(text.lower())


def content_stems(words: list[str]) -> list[tuple[int, str]]:
    """(word position, stem) of the content words among `words`: not a stopword or a word of a date."""
    return [(i, stem(w)) for i, w in enumerate(words)
            if w not in STOPWORDS and len(w) > 1 and not is_date_word(words, i)]


def is_date_word(words: list[str], i: int) -> bool:
    """Whether words[i] is a word of a date: a month or weekday, a year (1800-2099), or a day after a month."""
    w = words[i]
    return (w in DATE_WORDS or bool(re.fullmatch(r"(18|19|20)\d\d", w))
            or (bool(re.fullmatch(r"\d{1,2}(st|nd|rd|th)?", w)) and i > 0 and words[i - 1] in DATE_WORDS))


@dataclass(frozen=True)
class Mention:
    """An event told in a sentence: the sentence's relevance to it, and the word position where it sits."""

    strength: float
    place: float


@dataclass(frozen=True)
class Connective:
    """A connective in a sentence: its CONNECTIVES entry, its word positions, and whether a negation is near."""

    phrase: str
    kind: str
    direction: str
    start: int
    end: int
    negated: bool


def connectives(words: list[str]) -> list[Connective]:
    """The connectives of a sentence's words, the longest at each place."""
    found, i = [], 0
    while i < len(words):
        for parts in BY_FIRST_WORD.get(words[i], ()):
            if words[i : i + len(parts)] == parts:
                phrase = " ".join(parts)
                near = " ".join(words[max(0, i - 3) : i + len(parts) + 2])
                negated = any(re.search(rf"\b{re.escape(n)}\b", near) for n in NEGATIONS)
                found.append(Connective(phrase, *CONNECTIVES[phrase], i, i + len(parts), negated))
                i += len(parts) - 1
                break
        i += 1
    return found


def within(me: Mention, mt: Mention, cues: list[Connective]) -> list[str]:
    """What the connectives of one sentence that tells both E and T state about them."""
    stated = []
    first, second = sorted((me, mt), key=lambda m: m.place)
    for c in cues:
        if c.start == 0:  # "Because E, T" / "After E, T": the connective's clause holds the first event
            cause_first = c.direction == "backward"
        elif first.place < c.start and second.place >= c.end:  # the connective stands between the two
            cause_first = c.direction == "forward"
        else:
            continue
        e_cause = cause_first == (me.place < mt.place)
        if c.kind == "temporal":
            stated.append("stated_before" if e_cause else "stated_after")
        elif c.negated:
            stated += ["stated_not_cause"] if e_cause else []
        else:
            stated.append("stated_cause" if e_cause else "stated_consequence")
    return stated


def across(first_cues: list[Connective], next_cues: list[Connective], first: Mention,
           first_is_cause: bool) -> list[str]:
    """What two near sentences of a document state, the first telling one event and the next the other. A causal
    connective opening the next sentence ("As a result", "That prompted") makes the first event the cause, and
    so does a backward one as its first word, whose clause refers back ("Because of this, ...", "Amid the
    chaos, ..."); a backward one after a word or three ("This was because ...") makes the second the cause. A
    first sentence telling T that goes on to a backward connective ("T was the result of two failures.")
    announces causes to come."""
    stated = []
    for c in next_cues:
        if c.start <= 3 and c.kind == "causal" and not c.negated:
            first_causes = c.direction == "forward" or c.start == 0
            stated.append("stated_cause_across" if first_is_cause == first_causes else "stated_consequence_across")
    if not first_is_cause:
        stated += ["stated_cause_across" for c in first_cues
                   if c.kind == "causal" and c.direction == "backward" and c.start >= first.place and not c.negated]
    return stated


class StatementReader:
    """Reads the directed statements about pairs of a topic's events from its sentences (texts in topic order,
    `docs[i]` the document of sentence i, `relevance[e, i]` sentence i's relevance to event e)."""

    def __init__(self, sentences: list[str], docs: list[int], events: list[str], relevance: np.ndarray):
        words = [words_of(s) for s in sentences]
        self.stems = [content_stems(ws) for ws in words]
        self.connectives = [connectives(ws) for ws in words]
        self.event_stems = [{s for _, s in content_stems(words_of(text))} for text in events]
        self.docs, self.relevance = docs, relevance
        self.told = [np.flatnonzero(row >= REL_MIN) for row in relevance]  # the sentences that tell each event
        # where each event's words sit in each sentence that tells it: {sentence: [(position, stem)]}
        self.places = [{int(s): [(i, st) for i, st in self.stems[s] if st in self.event_stems[e]] for s in told}
                       for e, told in enumerate(self.told)]

    def mention(self, e: int, s: int, other: int) -> Mention | None:
        """Where event e sits in sentence s, told apart from event `other` by e's own words (not the other's);
        None where the sentence's relevance to e is under REL_MIN or none of e's own words is there."""
        places = self.own_places(e, s, other)
        return Mention(float(self.relevance[e, s]), float(np.median(places))) if places else None

    def own_places(self, e: int, s: int, other: int) -> list[int]:
        """The word positions in sentence s of event e's own words (not those of event `other`); none where the
        sentence does not tell e (relevance under REL_MIN)."""
        shared = self.event_stems[other]
        return [i for i, st in self.places[e].get(s, ()) if st not in shared]

    def read(self, e: int, t: int) -> dict[str, tuple[float, tuple[int, ...]]]:
        """The statements about E and T that the sentences make: for each of STATEMENT_FEATURES stated, its
        strength (the weaker relevance of the two mentions) and the sentence, or two sentences, of the strongest."""
        found: dict[str, tuple[float, tuple[int, ...]]] = {}

        def add(stated: list[str], a: Mention, b: Mention, sentences: tuple[int, ...]) -> None:
            strength = min(a.strength, b.strength)
            for what in stated:
                if strength > found.get(what, (0.0, ()))[0]:
                    found[what] = (strength, sentences)

        for s in np.union1d(self.told[e], self.told[t]).tolist():
            me, mt = self.mention(e, s, t), self.mention(t, s, e)
            if me and mt:
                add(within(me, mt, self.connectives[s]), me, mt, (s,))
            for nxt in range(s + 1, min(s + 1 + WINDOW, len(self.stems))):
                if self.docs[nxt] != self.docs[s]:
                    break
                if mt and (me2 := self.mention(e, nxt, t)):
                    add(across(self.connectives[s], self.connectives[nxt], mt, False), me2, mt, (s, nxt))
                if me and (mt2 := self.mention(t, nxt, e)):
                    add(across(self.connectives[s], self.connectives[nxt], me, True), me, mt2, (s, nxt))
        return found

STATEMENT_FEATURES = ("stated_cause", "stated_consequence", "stated_not_cause", "stated_before", "stated_after",
                      "stated_cause_across", "stated_consequence_across")

