"""Another system's output as a reader: the task's submission format with hard answers
(`{"id": ..., "answer": "A,C"}`) or per-option probabilities (`{"id": ..., "probs": {"A": 0.91, ...}}`)."""

from __future__ import annotations

import argparse
import logging
import math
import os
import unicodedata
from pathlib import Path
from typing import Iterable, NamedTuple

from ..data import LABELS, DataError, Question, parse_labels, read_jsonl
from ..data.records import parse_id, shown
from .base import Judgement, ReaderJudgements

log = logging.getLogger(__name__)
MOST_UNKNOWN = 3  # unknown ids named in the warning


class ReaderSpec(NamedTuple):
    """A reader's name and its file; it stands for the file where a path is expected."""

    name: str
    path: Path

    def __fspath__(self) -> str:
        return os.fspath(self.path)


def reader_name(text: str) -> str:
    """`text` (a path as given, say) as a reader's name that every output can hold: bytes of a file name that
    are not UTF-8 and control characters are written as escapes."""
    try:
        raw = os.fsencode(text)
    except UnicodeEncodeError:  # a name that no file name of this locale holds
        raw = text.encode("utf-8", "surrogatepass")
    name = raw.decode("utf-8", "backslashreplace")
    return "".join(c.encode("unicode_escape").decode() if unicodedata.category(c) == "Cc" else c for c in name)


def parse_reader_spec(text: str) -> ReaderSpec:
    """`FILE` (the reader is named by the path as given) or `NAME=FILE`: an existing file is read as FILE even
    when its name holds "="."""
    name, sep, file = text.partition("=")
    if not sep or Path(text).exists():
        name, file = text, text
    if not name.strip() or not file:
        raise argparse.ArgumentTypeError(f"expected FILE or NAME=FILE, got {text!r}")
    return ReaderSpec(reader_name(name), Path(file))


def spec_name(file: str | os.PathLike) -> str:
    """The name of the reader of a score file: a ReaderSpec's name, or the path as given."""
    return file.name if isinstance(file, ReaderSpec) else reader_name(os.fspath(file))


def load_reader_files(files: Iterable[str | os.PathLike], questions: dict[str, Question], weight: int = 100,
                      answered: Iterable[str] | None = None) -> list[ReaderJudgements]:
    """The readers of some files (paths or ReaderSpecs) by load_reader_scores (`answered`: the questions being
    answered, which its warning counts); DataError when two get one name, or two are one file (however spelt,
    links included: one reader given twice would count twice)."""
    files = list(files)
    seen: dict[tuple[int, int], str | os.PathLike] = {}
    for file in files:
        try:
            found = os.stat(file)
        except OSError:
            continue  # load_reader_scores names it
        first = seen.setdefault((found.st_dev, found.st_ino), file)
        if first is not file:
            raise DataError("--reader-scores", None, f"{spec_name(first)} and {spec_name(file)} are one file "
                                                     f"({Path(first).resolve()}); give each reader once")
    answered = None if answered is None else set(answered)
    readers = [load_reader_scores(file, questions, weight, answered=answered) for file in files]
    names: dict[str, ReaderJudgements] = {}
    for reader in readers:
        if reader.reader in names:
            raise DataError("--reader-scores", None,
                            f"two reader files are named {reader.reader!r}; name them apart as NAME=FILE")
        names[reader.reader] = reader
    return readers


def load_reader_scores(path: str | os.PathLike, questions: dict[str, Question], weight: int = 100,
                       name: str | None = None, answered: Iterable[str] | None = None) -> ReaderJudgements:
    """A reader from a file of answers or probabilities, named `name` (default: a ReaderSpec's name, or the
    path as given). DataError (file and line) for a label outside A-D, a probability outside [0, 1], a line
    with neither field or both, or an id given twice, and (the file) when it is empty or no id is one of `questions`;
    ids that are not get a one-line warning with their count and the first few (one file may cover other topics too).
    The file is streamed and only the lines of `questions` are kept, so memory grows with those, not with the
    file: a line of another id is checked and dropped, and its id is not remembered (an id given twice is
    noticed among `questions`' only). Questions the file leaves out (or give it no probability) get no
    judgement, with one warning that counts those of `answered` (default: all)."""
    if name is None:
        name = spec_name(path)
    path = Path(path)
    judgements: dict[tuple[str, str], Judgement] = {}
    seen: dict[str, int] = {}
    unknown = 0  # the lines of no question answered
    first: list[str] = []  # the first few of their ids
    for lineno, obj in read_jsonl(path):
        where = f"line {lineno}"
        if "id" not in obj:
            raise DataError(path, where, "missing field 'id'")
        qid = parse_id(obj["id"], path, where)
        if qid in seen:
            raise DataError(path, where, f"duplicate id {shown(qid)} (first on line {seen[qid]})")
        read = _read_line(obj, path, where)
        if qid not in questions:
            unknown += 1
            if len(first) < MOST_UNKNOWN:
                first.append(qid)
            continue
        seen[qid] = lineno
        if isinstance(read, dict):
            judgements.update({(qid, label): Judgement(probability=p) for label, p in read.items()})
        else:
            judgements.update({(qid, label): Judgement(verdict=label in read) for label in LABELS})
    if not seen and not unknown:
        raise DataError(path, None, "holds no judgement (an empty file); give one line per question")
    if unknown:
        ids = ", ".join(map(shown, first)) + (", ..." if unknown > MOST_UNKNOWN else "")
        if not judgements:
            raise DataError(path, None, f"no id matches a question answered ({unknown} ids: {ids})")
        log.warning("%s: %d id%s match no question answered (%s); not read", path, unknown, "s" * (unknown != 1), ids)
    answered = set(questions) if answered is None else set(answered)
    missing = len(answered - {qid for qid, _ in judgements})
    if missing:
        log.warning("%s: no judgement for %d of the %d question%s answered; %s no reader facts", path, missing,
                    len(answered), "s" * (len(answered) != 1), "it gets" if missing == 1 else "they get")
    return ReaderJudgements(name, judgements, weight)


def _read_line(obj: dict, path: Path, where: str) -> dict[str, float] | frozenset[str]:
    """A reader line's probabilities by label, or its answer's labels; DataError (file and line) as
    load_reader_scores says."""
    if "probs" in obj and "answer" in obj:
        raise DataError(path, where, "both 'answer' and 'probs'; give one (a reader of both is two readers, "
                                     "one file each)")
    if "answer" in obj:
        return parse_labels(obj["answer"], path, where, allow_empty=True)
    if "probs" not in obj:
        raise DataError(path, where, "expected an 'answer' or a 'probs' field")
    probs = obj["probs"]
    if not isinstance(probs, dict):
        raise DataError(path, where, f"probs must be an object such as {{\"A\": 0.9}}, got {shown(probs)}")
    for label, p in probs.items():
        if label not in LABELS:
            raise DataError(path, where, f"label {shown(label)} is outside A-D in probs")
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not (0 <= p <= 1) or math.isnan(p):
            raise DataError(path, where, f"probability of {label} must be a number in [0, 1], got {shown(p)}")
    return {label: float(p) for label, p in probs.items()}
