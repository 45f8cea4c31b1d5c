"""Loaders of AER data folders (both layouts), validating every row; errors name the file and line."""

from __future__ import annotations

import codecs
import datetime
import json
import logging
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Iterable, Iterator

from .records import (LABELS, MAX_DOCUMENT_CHARS, SPLITS, DataError, Document, Question, Topic, check_text,
                      is_none_option, normalize_text, parse_id, parse_labels, parse_topic_id, shown)

log = logging.getLogger(__name__)
ISO_DATE = re.compile(r"(?:19|20)\d\d-\d\d-\d\d")
DATE_TIME = re.compile(r"(\d{4}-\d\d-\d\d)(?:[Tt ]\d\d?:\d\d(?::\d\d(?:\.\d*)?)?\s*(?:[Zz]|[-+]\d\d?(?::?\d\d)?)?)?")


def date_problem(text: str) -> str | None:
    """Why `text` is not a real calendar day of the years 1900-2099 written yyyy-mm-dd (None when it is one)."""
    if not re.fullmatch(r"\d{4}-\d\d-\d\d", text):
        return "is not written yyyy-mm-dd"
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return "is no such day"
    if not ISO_DATE.fullmatch(text):
        return "lies outside the years 1900-2099 that the timeline reads"
    return None


def day_of(value) -> str:
    """A document's date as text: a date-time (`2024-03-26T09:30:00Z`, as YAML or a script writes one) as its day."""
    text = _text(value)
    written = DATE_TIME.fullmatch(text)
    return written[1] if written else text


def _warn(path: str | os.PathLike, where: str, problem: str) -> None:
    log.warning("%s:%s: %s", path, where, problem)


MAX_STREAM_BYTES = 1 << 30  # read from a pipe, whose size is not known beforehand


def _open_input(path: str | os.PathLike) -> tuple[BinaryIO, int | None]:
    """An input file opened for reading, and how many bytes may be read from it (None: a regular file, whole);
    DataError naming it for a device (/dev/zero never ends) or a socket."""
    handle = open(path, "rb")
    mode = os.fstat(handle.fileno()).st_mode
    if stat.S_ISREG(mode) or stat.S_ISFIFO(mode):
        return handle, None if stat.S_ISREG(mode) else MAX_STREAM_BYTES
    handle.close()
    kind = "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode) else "not a file"
    raise DataError(path, None, f"is {kind}, not a file to read")


def read_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of an input file, read in time bounded by its size: a regular file whole, a pipe up to
    MAX_STREAM_BYTES; DataError naming it for a device, a socket, or a pipe that sends more."""
    handle, limit = _open_input(path)
    with handle:
        data = handle.read() if limit is None else handle.read(limit + 1)
    if limit is not None and len(data) > limit:
        raise DataError(path, None, f"more than {MAX_STREAM_BYTES:,} bytes from a pipe; give a file")
    return data


def regular_file(path: str | os.PathLike) -> bool:
    """Whether `path` is a regular file (False when nothing is there); DataError naming it when something else is
    there: a link to nothing, a folder, a FIFO (which would block a read), a device or a socket."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        if os.path.lexists(path):
            raise DataError(path, None, "is a link to nothing (dangling symlink)") from None
        return False
    except OSError as err:
        raise DataError(path, None, f"cannot be read ({err.strerror})") from None
    if stat.S_ISREG(mode):
        return True
    kind = ("a folder" if stat.S_ISDIR(mode) else "a FIFO" if stat.S_ISFIFO(mode) else
            "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a socket" if stat.S_ISSOCK(mode)
            else "not a file")
    raise DataError(path, None, f"is {kind}, not a regular file to read")


def read_text(path: str | os.PathLike) -> str:
    """An input file as UTF-8 text (a leading byte-order mark dropped), read as read_bytes reads it; DataError
    naming the file and line of the first byte that is not UTF-8."""
    return _read_text(Path(path))


def _read_text(path: Path) -> str:
    data = read_bytes(path)
    try:
        return data.decode("utf-8-sig")  # a leading byte-order mark is accepted and dropped
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        bad = data[err.start : err.start + 1]
        raise DataError(path, f"line {line}", f"not valid UTF-8 (byte {bad!r} at offset {err.start})") from None


def _line(text: str, offset: int) -> str:
    lineno = text.count("\n", 0, offset) + 1
    return f"line {lineno}"


