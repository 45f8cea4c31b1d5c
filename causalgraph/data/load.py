"""Loaders of AER data folders (both layouts), validating every row; errors name the file and line."""

from __future__ import annotations

import datetime
import json
import logging
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Iterator

from .records import (LABELS, MAX_DOCUMENT_CHARS, SPLITS, DataError, Document, Question, Topic, check_text,
                      normalize_text, parse_id, parse_labels, parse_topic_id, shown)

log = logging.getLogger(__name__)
ISO_DATE = re.compile(r"(?:19|20)\d\d-\d\d-\d\d")


def is_iso_day(text: str) -> bool:
    """True for a real calendar day written yyyy-mm-dd."""
    try:
        return bool(ISO_DATE.fullmatch(text)) and datetime.date.fromisoformat(text) is not None
    except ValueError:
        return False


def _warn(path: str | os.PathLike, where: str, problem: str) -> None:
    log.warning("%s:%s: %s", path, where, problem)


MAX_STREAM_BYTES = 1 << 30  # read from a pipe, whose size is not known beforehand


def read_bytes(path: str | os.PathLike) -> bytes:
    """The bytes of an input file, read in time bounded by its size: a regular file whole, a pipe up to
    MAX_STREAM_BYTES; DataError naming it for a device (/dev/zero never ends), a socket, or a pipe that sends
    more."""
    with open(path, "rb") as handle:
        mode = os.fstat(handle.fileno()).st_mode
        if stat.S_ISREG(mode):
            return handle.read()
        if not stat.S_ISFIFO(mode):
            kind = "a character device" if stat.S_ISCHR(mode) else "a block device" if stat.S_ISBLK(mode) else "not a file"
            raise DataError(path, None, f"is {kind}, not a file to read")
        data = handle.read(MAX_STREAM_BYTES + 1)
    if len(data) > MAX_STREAM_BYTES:
        raise DataError(path, None, f"more than {MAX_STREAM_BYTES:,} bytes from a pipe; give a file")
    return data


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
    """Yield (line number, object) for every non-blank line; DataError on bad JSON or a non-object.
    Lines end at "\n" only: JSON strings may hold other line separators such as U+2028."""
    path = Path(path)
    for lineno, line in enumerate(_read_text(path).split("\n"), start=1):
        if not line.strip():
            continue
        obj = _parse_json(line, path, lineno)
        if not isinstance(obj, dict):
            raise DataError(path, f"line {lineno}", "expected a JSON object")
        yield lineno, obj


def parse_question(obj: dict, path: str | os.PathLike, where: str) -> Question:
    """One question object (a questions.jsonl line); gold labels are read from `golden_answer` when present."""
    missing = [k for k in ("id", "topic_id", "target_event", *(f"option_{l}" for l in LABELS)) if k not in obj]
    if missing:
        raise DataError(path, where, f"missing field {missing[0]!r}")
    qid = parse_id(obj["id"], path, where)
    topic_id = parse_topic_id(obj["topic_id"], path, where)
    texts = [obj["target_event"], *(obj[f"option_{l}"] for l in LABELS)]
    if not all(isinstance(t, str) and t.strip() for t in texts):
        raise DataError(path, where, f"question {shown(qid)} has an empty or non-string event text")
    for text in texts:
        check_text(text, path, where, f"an event text of question {shown(qid)}")
    if len({normalize_text(t) for t in texts}) == 1:
        raise DataError(path, where, f"question {shown(qid)} offers its target as every option; it has no answer "
                                     "(an event never causes itself)")
    gold = obj.get("golden_answer")
    return Question(qid=qid, topic_id=topic_id, target=texts[0], options=tuple(texts[1:]),
                    gold=None if gold is None else parse_labels(gold, path, where))


def load_questions(path: str | os.PathLike) -> list[Question]:
    """Read a questions.jsonl file; gold labels are read from `golden_answer` when present."""
    questions: list[Question] = []
    seen: dict[str, int] = {}  # question id -> its line
    for lineno, obj in read_jsonl(path):
        question = parse_question(obj, path, f"line {lineno}")
        if question.qid in seen:
            raise DataError(path, f"line {lineno}", f"duplicate question id {shown(question.qid)} (first on line {seen[question.qid]})")
        seen[question.qid] = lineno
        questions.append(question)
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
        answers[qid] = parse_labels(obj[key], path, where, allow_empty=predictions)
        if not answers[qid]:
            _warn(path, where, f"empty answer for {shown(qid)}; it scores 0")
    return answers


def _text(value) -> str:
    """A field of a document as text: a string itself, anything else as its (short) repr."""
    return value if isinstance(value, str) else shown(value)


