"""What the documents (and the dates the event texts state) say about each candidate pair (E, T), as feature
groups, with the sentences each feature was read from. A pair's features read only its two events and the
documents, so a topic cut into pieces gives every pair the features it had whole."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..text.dates import PartialDate, day_number, is_after, iso_day, parse_date
from ..text.extract import CueMatch, TopicExtraction
from .reading import READ_FEATURES, ReadStatements
from .retrieve import TOP_K, Retrieval
from .statements import STATEMENT_FEATURES, StatementReader

# Feature groups, each measured as a row of the size curve (docs/lab/scorer.md, "Topic size"):
# - documents: how strongly each event is told, whether the two are told together or near each other, which
#   is told first, causal cue phrases between them, the order of their best dated mentions;
# - dates: the gap in days between the dates the event texts state (else their best dated mentions), either way
#   (the benchmark's scorer: on AER data an earlier date raises a cause, docs/lab/scorer.md);
# - later dates: the same dates read for "after" only (a user's own topics, --priors none): whether the cause's
#   best dated mention is after the target's, how many days the cause is dated after the target, and how many
#   before it where a sentence relates the two (tells both, or a cue or a statement joins them). An earlier date
#   alone reads as no date, so it never raises a cause;
# - told: where each event is best told, the other's position there, and the gap between the publication
#   dates of the two documents;
# - dependency cues: the cause and effect arguments of a cue in the parse ("X led to Y", "because of X");
# - statements: what a sentence, or two, states of the two events with a connective's direction (a cause, a
#   consequence, not the cause, earlier or later: evidence/statements.py);
# - read statements: the trained reader's probability that a sentence, or two, state E as T's cause or as its
#   consequence (evidence/reading.py; read only where the scorer uses them, else 0).
GROUPS: dict[str, tuple[str, ...]] = {
    "documents": ("has_documents", "cause_support", "target_support", "same_sentence", "nearby_sentences",
                  "cause_mentioned_first", "cue_forward", "cue_backward", "dated_before"),
    "dates": ("text_date_gap", "event_date_gap"),
    "later dates": ("dated_after", "text_dated_after", "event_dated_after", "linked_days_before"),
    "told": ("told_same_document", "told_order", "told_publication_gap"),
    "dependency cues": ("dependency_cue_forward", "dependency_cue_backward"),
    "statements": STATEMENT_FEATURES,
    "read statements": READ_FEATURES,
}
EVIDENCE_FEATURES = tuple(f for group in GROUPS.values() for f in group)
# The value of each feature for a topic without documents: the documents and both statements groups' 0 (nothing
# told, nothing stated: as they were trained), unknown (NaN, which the gradient-boosted trees send down a learned
# branch) for the others.
NOTHING_READ = GROUPS["documents"] + GROUPS["statements"] + GROUPS["read statements"]
BLANK = np.array([0.0 if f in NOTHING_READ else np.nan for f in EVIDENCE_FEATURES])
WINDOW = 2  # sentences either side that count as "nearby"
SOURCE_MIN = 0.5  # relevance (or clause similarity) a sentence needs to be named as a source of its feature
# What each statement says of the cause candidate, as the role of the sentence that states it.
STATED = {"stated_cause": "states it as a cause of the target",
          "stated_consequence": "states it as a consequence of the target",
          "stated_not_cause": "states that it was not the cause",
          "stated_before": "states that it came before the target",
          "stated_after": "states that it came after the target",
          "stated_cause_across": "with the next sentence, states it as a cause of the target",
          "stated_consequence_across": "with the next sentence, states it as a consequence of the target",
          "read_cause": "states it as a cause of the target, as the trained reader reads it",
          "read_consequence": "states it as a consequence of the target, as the trained reader reads it",
          "read_cause_across": "with a near sentence, states it as a cause of the target, "
                               "as the trained reader reads it",
          "read_consequence_across": "with a near sentence, states it as a consequence of the target, as the trained "
                                     "reader reads it"}


@dataclass(frozen=True)
class Source:
    """A sentence a feature of a pair was read from: the feature, the topic sentence index, and what it is. Only a
    sentence that stands for the events (relevance, or a cue clause's similarity, of SOURCE_MIN or more) is named."""

    feature: str
    sentence: int
    role: str


def _gap(a: PartialDate | None, b: PartialDate | None) -> float:
    """Days from a to b at the precision both state (a missing year taken from the other date); NaN when
    either is unknown or neither states a year."""
    if a is None or b is None:
        return np.nan
    da, db = day_number(a, b.year), day_number(b, a.year)
    return float(db - da) if da is not None and db is not None else np.nan


def _order(a: PartialDate | None, b: PartialDate | None) -> float:
    """+1 when a is certainly before b, -1 when after, 0 when unknown or the same."""
    if a is None or b is None:
        return 0.0
    return -1.0 if is_after(a, b) else 1.0 if is_after(b, a) else 0.0


def _later(gap: float) -> float:
    """The days a `_gap` from the cause to the target puts the cause after it; NaN where it is not after."""
    return -gap if gap < 0 else np.nan


class PairReader:
    """Reads the pair features of one topic from its extraction and retrieval; `event_texts` and
    `event_vectors` are the graph's nodes, `cue_vectors` the cause and effect clauses of every cue (by cue);
    `reader`, the trained reader of statements (causalgraph.read.CausalReader) where the read statements are
    wanted."""

    def __init__(self, extraction: TopicExtraction, retrieval: Retrieval, event_texts: list[str],
                 event_vectors: np.ndarray, cue_vectors: dict[CueMatch, tuple[np.ndarray, np.ndarray]], reader=None):
        self.extraction, self.retrieval = extraction, retrieval
        self.sentences = extraction.sentences
        self.own_dates = [parse_date(t) for t in event_texts]
        self.event_vectors = event_vectors
        self.cue_vectors = cue_vectors
        self.best = [retrieval.best(e) for e in range(len(event_texts))]
        self.docs = np.array([s.doc for s in self.sentences], dtype=int)
        self.positions = np.array([s.position for s in self.sentences], dtype=int)
        self.doc_rows = [np.flatnonzero(self.docs == d) for d in np.unique(self.docs)]
        self.statements = StatementReader([s.text for s in self.sentences], self.docs.tolist(), event_texts,
                                          retrieval.relevance)
        self.reader = reader

    def mention_date(self, event: int) -> tuple[PartialDate, int] | None:
        """The date of the event's best dated mention among its TOP_K, with that sentence."""
        return next(((d, s) for s, _ in self.best[event][:TOP_K] if (d := self.sentences[s].date)), None)

    def read_pairs(self, pairs: list[tuple[int, int]]) -> list[tuple[np.ndarray, list[Source]]]:
        """`read` of every pair, the trained reader's statements (where there is a reader) read in one batch."""
        read = (ReadStatements([s.text for s in self.sentences], self.statements).read(pairs, self.reader)
                if self.reader is not None and self.sentences else [{} for _ in pairs])
        return [self.read(e, t, found) for (e, t), found in zip(pairs, read)]

    def read(self, e: int, t: int, statements: dict | None = None) -> tuple[np.ndarray, list[Source]]:
        """EVIDENCE_FEATURES of the pair (E, T) and the sentences they were read from (`statements`, what the
        trained reader read of the pair: evidence/reading.py)."""
        values = dict(zip(EVIDENCE_FEATURES, BLANK))
        sources: list[Source] = []
        self._dates(e, t, values, sources)
        if self.sentences:
            self._documents(e, t, values, sources)
            self._told(e, t, values, sources)
            self._cues(e, t, values, sources)
            self._statements(e, t, values, sources)
            for feature, found in (statements or {}).items():
                values[feature] = found.p
                sources += [Source(feature, s, f"{STATED[feature]} (p={found.p:.2f})") for s in found.sentences]
            if self._related(values):
                values["linked_days_before"] = _later(-values["event_date_gap"])
        return np.array([values[f] for f in EVIDENCE_FEATURES]), sources

    @staticmethod
    def _related(values: dict[str, float]) -> bool:
        """Whether a sentence relates the two events: tells both, or a cue or a statement joins them."""
        joined = [values["same_sentence"],
                  *(values[f"{p}_{d}"] for p in ("cue", "dependency_cue") for d in ("forward", "backward"))]
        return max(joined) >= SOURCE_MIN or any(values[f] > 0 for f in STATEMENT_FEATURES)

    def _documents(self, e, t, values, sources) -> None:
        rel_e, rel_t = self.retrieval.relevance[e], self.retrieval.relevance[t]
        docs, positions = self.docs, self.positions
        both = np.minimum(rel_e, rel_t)
        together = int(np.argmax(both))
        values.update(has_documents=1.0, same_sentence=float(both[together]),
                      cause_support=max((r for _, r in self.best[e]), default=0.0),
                      target_support=max((r for _, r in self.best[t]), default=0.0))
        if both[together] >= SOURCE_MIN:
            sources.append(Source("same_sentence", together, "tells both events"))
        best, where = 0.0, None
        n = len(rel_e)
        for offset in range(-WINDOW, WINDOW + 1):  # sentence pairs of one document at most WINDOW apart
            if offset == 0 or abs(offset) >= n:
                continue
            a, b = slice(max(0, -offset), n - max(0, offset)), slice(max(0, offset), n - max(0, -offset))
            near = np.where(docs[a] == docs[b], np.minimum(rel_e[a], rel_t[b]), -np.inf)
            i = int(np.argmax(near))
            if near[i] > best:
                best, where = float(near[i]), (a.start + i, b.start + i)
        values["nearby_sentences"] = best
        if where is not None and best >= SOURCE_MIN:
            sources += [Source("nearby_sentences", where[0], "tells the cause near the target"),
                        Source("nearby_sentences", where[1], "tells the target near the cause")]
        total = weight = 0.0
        for idx in self.doc_rows:
            se, st = idx[rel_e[idx].argmax()], idx[rel_t[idx].argmax()]
            w = min(rel_e[se], rel_t[st])
            total += w * np.sign(positions[st] - positions[se])
            weight += w
        values["cause_mentioned_first"] = total / weight if weight > 0 else 0.0
        dates = self.mention_date(e), self.mention_date(t)
        if dates[0] and dates[1]:
            values["dated_before"] = _order(dates[0][0], dates[1][0])
            values["dated_after"] = 1.0 if values["dated_before"] < 0 else np.nan

    def _told(self, e, t, values, sources) -> None:
        if not self.best[e] or not self.best[t]:
            return
        se, st = self.sentences[self.best[e][0][0]], self.sentences[self.best[t][0][0]]
        same = se.doc == st.doc
        values["told_same_document"] = float(same)
        values["told_order"] = float(st.position - se.position) if same else np.nan
        de, dt = iso_day(self.extraction.dates[se.doc]), iso_day(self.extraction.dates[st.doc])
        values["told_publication_gap"] = float(dt - de) if de is not None and dt is not None else np.nan
        sources += [Source("told_order", se.index, "where the cause is told"),
                    Source("told_order", st.index, "where the target is told")]

    def _dates(self, e, t, values, sources) -> None:
        dated = []  # each event's own text's date, else its best dated mention's
        for event in (e, t):
            if self.own_dates[event] is not None:
                dated.append(self.own_dates[event])
            elif mention := self.mention_date(event):
                dated.append(mention[0])
                role = f"dates the {'cause' if event == e else 'target'}"
                sources += [Source("event_date_gap", mention[1], role), Source("event_dated_after", mention[1], role)]
            else:
                dated.append(None)
        values["text_date_gap"] = _gap(self.own_dates[e], self.own_dates[t])
        values["event_date_gap"] = _gap(*dated)
        values["text_dated_after"] = _later(values["text_date_gap"])
        values["event_dated_after"] = _later(values["event_date_gap"])

    def _cues(self, e, t, values, sources) -> None:
        cues = list(self.cue_vectors)
        for source, prefix in (("surface", "cue"), ("dependency", "dependency_cue")):
            best: dict[str, tuple[float, CueMatch | None]] = {"forward": (0.0, None), "backward": (0.0, None)}
            for cue in (c for c in cues if c.source == source):
                sims = self.event_vectors[[e, t]] @ np.stack(self.cue_vectors[cue]).T  # (E, T) x (cause, effect)
                for direction, value in (("forward", min(sims[0, 0], sims[1, 1])),
                                         ("backward", min(sims[1, 0], sims[0, 1]))):
                    if value > best[direction][0]:
                        best[direction] = (float(value), cue)
            for direction, (value, found) in best.items():
                values[f"{prefix}_{direction}"] = value
                if found is not None and direction == "forward" and value >= SOURCE_MIN:
                    sources.append(Source(f"{prefix}_forward", found.sentence,
                                          f"'{found.cue}': the cause, then the target"))

    def _statements(self, e, t, values, sources) -> None:
        values.update(dict.fromkeys(STATEMENT_FEATURES, 0.0))
        for feature, (strength, sentences) in self.statements.read(e, t).items():
            values[feature] = strength
            sources += [Source(feature, s, STATED[feature]) for s in sentences]