def _deepest(text: str) -> int:
    """The offset where the JSON text's brackets nest deepest (strings skipped)."""
    depth, deepest, where = 0, 0, 0
    for token in re.finditer(r'"(?:[^"\\]|\\.)*"|[\[{]|[\]}]', text):
        if token.group() in "[{":
            depth += 1
            if depth > deepest:
                deepest, where = depth, token.start()
        elif token.group() in "]}":
            depth -= 1
    return where


def _parse_json(text: str, path: Path, lineno: int | None = None):
    """The JSON value of `text` (a whole file, or its line `lineno`); DataError naming the line of bad JSON,
    of nesting deeper than the parser goes, or of an integer longer than Python reads."""
    where = (lambda offset: f"line {lineno}") if lineno else (lambda offset: _line(text, offset))
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(path, where(err.pos), f"bad JSON ({err.msg})") from None
    except RecursionError:
        raise DataError(path, where(_deepest(text)), "bad JSON (nested too deeply)") from None
    except ValueError as err:  # an integer of more digits than int() converts
        long_number = re.search(r"[0-9]{1000,}", text)
        raise DataError(path, where(long_number.start() if long_number else 0), f"bad JSON ({err})") from None


def read_jsonl(path: str | os.PathLike) -> Iterator[tuple[int, dict]]:
    """Yield (line number, object) for every non-blank line, streamed (memory bounded by the longest line), with
    the checks and bounds of read_text; DataError on bad JSON or a non-object. Lines end at "\n" only: JSON
    strings may hold other line separators such as U+2028."""
    path = Path(path)
    handle, limit = _open_input(path)
    with handle:
        lineno = offset = 0
        while raw := handle.readline(-1 if limit is None else limit + 1 - offset):
            lineno, start, offset = lineno + 1, offset, offset + len(raw)
            if limit is not None and offset > limit:
                raise DataError(path, None, f"more than {MAX_STREAM_BYTES:,} bytes from a pipe; give a file")
            if lineno == 1 and raw.startswith(codecs.BOM_UTF8):  # a leading byte-order mark is accepted and dropped
                raw, start = raw[len(codecs.BOM_UTF8):], start + len(codecs.BOM_UTF8)
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError as err:
                bad = raw[err.start : err.start + 1]
                raise DataError(path, f"line {lineno}",
                                f"not valid UTF-8 (byte {bad!r} at offset {start + err.start})") from None
            if not line.strip():
                continue
            obj = _parse_json(line, path, lineno)
            if not isinstance(obj, dict):
                raise DataError(path, f"line {lineno}", "expected a JSON object")
            yield lineno, obj


QUESTION_KEYS = ("id", "topic_id", "target_event", *(f"option_{l}" for l in LABELS), "golden_answer")


def unknown_fields(obj: dict) -> list[str]:
    """The keys of a question object that no question has (a misspelt `golden_answers`, an `option_E`), sorted."""
    return sorted(set(map(str, obj)) - set(QUESTION_KEYS))


def parse_question(obj: dict, path: str | os.PathLike, where: str) -> Question:
    """One question object (a questions.jsonl line); gold labels are read from `golden_answer` when present.
    DataError for an event text that is empty, or has no letter or digit (zero-width or punctuation only), and
    for a golden_answer that lists None of the others beside a cause (None is the answer alone). A
    question that offers None more than once, or whose options all repeat its target, is kept with a warning
    that names it (the latter is answered on its own, with no label)."""
    missing = [k for k in QUESTION_KEYS[:-1] if k not in obj]
    if missing:
        raise DataError(path, where, f"missing field {missing[0]!r}")
    qid = parse_id(obj["id"], path, where)
    topic_id = parse_topic_id(obj["topic_id"], path, where)
    texts = [obj[name] for name in QUESTION_KEYS[2:-1]]
    for name, text in zip(QUESTION_KEYS[2:-1], texts):
        if not isinstance(text, str) or not text.strip():
            raise DataError(path, where, f"question {shown(qid)} has an empty or non-string event text ({name})")
        check_text(text, path, where, f"an event text of question {shown(qid)}")
        if not any(c.isalnum() for c in text):
            raise DataError(path, where, f"{name} of question {shown(qid)} has no letter or digit: {shown(text)}")
    nones = [f"option_{l}" for l, text in zip(LABELS, texts[1:]) if is_none_option(text)]
    if len(nones) > 1:
        _warn(path, where, f"question {shown(qid)} offers None of the others {len(nones)} times ({', '.join(nones)}); "
                           "it is answered as written; offer it once")
    if len({normalize_text(t) for t in texts}) == 1:
        _warn(path, where, f"question {shown(qid)} offers its target as every option; it has no answer (an event "
                           "never causes itself) and is answered on its own, with no label")
    gold = None if obj.get("golden_answer") is None else parse_labels(obj["golden_answer"], path, where)
    none = [label for label, text in zip(LABELS, texts[1:]) if is_none_option(text) and label in (gold or ())]
    if none and len(gold or ()) > len(none):
        raise DataError(path, where, f"golden_answer {shown(obj['golden_answer'])} of question {shown(qid)} lists None "
                                     f"of the others ({none[0]}) beside a cause")
    return Question(qid=qid, topic_id=topic_id, target=texts[0], options=tuple(texts[1:]), gold=gold)