def load_documents(path: str | os.PathLike) -> dict[int, tuple[str, list[Document]]]:
    """Read a docs.json file: {topic_id: (topic title, documents)}. Documents without text are skipped and
    documents over MAX_DOCUMENT_CHARS are cut, each with a warning."""
    path = Path(path)
    return parse_documents(_parse_json(_read_text(path), path), path)


def parse_documents(data, path: Path) -> dict[int, tuple[str, list[Document]]]:
    """The documents of a parsed docs.json (a list of {topic_id, topic, docs}) by topic (see load_documents)."""
    if not isinstance(data, list):
        raise DataError(path, None, f"expected a JSON list of topics, got {type(data).__name__}")
    topics: dict[int, tuple[str, list[Document]]] = {}
    for i, entry in enumerate(data):
        where = f"topic entry {i}"
        if not isinstance(entry, dict) or "topic_id" not in entry or not isinstance(entry.get("docs"), list):
            raise DataError(path, where, "expected an object with 'topic_id' and a 'docs' list")
        topic_id = parse_topic_id(entry["topic_id"], path, where)
        docs = []
        for j, doc in enumerate(entry["docs"]):
            text = (doc.get("content") or doc.get("snippet") or "") if isinstance(doc, dict) else None
            if not isinstance(text, str):
                raise DataError(path, f"{where}, doc {j}", "expected an object with a string 'content'")
            doc_id = _text(doc.get("id", f"{topic_id}-{j}"))
            doc_where = f"{where}, doc {j} (id {shown(doc_id)})"
            for value in (doc_id, text, doc.get("title"), doc.get("source")):
                if isinstance(value, str):
                    check_text(value, path, doc_where, "a field")
            if not text.strip():
                _warn(path, doc_where, "empty document (no content or snippet); skipped")
                continue
            if len(text) > MAX_DOCUMENT_CHARS:
                _warn(path, doc_where, f"{len(text):,} characters; keeping the first {MAX_DOCUMENT_CHARS:,}")
                text = text[:MAX_DOCUMENT_CHARS]
            date = _text(doc.get("parsed_date") or "")
            if date and not is_iso_day(date):
                _warn(path, doc_where, f"parsed_date {shown(date)} is not a yyyy-mm-dd day; ignored")
                date = ""
            docs.append(Document(doc_id=doc_id, title=_text(doc.get("title") or ""), content=text,
                                 source=_text(doc.get("source") or ""), date=date))
        title, previous = topics.get(topic_id, (str(entry.get("topic", "")), []))
        topics[topic_id] = (title, previous + docs)
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
    return next((f for f in split_folders(root, split) if (f / "questions.jsonl").is_file()), None)


def split_dir(root: str | os.PathLike, split: str) -> Path:
    """The folder of a split in either layout (see split_folders)."""
    root = Path(root)
    if not root.is_dir():
        raise DataError(root, None, "no such data folder")
    folder = _questions_folder(root, split)
    if folder is None:
        names = " or ".join(f"{f.name}/questions.jsonl" for f in split_folders(root, split))
        raise DataError(root, None, f"no {names} here")
    return folder


def all_documents(root: str | os.PathLike) -> dict[int, tuple[str, list[Document]]]:
    """Documents of every split under root, by topic (train/dev questions reuse sample's documents)."""
    found: dict[int, tuple[str, list[Document]]] = {}
    for path in data_files(root):
        if path.name == "docs.json" and path.is_file():
            for tid, (title, docs) in load_documents(path).items():
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


def load_split(root: str | os.PathLike, split: str, topics: Iterable[int] | TopicIds | None = None) -> list[Topic]:
    """Load one split of a data folder as topics; `topics` (ids, or TopicIds) restricts to those ids, each of
    which must be in the split."""
    if split not in SPLITS:
        raise DataError(root, None, f"unknown split {split!r}; expected one of {', '.join(SPLITS)}")
    path = split_dir(root, split) / "questions.jsonl"
    questions = load_questions(path)
    if not questions:
        raise DataError(path, None, "no questions in the file")
    return _only(group_topics(questions, all_documents(root), aer=True), topics, split_dir(root, split), f" in split {split}")


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
    """Whether `path` is a folder that holds questions.jsonl itself (a user's own topics), not split folders."""
    return (Path(path) / "questions.jsonl").is_file()


def input_files(path: str | os.PathLike) -> list[Path]:
    """Every file that reading `path` (see load_data) may read: a topic file, a topic folder's two files, or
    each split's files of a data folder."""
    path = Path(path)
    if path.is_file():
        return [path]
    return [path / "questions.jsonl", path / "docs.json", *data_files(path)]


