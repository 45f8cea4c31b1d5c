"""Typed records of AER data: documents, questions, topics, and the error that names where input is bad."""

from __future__ import annotations

import os
import re
import reprlib
import unicodedata
from dataclasses import dataclass, field

LABELS = ("A", "B", "C", "D")
NONE_TEXT = "none of the others are correct causes"
SPLITS = ("train", "dev", "sample", "test")
MAX_DOCUMENT_CHARS = 200_000  # longer documents are cut here (the longest real one has 80,000)
MAX_TOPIC_DIGITS = 18  # a topic id fits in 64 bits
_SHOWN = reprlib.Repr()
_SHOWN.maxlevel, _SHOWN.maxstring, _SHOWN.maxother = 3, 60, 60


class DataError(ValueError):
    """Invalid input data; the message names the file, the line or id, and the problem."""

    def __init__(self, path: str | os.PathLike, where: str | None, problem: str):
        self.path, self.where, self.problem = str(path), where, problem
        loc = f"{self.path}:{where}" if where else self.path
        super().__init__(f"{loc}: {problem}")

    def __reduce__(self):  # pickled as made, so that it keeps its type in another process
        return type(self), (self.path, self.where, self.problem)


@dataclass(frozen=True)
class Document:
    """One news document of a topic; `date` is its publication date (ISO yyyy-mm-dd) where the data states one."""

    doc_id: str
    title: str
    content: str
    source: str = ""
    date: str = ""


@dataclass(frozen=True)
class Question:
    """A target event, four candidate causes, and the gold labels when known."""

    qid: str
    topic_id: int
    target: str
    options: tuple[str, str, str, str]
    gold: frozenset[str] | None = None

    def __post_init__(self):  # every reader of the texts (graph, encoders, readers, outputs) gets one spelling
        object.__setattr__(self, "target", clean_text(self.target))
        object.__setattr__(self, "options", tuple(map(clean_text, self.options)))

    def option(self, label: str) -> str:
        return self.options[LABELS.index(label)]

    @property
    def none_label(self) -> str | None:
        """The label of the "None of the others are correct causes." option, if offered."""
        for label, text in zip(LABELS, self.options):
            if is_none_option(text):
                return label
        return None


@dataclass
class Topic:
    """All questions and documents that share a topic id; `aer`: the topic comes from an AER data folder, so it was
    built the benchmark's way and its construction priors hold (a user's own topic was not)."""

    topic_id: int
    questions: list[Question] = field(default_factory=list)
    documents: list[Document] = field(default_factory=list)
    title: str = ""
    aer: bool = False


def is_none_option(text: str) -> bool:
    return normalize_text(text) == NONE_TEXT


# the fullwidth and halfwidth forms (and the ideographic space): letters, digits and signs that NFKC makes plain
_WIDE = re.compile("[\u3000\uff01-\uffee]")


def clean_text(text: str) -> str:
    """An event's text as it is shown and read: composed (NFC), fullwidth and halfwidth forms as their plain
    characters, format characters dropped (zero-width ones U+200B-U+200D, the word joiner U+2060, the byte-order
    mark U+FEFF, bidi controls, soft hyphens), whitespace squeezed to single spaces. Other compatibility forms (the
    ² of m²) are kept: normalize_text, which names the event, folds them too."""
    text = unicodedata.normalize("NFC", _WIDE.sub(lambda m: unicodedata.normalize("NFKC", m.group()), text))
    return re.sub(r"\s+", " ", "".join(c for c in text if unicodedata.category(c) != "Cf")).strip()


def normalize_text(text: str) -> str:
    """What two texts that name one event share: clean_text in NFKC, lower-cased, quotes straightened, trailing
    punctuation dropped."""
    text = unicodedata.normalize("NFKC", clean_text(text)).lower()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    return text.rstrip(" .;!")


def parse_labels(answer: str, path: str | os.PathLike, where: str, allow_empty: bool = False) -> frozenset[str]:
    """Parse "A,C" into {"A", "C"}; raise DataError on a label outside A-D, and on an empty answer unless
    `allow_empty` (a prediction may be empty; it scores 0)."""
    if not isinstance(answer, str):
        raise DataError(path, where, f"answer must be a string such as 'A,C', got {shown(answer)}")
    labels = [part.strip() for part in answer.split(",") if part.strip()]
    bad = [label for label in labels if label.upper() not in LABELS]
    if bad:
        raise DataError(path, where, f"label {shown(bad[0])} is outside A-D in answer {shown(answer)}")
    if not labels and not allow_empty:
        raise DataError(path, where, "empty answer")
    return frozenset(label.upper() for label in labels)


# What a terminal or a log line must not get raw from the data: control characters (escape sequences begin with
# one), format characters (bidi overrides, zero-width ones), line and paragraph separators, and code points that
# are no characters. Only characters outside printable ASCII are looked at.
_NOT_ASCII = re.compile(r"[^ -~]")
_UNSAFE_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def escaped(text: str, keep: str = "") -> str:
    r"""`text` with every character a terminal could act on (ESC, bidi overrides, line breaks, ...) written as
    its Python escape (, ‮), except the characters of `keep` (say "
")."""

    def escape(match: re.Match) -> str:
        c = match.group()
        return c if c in keep or unicodedata.category(c) not in _UNSAFE_CATEGORIES else repr(c)[1:-1]

    return _NOT_ASCII.sub(escape, text)


def shown(value) -> str:
    """A bad input value as an error message shows it: its repr, cut short (deep or long values included)."""
    return _SHOWN.repr(value)


def check_text(text: str, path: str | os.PathLike, where: str, what: str) -> str:
    """`text` itself; DataError when it holds a lone surrogate (a JSON escape such as \\ud800 that is no
    character), which no output file could hold."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as err:
        raise DataError(path, where, f"{what} holds {text[err.start]!r}, a lone surrogate, not a character") from None
    return text


def parse_id(value, path: str | os.PathLike, where: str) -> str:
    """A question id: a non-empty string without NUL or lone surrogates, or an integer (read as its decimal
    string)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value)
    if not isinstance(value, str) or not value.strip():
        raise DataError(path, where, f"id must be a non-empty string, got {shown(value)}")
    if "\0" in value:
        raise DataError(path, where, f"id {shown(value)} holds a NUL character")
    return check_text(value, path, where, "id")


def parse_topic_id(value, path: str | os.PathLike, where: str) -> int:
    """A topic id: a JSON integer of 0 or more, or a string of ASCII digits, of at most MAX_TOPIC_DIGITS digits."""
    if isinstance(value, int) and not isinstance(value, bool):
        number = value if abs(value) < 10**MAX_TOPIC_DIGITS else None
    elif isinstance(value, str) and re.fullmatch(r"\s*[0-9]+\s*", value):
        digits = value.strip().lstrip("0")
        number = int(digits or "0") if len(digits) <= MAX_TOPIC_DIGITS else None
    else:
        raise DataError(path, where, f"topic_id must be an integer, got {shown(value)}")
    if number is None or number < 0:
        raise DataError(path, where, f"topic_id must be a whole number (0 or more) of at most {MAX_TOPIC_DIGITS} "
                                     f"digits, got {shown(value)}")
    return number