def load_questions(path: str | os.PathLike) -> list[Question]:
    """Read a questions.jsonl file; gold labels are read from `golden_answer` when present. Fields no question
    has are ignored, with one warning each that names its lines."""
    questions: list[Question] = []
    seen: dict[str, int] = {}  # question id -> its line
    unknown: dict[str, list[int]] = {}  # field -> the lines that hold it
    for lineno, obj in read_jsonl(path):
        question = parse_question(obj, path, f"line {lineno}")
        if question.qid in seen:
            raise DataError(path, f"line {lineno}",
                            f"duplicate question id {shown(question.qid)} (first on line {seen[question.qid]})")
        seen[question.qid] = lineno
        for name in unknown_fields(obj):
            unknown.setdefault(name, []).append(lineno)
        questions.append(question)
    for name, lines in unknown.items():
        _warn(path, f"line{'s' * (len(lines) > 1)} {id_ranges(lines, MOST_RUNS)}",
              f"unknown field {shown(name)} ignored (a question has {', '.join(QUESTION_KEYS)})")
    return questions


def load_answers(path: str | os.PathLike, predictions: bool = False) -> dict[str, frozenset[str]]:
    """Read gold or predicted answers: a questions.jsonl with `golden_answer` or `{"id", "answer"}` lines.
    An empty predicted answer is read as the empty set (it scores 0), with a warning."""
    answers = {}
    for lineno, obj in read_jsonl(path):
        where = f"line {lineno}"
        if "id" not in obj:
            raise DataError(path, where, "missing field 'id'")
        key = "answer" if "answer" in obj else "golden_answer" if "golden_answer" in obj else None
        if key is None:
            raise DataError(path, where, "missing field 'answer' (or 'golden_answer')")
        qid = parse_id(obj["id"], path, where)
        if qid in answers:
            raise DataError(path, where, f"duplicate question id {shown(qid)}")
        if key == "golden_answer" and "target_event" in obj:  # a question: its gold checked against its options
            parse_question(obj, path, where)
        answers[qid] = parse_labels(obj[key], path, where, allow_empty=predictions)
        if not answers[qid]:
            _warn(path, where, f"empty answer for {shown(qid)}; it scores 0")
    return answers


def _text(value) -> str:
    """A field of a document as text: a string itself, anything else as its (short) repr."""
    return value if isinstance(value, str) else shown(value)


def load_documents(path: str | os.PathLike, max_document_chars: int = MAX_DOCUMENT_CHARS
                   ) -> dict[int, tuple[str, list[Document]]]:
    """Read a docs.json file: {topic_id: (topic title, documents)}. Documents without text are skipped and
    documents over `max_document_chars` are cut, each with a warning."""
    path = Path(path)
    return parse_documents(_parse_json(_read_text(path), path), path, max_document_chars)


def title_of(entry: dict, path: str | os.PathLike, where: str) -> str:
    """A topic's title (`topic`): text as written, a number as its digits; DataError naming it when null or not a
    scalar."""
    title = entry.get("topic", "")
    if title is None or isinstance(title, (bool, list, dict)):
        raise DataError(path, where, f"topic (its title) must be a text, got {shown(title)}; write one or leave it out")
    return str(title)


ENTRY_KEYS = ("topic_id", "topic", "docs")  # of a docs.json entry
# of a document: those read (`date`, as a topic file names it, where there is no parsed_date), and the AER
# docs.json's link, imageUrl and section, which are not
DOCUMENT_KEYS = ("id", "title", "content", "snippet", "source", "parsed_date", "date", "link", "imageUrl", "section")