def _parse_topic_file(path: Path):
    """The value of a JSON or YAML topic file; DataError naming the line where it is not valid."""
    text = _read_text(path)
    if path.suffix == ".json":
        return _parse_json(text, path)
    import yaml

    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f"line {mark.line + 1}" if mark is not None else None
        raise DataError(path, where, f"bad YAML ({getattr(err, 'problem', None) or err})") from None


def _document_entry(doc):
    """A topic file's document as a docs.json one: `date` (a YAML date too) for `parsed_date`."""
    if not isinstance(doc, dict):
        return doc
    date = doc.get("parsed_date", doc.get("date"))
    return {**doc, "parsed_date": date.isoformat() if isinstance(date, datetime.date) else date}


def load_topic_file(path: str | os.PathLike) -> list[Topic]:
    """The topics of one JSON or YAML file: a topic, or a list of them, each an object with `questions` (as in
    questions.jsonl, where `topic_id` and `id` may be left out: the topic's position from 1 and q1, q2, ...),
    and optionally `topic` (its title), `topic_id` and `documents` ({title, content, date, source}, as in
    docs.json, with `date` for `parsed_date`). DataError naming the topic and question on bad input."""
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
        where = f"topic {i + 1}"
        if not isinstance(entry, dict) or not isinstance(entry.get("questions"), list) or not entry["questions"]:
            raise DataError(path, where, "expected an object with a non-empty 'questions' list")
        unknown = sorted(set(map(str, entry)) - set(TOPIC_KEYS))
        if unknown:
            raise DataError(path, where, f"unknown key {shown(unknown[0])} (a topic has {', '.join(TOPIC_KEYS)})")
        topic_id = parse_topic_id(entry.get("topic_id", i + 1), path, where)
        questions = []
        for j, obj in enumerate(entry["questions"]):
            q_where = f"{where}, question {j + 1}"
            if not isinstance(obj, dict):
                raise DataError(path, q_where, "expected an object with 'target_event' and 'option_A' .. 'option_D'")
            question = parse_question({"topic_id": topic_id, "id": f"q{len(seen) + 1}", **obj}, path, q_where)
            if question.topic_id != topic_id:
                raise DataError(path, q_where, f"topic_id {question.topic_id} is not its topic's ({topic_id})")
            if question.qid in seen:
                raise DataError(path, q_where, f"duplicate question id {shown(question.qid)} (first in {seen[question.qid]})")
            seen[question.qid] = q_where
            questions.append(question)
        docs = entry.get("documents", [])
        if not isinstance(docs, list):
            raise DataError(path, where, "'documents' must be a list of {title, content} objects")
        docs = [_document_entry(d) for d in docs]
        title, documents = parse_documents([{"topic_id": topic_id, "topic": str(entry.get("topic", "")), "docs": docs}],
                                           path)[topic_id]
        if any(t.topic_id == topic_id for t in topics):
            raise DataError(path, where, f"topic_id {topic_id} is given to two topics")
        topics.append(Topic(topic_id, questions, documents, title))
    return sorted(topics, key=lambda t: t.topic_id)


def load_data(path: str | os.PathLike, split: str | None = None,
              topics: Iterable[int] | TopicIds | None = None) -> list[Topic]:
    """The topics of any input a user may give: a JSON or YAML topic file (load_topic_file), a folder that
    holds questions.jsonl and, optionally, docs.json itself (a user's own topics: no split), or an AER data
    folder in either layout (`split`, default test); `topics` restricts to those ids."""
    path = Path(path)
    if path.is_file() or path.suffix in TOPIC_FILE_SUFFIXES:
        if split is not None:
            raise DataError(path, None, "a topic file has no splits; leave out --split")
        if not path.is_file():
            raise DataError(path, None, "no such file")
        found = load_topic_file(path)
    elif is_topic_folder(path):
        if split is not None:
            raise DataError(path, None, "holds questions.jsonl itself, not splits; leave out --split")
        questions = load_questions(path / "questions.jsonl")
        if not questions:
            raise DataError(path / "questions.jsonl", None, "no questions in the file")
        docs = path / "docs.json"
        documents = load_documents(docs) if docs.is_file() else {}
        unused = sorted(set(documents) - {q.topic_id for q in questions})
        if unused:
            log.warning("%s: documents of topic%s %s, which no question of questions.jsonl is about; they are not "
                        "read", docs, "s" * (len(unused) > 1), id_ranges(unused, MOST_RUNS))
        found = group_topics(questions, documents, aer=False)
    else:
        return load_split(path, split or "test", topics)
    return _only(found, topics, path, "")


def load_train_evidence(root: str | os.PathLike) -> dict[int, list[Document]]:
    """The partial evidence of `root/train-evidence/topics.json` by topic: each document lead and each passage
    that other systems retrieved, as a document of its own (empty when the folder is absent)."""
    path = Path(root) / "train-evidence" / "topics.json"
    if not path.is_file():
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
