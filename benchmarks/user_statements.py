"""Can directed statements, read from the sentences that tell both events, answer a user's own topic better?
An experiment for issue "Read a user's own topic", kept with its figures (BENCHMARKS.md, "Directed statements").

The reader: each question event is placed in a sentence whose relevance to it (evidence/retrieve.py) is at least
REL_MIN, at the median position of its own content words there (stems it does not share with the other event);
a connective between the two places gives the statement its direction ("T because of E", "E led to T": E
stated as a cause; "E because of T": E stated as a consequence; "T after E": E stated as earlier). A connective
opening the next sentence ("As a result, ...") or a sentence announcing causes ("T was the result of two
failures.") links across sentences. Each feature is the strength (the weaker relevance) of the strongest
sentence stating it.

Measured, over the user-style topics: how often each statement is read for gold pairs and for the others; the
option AUC of an evidence scorer trained on user-style topics (folds leave one topic out over the tuning sets;
the validation set is scored by a scorer fitted on all tuning topics) without and with the statement features;
and the AER score of the solved answers under priors none at the precision bias chosen on the first tuning
set's held-out answers (as benchmarks/user_scorer.py does).

    python benchmarks/user_statements.py --cache-dir /tmp/user-cache
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
from sklearn.metrics import roc_auc_score

import causalgraph as cg
from causalgraph.analysis.cache import AnalysisCache
from causalgraph.config import DEFAULT_MODEL
from causalgraph.evidence.retrieve import DocumentVectors, embed_events, retrieve
from causalgraph.graph.topic import build_graph
from causalgraph.learn.scorer import EdgeScorer
from causalgraph.run.batch import scorer_for
from causalgraph.text.extract import TopicExtraction
from labelled import print_table, run_benchmark
from user_scorer import BIASES, analyses, score, sets_parser
from user_topics import topic_folders

# Connectives -> (kind, direction). "forward": the cause is told before the connective, the effect after it
# ("E led to T"); "backward": the effect before, the cause after ("T because of E"). Matched on whole words of
# the lower-cased sentence; the longest match at a place wins.
CONNECTIVES: dict[str, tuple[str, str]] = {
    **dict.fromkeys(("led to", "leads to", "lead to", "leading to", "resulted in", "results in", "resulting in",
                     "caused", "causing", "triggered", "triggering", "prompted", "prompting", "sparked", "sparking",
                     "forced", "forcing", "drove", "pushed", "brought down", "set off", "gave rise to",
                     "contributed to", "was behind", "were behind", "as a result", "as a consequence",
                     "consequently", "therefore", "which meant", "meaning that", "so"), ("causal", "forward")),
    **dict.fromkeys(("because of", "because", "due to", "owing to", "caused by", "triggered by", "prompted by",
                     "sparked by", "driven by", "brought on by", "set off by", "in response to", "as a result of",
                     "the result of", "a result of", "the consequence of", "in the wake of", "came down to",
                     "comes down to", "blamed on", "blamed", "blaming", "attributed to", "traced to",
                     "stemmed from", "stems from", "resulted from", "results from", "on the grounds that"),
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
WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
WINDOW = 2  # sentences after an announcing sentence whose events it can name as causes
REL_MIN = 0.45  # relevance (evidence.retrieve) a sentence needs to count as telling an event


def stem(word: str) -> str:
    """A crude stem: the word's first six letters, after a plural or past-tense ending."""
    for suffix in ("ing", "ed", "es", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    return word[:6]


def content_stems(text: str) -> list[tuple[int, str]]:
    """(word position, stem) of the text's content words."""
    return [(i, stem(w)) for i, w in enumerate(WORD.findall(text.lower())) if w not in STOPWORDS and len(w) > 1]


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
    phrases = sorted(CONNECTIVES, key=lambda p: -len(p.split()))
    while i < len(words):
        for phrase in phrases:
            parts = phrase.split()
            if words[i : i + len(parts)] == parts:
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


def across(first_cues: list[Connective], next_cues: list[Connective], first: Mention, first_is_cause: bool) -> list[str]:
    """What two near sentences of a document state, the first telling one event and the next the other. A causal
    connective opening the next sentence ("As a result", "That prompted") makes the first event the cause, one
    that points back ("This was because") the second. A first sentence telling T that goes on to a backward
    connective ("T was the result of two failures.") announces causes to come."""
    stated = []
    for c in next_cues:
        if c.start <= 3 and c.kind == "causal" and not c.negated:
            stated.append("stated_cause_across" if first_is_cause == (c.direction == "forward") else "stated_consequence_across")
    if not first_is_cause:
        stated += ["stated_cause_across" for c in first_cues
                   if c.kind == "causal" and c.direction == "backward" and c.start >= first.place and not c.negated]
    return stated


class StatementReader:
    """Reads the directed statements about pairs of a topic's events from its sentences (texts in topic order,
    `docs[i]` the document of sentence i, `relevance[e, i]` sentence i's relevance to event e)."""

    def __init__(self, sentences: list[str], docs: list[int], events: list[str], relevance: np.ndarray):
        words = [WORD.findall(s.lower()) for s in sentences]
        self.stems = [[(i, stem(w)) for i, w in enumerate(ws) if w not in STOPWORDS and len(w) > 1] for ws in words]
        self.connectives = [connectives(ws) for ws in words]
        self.event_stems = [{s for _, s in content_stems(text)} for text in events]
        self.docs, self.relevance = docs, relevance

    def mention(self, e: int, s: int, other: int) -> Mention | None:
        """Where event e sits in sentence s, told apart from event `other` by e's own words (not the other's);
        None where the sentence's relevance to e is under REL_MIN or none of e's own words is there."""
        strength = float(self.relevance[e, s])
        own = self.event_stems[e] - self.event_stems[other]
        places = [i for i, st in self.stems[s] if st in own]
        return Mention(strength, float(np.median(places))) if strength >= REL_MIN and places else None

    def read(self, e: int, t: int) -> dict[str, float]:
        """The statements about E and T: each value is the strength (the weaker of the two mentions) of the
        strongest sentence, or pair of sentences, that states it."""
        found = dict.fromkeys(STATEMENT_FEATURES, 0.0)

        def add(stated: list[str], a: Mention, b: Mention) -> None:
            for what in stated:
                found[what] = max(found[what], min(a.strength, b.strength))

        for s in range(len(self.stems)):
            me, mt = self.mention(e, s, t), self.mention(t, s, e)
            if me and mt:
                add(within(me, mt, self.connectives[s]), me, mt)
            for nxt in range(s + 1, min(s + 1 + WINDOW, len(self.stems))):
                if self.docs[nxt] != self.docs[s]:
                    break
                if mt and (me2 := self.mention(e, nxt, t)):
                    add(across(self.connectives[s], self.connectives[nxt], mt, False), me2, mt)
                if me and (mt2 := self.mention(t, nxt, e)):
                    add(across(self.connectives[s], self.connectives[nxt], me, True), me, mt2)
        return found


STATEMENT_FEATURES = ("stated_cause", "stated_consequence", "stated_not_cause", "stated_before", "stated_after",
                      "stated_cause_across", "stated_consequence_across")


def statements(analysis, cache: AnalysisCache | None, encoder: str, folder: Path) -> pd.DataFrame:
    """The statement features of the analysis's candidate pairs, in table order (the documents read again from
    `folder`, through the cache where one is given, for their sentences' relevance to each event)."""
    topic = cg.load_topics(folder)[0]
    if cache:
        readings = cache.read(topic.documents)
        vectors = DocumentVectors.join(cache.vectors(topic.documents, readings), analysis.vectors.shape[1])
    else:
        from causalgraph.analysis.analyse import Uncached
        store = Uncached(encoder)
        readings = store.read(topic.documents)
        vectors = DocumentVectors.join(store.vectors(topic.documents, readings), analysis.vectors.shape[1])
    extraction = TopicExtraction.join(topic.documents, readings)
    graph = build_graph(topic)
    texts = [graph.nodes[n]["text"] for n in graph]
    relevance = retrieve(extraction, vectors.sentences, texts, embed_events(texts, encoder)).relevance
    reader = StatementReader([s.text for s in extraction.sentences], [s.doc for s in extraction.sentences], texts, relevance)
    return pd.DataFrame([reader.read(e, t) for e, t in analysis.table.pairs], columns=list(STATEMENT_FEATURES))


def held_out(frames: list[pd.DataFrame], gold: list[np.ndarray], train: list[int], test: list[int],
             features: list[str]) -> list[np.ndarray]:
    """The probabilities of the `test` topics' pairs by an evidence scorer fitted on the `train` topics' pairs
    (as benchmarks/user_scorer.py fits it)."""
    model = EdgeScorer(features=tuple(features), max_iter=100, max_leaf_nodes=4)
    model.fit(pd.concat([frames[i] for i in train]), np.concatenate([gold[i] for i in train]))
    return [model.predict_proba(frames[i])[:, 1] for i in test]


def main() -> int:
    args = sets_parser(__doc__).parse_args()
    roots = [*args.tune, args.validate]
    sets = analyses(roots, args.cache_dir)
    shipped, encoder = scorer_for(Path(DEFAULT_MODEL).resolve(), "none")
    cache = AnalysisCache.open(args.cache_dir, encoder) if args.cache_dir else None
    topics = [(root.name, a, folder) for root in roots for a, folder in zip(sets[root.name], topic_folders(root))]
    frames = [pd.concat([a.table.frame(), statements(a, cache, encoder, folder)], axis=1) for _, a, folder in topics]
    gold = [a.gold() for _, a, _ in topics]

    stated = pd.concat(frames)[list(STATEMENT_FEATURES)] > 0
    labels = np.concatenate(gold)
    print_table("statement read", ["gold pairs", "other pairs"],
                [(f, [float(stated[f][labels].mean()), float(stated[f][~labels].mean())]) for f in STATEMENT_FEATURES])

    base = [f for f in shipped.features if f != "cause_is_target"]
    tuning = [i for i, (name, _, _) in enumerate(topics) if name != args.validate.name]
    validation = [i for i, (name, _, _) in enumerate(topics) if name == args.validate.name]
    rows = []
    for label, features in (("shipped features", base), ("shipped features + statements", base + list(STATEMENT_FEATURES))):
        probs = {}
        for i in tuning:
            probs[i] = held_out(frames, gold, [j for j in tuning if j != i], [i], features)[0]
        probs.update(zip(validation, held_out(frames, gold, tuning, validation, features)))
        pairs = {i: dict(zip(topics[i][1].table.pairs, probs[i])) for i in probs}
        first = [i for i in tuning if topics[i][0] == args.tune[0].name]
        bias = max(BIASES, key=lambda b: sum(s for i in first for s in score(topics[i][1], pairs[i], b)))
        cells = []
        for root in roots:
            ids = [i for i, (name, _, _) in enumerate(topics) if name == root.name]
            cells += [roc_auc_score(np.concatenate([gold[i] for i in ids]), np.concatenate([probs[i] for i in ids])),
                      float(np.mean([s for i in ids for s in score(topics[i][1], pairs[i], bias)]))]
        rows.append((f"{label} (bias {bias})", cells))
    print_table("evidence scorer trained on user-style topics",
                [f"{root.name} {what}" for root in roots for what in ("AUC", "score")], rows)
    return 0


if __name__ == "__main__":
    run_benchmark(main)