def parse_documents(data, path: Path, max_document_chars: int = MAX_DOCUMENT_CHARS,
                    names: list[str] | None = None) -> dict[int, tuple[str, list[Document]]]:
    """The documents of a parsed docs.json (a list of {topic_id, topic, docs}) by topic (see load_documents);
    `names` says where each entry is in messages (default "topic entry 1", ...). Documents are numbered from 1.
    Keys of no entry or document (ENTRY_KEYS, DOCUMENT_KEYS) are ignored with one warning each, naming where."""
    if not isinstance(data, list):
        raise DataError(path, None, f"expected a JSON list of topics, got {type(data).__name__}")
    topics: dict[int, tuple[str, list[Document]]] = {}
    unknown: dict[tuple[str, str], list[str]] = {}  # (what has it, key) -> where
    for i, entry in enumerate(data):
        where = names[i] if names else f"topic entry {i + 1}"
        if not isinstance(entry, dict) or "topic_id" not in entry or not isinstance(entry.get("docs"), list):
            raise DataError(path, where, "expected an object with 'topic_id' and a 'docs' list")
        topic_id = parse_topic_id(entry["topic_id"], path, where)
        for key in sorted(set(map(str, entry)) - set(ENTRY_KEYS)):
            unknown.setdefault(("topic entry", key), []).append(where)
        docs = []
        for j, doc in enumerate(entry["docs"], start=1):
            at = (f"{where}, document {j}" if getattr(doc, "line", None) is None
                  else f"line {doc.line}, {where}, document {j}")
            text = (doc.get("content") or doc.get("snippet") or "") if isinstance(doc, dict) else None
            if not isinstance(text, str):
                raise DataError(path, at, "expected an object with a string 'content'")
            for key in sorted(set(map(str, doc)) - set(DOCUMENT_KEYS)):
                unknown.setdefault(("document", key), []).append(at)
            doc_id = _text(doc.get("id", f"{topic_id}-{j - 1}"))
            doc_where = f"{at} (id {shown(doc_id)})"
            for value in (doc_id, text, doc.get("title"), doc.get("source")):
                if isinstance(value, str):
                    check_text(value, path, doc_where, "a field")
            if not text.strip():
                _warn(path, doc_where, "empty document (no content or snippet); skipped")
                continue
            if len(text) > max_document_chars:
                _warn(path, doc_where, f"{len(text):,} characters; keeping the first {max_document_chars:,} "
                                       "(--max-document-chars raises the limit)")
                text = text[:max_document_chars]
            date = day_of(doc.get("parsed_date") or doc.get("date") or "")
            if date and (problem := date_problem(date)):
                _warn(path, doc_where, f"date {shown(date)} {problem}; ignored")
                date = ""
            docs.append(Document(doc_id=doc_id, title=_text(doc.get("title") or ""), content=text,
                                 source=_text(doc.get("source") or ""), date=date))
        title, previous = topics.get(topic_id, (title_of(entry, path, where), []))
        topics[topic_id] = (title, previous + docs)
    for (what, key), places in unknown.items():
        more = f" (and {len(places) - 1} more)" if len(places) > 1 else ""
        _warn(path, places[0] + more, f"unknown field {shown(key)} ignored (a {what} has "
                                      f"{', '.join(ENTRY_KEYS if what == 'topic entry' else DOCUMENT_KEYS)})")
    return topics


def split_folders(root: str | os.PathLike, split: str) -> list[Path]:
    """Where a split may lie, in the order looked at: this layout's `root/train`, or the public repository's
    `root/train_data`."""
    return [Path(root) / split, Path(root) / f"{split}_data"]


def data_files(root: str | os.PathLike) -> list[Path]:
    """Every file a run may read from a data folder: each split's questions.jsonl and docs.json, in either layout."""
    return [folder / name for split in SPLITS for folder in split_folders(root, split)
            for name in ("questions.jsonl", "docs.json")]


def _questions_folder(root: str | os.PathLike, split: str) -> Path | None:
    return next((f for f in split_folders(root, split) if regular_file(f / "questions.jsonl")), None)


def check_one_layout(root: Path) -> None:
    """DataError naming a folder of each layout when `root` holds splits in both (sample/ and test_data/, say):
    which of them a split is read from would depend on the order looked in."""
    held: list[list[Path]] = [[], []]
    for split in SPLITS:
        for layout, folder in enumerate(split_folders(root, split)):
            if any(os.path.lexists(folder / name) for name in ("questions.jsonl", "docs.json")):
                held[layout].append(folder)
    if held[0] and held[1]:
        raise DataError(root, None, f"mixes the two layouts ({held[0][0].name}/ and {held[1][0].name}/); keep one: "
                                    f"{', '.join(s + '/' for s in SPLITS)} or "
                                    f"{', '.join(s + '_data/' for s in SPLITS)}")


def split_dir(root: str | os.PathLike, split: str) -> Path:
    """The folder of a split in either layout (see split_folders)."""
    root = Path(root)
    if not root.is_dir():
        raise DataError(root, None, "no such data folder")
    check_one_layout(root)
    folder = _questions_folder(root, split)
    if folder is None:
        names = " or ".join(f"{f.name}/questions.jsonl" for f in split_folders(root, split))
        raise DataError(root, None, f"no {names} here")
    return folder


def all_documents(root: str | os.PathLike, max_document_chars: int = MAX_DOCUMENT_CHARS
                  ) -> dict[int, tuple[str, list[Document]]]:
    """Documents of every split under root, by topic (train/dev questions reuse sample's documents)."""
    found: dict[int, tuple[str, list[Document]]] = {}
    for path in data_files(root):
        if path.name == "docs.json" and regular_file(path):
            for tid, (title, docs) in load_documents(path, max_document_chars).items():
                found.setdefault(tid, (title, docs))
    return found


def group_topics(questions: Iterable[Question], documents: dict[int, tuple[str, list[Document]]],
                 aer: bool) -> list[Topic]:
    """Group questions by topic (sorted by id) and attach each topic's documents; `aer`: they come from an AER
    data folder."""
    topics: dict[int, Topic] = {}
    for q in questions:
        if q.topic_id not in topics:
            title, docs = documents.get(q.topic_id, ("", []))
            topics[q.topic_id] = Topic(q.topic_id, documents=list(docs), title=title, aer=aer)
        topics[q.topic_id].questions.append(q)
    return [topics[t] for t in sorted(topics)]


MOST_RUNS = 20  # of ids that a message names; the others are counted


def id_ranges(ids: Iterable[int], most: int | None = None) -> str:
    """Sorted ids with runs shortened to ranges: "1-3, 7"; with `most`, the first `most` runs and a count of
    the other ids ("1, 3, 5 and 4,997 more"), so that a message stays short however many ids it names."""
    runs: list[list[int]] = []
    for i in sorted(set(ids)):
        if runs and i == runs[-1][1] + 1:
            runs[-1][1] = i
        else:
            runs.append([i, i])
    shown = ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in runs[:most])
    rest = sum(b - a + 1 for a, b in runs[most:]) if most is not None else 0
    return f"{shown} and {rest:,} more" if rest else shown


def warn_without_documents(topics: Iterable[Topic]) -> None:
    """One warning that names the topics without documents: they are answered from their question texts."""
    missing = [t.topic_id for t in topics if not t.documents]
    if missing:
        which = f"topic {missing[0]} has" if len(missing) == 1 else f"topics {id_ranges(missing, MOST_RUNS)} have"
        log.warning("%s no documents; answered from the question texts only", which)


def load_split(root: str | os.PathLike, split: str, topics: Iterable[int] | TopicIds | None = None,
               max_document_chars: int = MAX_DOCUMENT_CHARS) -> list[Topic]:
    """Load one split of a data folder as topics; `topics` (ids, or TopicIds) restricts to those ids, each of
    which must be in the split; documents are cut at `max_document_chars`, with a warning."""
    if split not in SPLITS:
        raise DataError(root, None, f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    path = split_dir(root, split) / "questions.jsonl"
    questions = load_questions(path)
    if not questions:
        raise DataError(path, None, "no questions in the file")
    return _only(group_topics(questions, all_documents(root, max_document_chars), aer=True), topics,
                 split_dir(root, split), f" in split {split}")


def _only(found: list[Topic], topics: Iterable[int] | TopicIds | None, where: Path, what: str) -> list[Topic]:
    """The topics of `topics` (ids, or TopicIds; None: all), each of which must be found; DataError naming the
    first unknown id."""
    if topics is None:
        return found
    wanted = topics if isinstance(topics, TopicIds) else set(topics)
    present = {t.topic_id for t in found}
    unknown = wanted.first_missing(present) if isinstance(wanted, TopicIds) else min(wanted - present, default=None)
    if unknown is not None:
        raise DataError(where, None, f"unknown topic {unknown}{what} (its topics: {id_ranges(present, MOST_RUNS)})")
    return [t for t in found if t.topic_id in wanted]


@dataclass(frozen=True)
class TopicIds:
    """Topic ids as the ranges that name them (first, last), never expanded: `--topics 1-999999999999` costs
    no more than `--topics 1-2`."""

    ranges: tuple[tuple[int, int], ...]

    def __str__(self) -> str:
        return ",".join(str(a) if a == b else f"{a}-{b}" for a, b in self.ranges)

    def __contains__(self, topic_id: object) -> bool:
        return isinstance(topic_id, int) and any(first <= topic_id <= last for first, last in self.ranges)

    def first_missing(self, present: set[int]) -> int | None:
        """The smallest id of the ranges that is not in `present` (None when every one is), in time linear in
        the size of `present` and the number of ranges."""
        missing = []
        for first, last in self.ranges:
            topic_id = first
            while topic_id <= last and topic_id in present:
                topic_id += 1
            if topic_id <= last:
                missing.append(topic_id)
        return min(missing, default=None)


TOPIC_FILE_SUFFIXES = (".json", ".yaml", ".yml")
TOPIC_KEYS = ("topic_id", "topic", "questions", "documents")  # of a topic in a topic file


def is_topic_folder(path: str | os.PathLike) -> bool:
    """Whether `path` is a folder that holds questions.jsonl itself (a user's own topics), not split folders;
    DataError when its questions.jsonl is there but no regular file."""
    return Path(path).is_dir() and regular_file(Path(path) / "questions.jsonl")


def topic_entries(path: str | os.PathLike) -> list[Path] | None:
    """The topics of a folder of topics, in name order: its topic folders (questions.jsonl, and docs.json) and
    topic files (.json, .yaml); None when `path` is none (a topic folder itself, an AER data folder with its
    split folders, or a folder that holds no topic)."""
    path = Path(path)
    if not path.is_dir() or is_topic_folder(path) or any(
            os.path.lexists(folder / name) for split in SPLITS for folder in split_folders(path, split)
            for name in ("questions.jsonl", "docs.json")):
        return None
    entries = sorted(p for p in path.iterdir() if not p.name.startswith(".") and (
        (p.is_dir() and os.path.lexists(p / "questions.jsonl")) or (p.suffix in TOPIC_FILE_SUFFIXES and p.is_file())))
    return entries or None


def load_topic_entries(entries: list[Path], max_document_chars: int = MAX_DOCUMENT_CHARS) -> list[Topic]:
    """The topics of a folder of topics (topic_entries): a topic file's topics left without an id are numbered
    after those read before it, and its questions left without one are named after the file (`stem-q1`), so
    ids left out never collide; DataError naming both places for a topic id or question id given twice."""
    topics: list[Topic] = []
    where: dict[object, Path] = {}
    for entry in entries:
        if entry.is_dir():
            found = _topic_folder(entry, max_document_chars)
        else:
            first = max((t.topic_id for t in topics), default=0) + 1
            found = load_topic_file(entry, max_document_chars, first, f"{entry.stem}-")
        for topic in found:
            for key, name in [(("topic", topic.topic_id), f"topic_id {topic.topic_id}"),
                              *((("question", q.qid), f"question id {shown(q.qid)}") for q in topic.questions)]:
                if key in where:
                    raise DataError(entry, None, f"{name} is also in {where[key]}; give the topics apart ids")
                where[key] = entry
        topics += found
    return topics


MAX_YAML_DEPTH = 100  # nesting levels of a YAML topic file (a topic file needs 5)


def _yaml_loader():
    """PyYAML's safe loader, made for input that a user or a script wrote: every scalar but null stays the text
    written (ids `010`, `1:20` and `0x1F`, dates, `yes`), and the schema converts what it reads; aliases are
    refused (a few lines of them expand to gigabytes), nesting deeper than MAX_YAML_DEPTH is refused (the
    composer recurses), and each mapping keeps its line for messages."""
    import yaml

    class Mapping(dict):
        line: int

    class TopicLoader(yaml.SafeLoader):
        yaml_implicit_resolvers = {first: [(tag, regexp) for tag, regexp in resolvers if tag.endswith(":null")]
                                   for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}
        depth = 0

        def compose_node(self, parent, index):
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise yaml.composer.ComposerError(None, None, "an alias (*name) is not read; write the value out",
                                                  event.start_mark)
            if self.depth >= MAX_YAML_DEPTH:
                raise yaml.composer.ComposerError(None, None, f"nested deeper than {MAX_YAML_DEPTH} levels",
                                                  event.start_mark)
            self.depth += 1
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    def mapping(loader, node):
        data = Mapping()
        data.line = node.start_mark.line + 1
        yield data
        data.update(loader.construct_mapping(node))

    TopicLoader.add_constructor("tag:yaml.org,2002:map", mapping)
    return TopicLoader


def _parse_topic_file(path: Path):
    """The value of a JSON or YAML topic file; DataError naming the line where it is not valid."""
    text = _read_text(path)
    if path.suffix == ".json":
        return _parse_json(text, path)
    import yaml

    try:
        return yaml.load(text, Loader=_yaml_loader())
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        raise DataError(path, where, f"bad YAML ({getattr(err, 'problem', None) or err})") from None
    except (ValueError, TypeError, OverflowError) as err:  # an explicit tag (!!int, !!timestamp) that does not convert
        raise DataError(path, None, f"bad YAML ({err})") from None


def _at(obj, where: str) -> str:
    """Where an object of a topic file is, for messages: with its line where the file says (YAML)."""
    line = getattr(obj, "line", None)
    return where if line is None else f"line {line}, {where}"


def load_topic_file(path: str | os.PathLike, max_document_chars: int = MAX_DOCUMENT_CHARS, first_topic: int = 1,
                    id_prefix: str = "") -> list[Topic]:
    """The topics of one JSON or YAML file: a topic, or a list of them, each an object with `questions` (as in
    questions.jsonl, where `topic_id` and `id` may be left out: the topic's position counted from `first_topic`,
    and q1, q2, ... after `id_prefix`),
    and optionally `topic` (its title), `topic_id` and `documents` ({title, content, date, source}, as in
    docs.json, with `date` for `parsed_date`). DataError naming the topic and question (and in YAML the line)
    on bad input; a question's unknown fields are named in a warning."""
    path = Path(path)
    if path.suffix not in TOPIC_FILE_SUFFIXES:
        raise DataError(path, None, f"a topic file ends in {', '.join(TOPIC_FILE_SUFFIXES)}")
    data = _parse_topic_file(path)
    entries = data if isinstance(data, list) else [data]
    if not entries:
        raise DataError(path, None, "no topics in the file")
    topics: list[Topic] = []
    seen: dict[str, str] = {}  # question id -> where it was first
    for i, entry in enumerate(entries):
        where = _at(entry, f"topic {i + 1}")
        if not isinstance(entry, dict) or not isinstance(entry.get("questions"), list) or not entry["questions"]:
            raise DataError(path, where, "expected an object with a non-empty 'questions' list")
        unknown = sorted(set(map(str, entry)) - set(TOPIC_KEYS))
        if unknown:
            raise DataError(path, where, f"unknown key {shown(unknown[0])} (a topic has {', '.join(TOPIC_KEYS)})")
        topic_id = parse_topic_id(entry.get("topic_id", i + first_topic), path, where)
        title = title_of(entry, path, where)
        questions = []
        for j, obj in enumerate(entry["questions"]):
            q_where = _at(obj, f"topic {i + 1}, question {j + 1}")
            if not isinstance(obj, dict):
                raise DataError(path, q_where, "expected an object with 'target_event' and 'option_A' .. 'option_D'")
            question = parse_question({"topic_id": topic_id, "id": f"{id_prefix}q{len(seen) + 1}", **obj}, path,
                                      q_where)
            if question.topic_id != topic_id:
                raise DataError(path, q_where, f"topic_id {question.topic_id} is not its topic's ({topic_id})")
            if question.qid in seen:
                raise DataError(path, q_where,
                                f"duplicate question id {shown(question.qid)} (first in {seen[question.qid]})")
            if unknown := unknown_fields(obj):
                _warn(path, q_where, f"unknown field{'s' * (len(unknown) > 1)} {', '.join(map(shown, unknown))} "
                                     f"ignored (a question has {', '.join(QUESTION_KEYS)})")
            seen[question.qid] = q_where
            questions.append(question)
        docs = entry.get("documents", [])
        if not isinstance(docs, list):
            raise DataError(path, where, "'documents' must be a list of {title, content} objects")
        _, documents = parse_documents([{"topic_id": topic_id, "topic": title, "docs": docs}], path,
                                       max_document_chars, [f"topic {i + 1}"])[topic_id]
        if any(t.topic_id == topic_id for t in topics):
            raise DataError(path, where, f"topic_id {topic_id} is given to two topics")
        topics.append(Topic(topic_id, questions, documents, title))
    return sorted(topics, key=lambda t: t.topic_id)


def load_data(path: str | os.PathLike, split: str | None = None, topics: Iterable[int] | TopicIds | None = None,
              max_document_chars: int = MAX_DOCUMENT_CHARS) -> list[Topic]:
    """The topics of any input a user may give: a JSON or YAML topic file (load_topic_file), a folder that
    holds questions.jsonl and, optionally, docs.json itself (a user's own topics: no split), a folder of such
    topic folders and topic files (topic_entries), or an AER data folder in either layout (`split`, default test);
    `topics` restricts to those ids. Documents are cut at `max_document_chars` characters, with a warning; a file given
    or implied that is there but is no regular file (a dangling link, a FIFO, a folder) is a DataError naming it."""
    path = Path(path)
    if not path.is_dir() and (os.path.lexists(path) or path.suffix in TOPIC_FILE_SUFFIXES):
        if split is not None:
            raise DataError(path, None, "a topic file has no splits; leave out --split")
        if not regular_file(path):
            raise DataError(path, None, "no such file")
        found = load_topic_file(path, max_document_chars)
    elif is_topic_folder(path):
        if split is not None:
            raise DataError(path, None, "holds questions.jsonl itself, not splits; leave out --split")
        found = _topic_folder(path, max_document_chars)
    elif (entries := topic_entries(path)) is not None:
        if split is not None:
            raise DataError(path, None, "holds topic folders or topic files, not splits; leave out --split")
        found = load_topic_entries(entries, max_document_chars)
    else:
        return load_split(path, split or "test", topics, max_document_chars)
    return _only(found, topics, path, "")


def _topic_folder(path: Path, max_document_chars: int) -> list[Topic]:
    """The topics of a folder holding questions.jsonl and, optionally, docs.json."""
    questions = load_questions(path / "questions.jsonl")
    if not questions:
        raise DataError(path / "questions.jsonl", None, "no questions in the file")
    docs = path / "docs.json"
    documents = load_documents(docs, max_document_chars) if regular_file(docs) else {}
    unused = sorted(set(documents) - {q.topic_id for q in questions})
    if unused:
        log.warning("%s: documents of topic%s %s, which no question of questions.jsonl is about; they are not "
                    "read", docs, "s" * (len(unused) > 1), id_ranges(unused, MOST_RUNS))
    return group_topics(questions, documents, aer=False)


def load_train_evidence(root: str | os.PathLike) -> dict[int, list[Document]]:
    """The partial evidence of `root/train-evidence/topics.json` by topic: each document lead and each passage
    that other systems retrieved, as a document of its own (empty when the folder is absent)."""
    path = Path(root) / "train-evidence" / "topics.json"
    if not regular_file(path):
        return {}
    data = _parse_json(_read_text(path), path)
    found: dict[int, list[Document]] = {}
    for i, entry in enumerate(data if isinstance(data, list) else []):
        where = f"topic entry {i}"
        if not isinstance(entry, dict) or "topic_id" not in entry:
            raise DataError(path, where, "expected an object with 'topic_id', 'doc_leads' and 'passages'")
        tid = parse_topic_id(entry["topic_id"], path, where)
        leads = [Document(f"{tid}-lead-{j}", str(d.get("title") or ""), str(d.get("content") or ""))
                 for j, d in enumerate(entry.get("doc_leads") or []) if isinstance(d, dict) and d.get("content")]
        passages = [Document(f"{tid}-passage-{j}", "retrieved passage", p)
                    for j, p in enumerate(entry.get("passages") or []) if isinstance(p, str) and p.strip()]
        found[tid] = leads + passages
    return found


def load_labelled(root: str | os.PathLike, evidence: bool = False) -> list[Topic]:
    """Every labelled question (train + dev + sample), grouped by topic, for training and grouped CV. With
    `evidence`, topics without documents get the partial evidence of `train-evidence/` as theirs."""
    root = Path(root)
    if not root.is_dir():
        raise DataError(root, None, "no such data folder")
    check_one_layout(root)
    if is_topic_folder(root):
        raise DataError(root, None, "a topic folder (questions.jsonl at its top); this command reads an AER data "
                                    "folder, whose train/, dev/ or sample/ hold labelled questions")
    questions = []
    for split in ("train", "dev", "sample"):
        folder = _questions_folder(root, split)
        if folder is not None:
            questions += load_questions(folder / "questions.jsonl")
    if not any(q.gold for q in questions):
        raise DataError(root, None, "no labelled questions (train/, dev/ or sample/ with golden_answer)")
    documents = all_documents(root)
    if evidence:
        for tid, docs in load_train_evidence(root).items():
            documents.setdefault(tid, ("", docs))
    return group_topics(questions, documents, aer=True)
