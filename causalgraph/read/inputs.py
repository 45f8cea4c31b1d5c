"""The input of `python -m causalgraph.read`: JSON lines `{"id", "text", "pairs": [{"a": [s, e], "b": [s, e]}]}`
(pairs optional, events as character spans of the text), checked line by line."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..data import DataError

Span = tuple[int, int]


@dataclass(frozen=True)
class ReadItem:
    """One line: its id, its text and the pairs of events to judge in it."""

    id: str
    text: str
    pairs: list[tuple[Span, Span]]


def span(value, text: str, path: Path, where: str) -> Span:
    """A [start, end] character span of `text`, end exclusive; a DataError naming `where` otherwise."""
    if (not isinstance(value, list) or len(value) != 2
            or not all(isinstance(v, int) and not isinstance(v, bool) for v in value)):
        raise DataError(path, where, f"a span is [start, end], two integers; got {json.dumps(value)[:60]}")
    start, end = value
    if start < 0 or end > len(text):
        raise DataError(path, where, f"span [{start}, {end}] lies outside the text ({len(text)} characters)")
    if end <= start:
        raise DataError(path, where, f"span [{start}, {end}] is {'empty' if end == start else 'reversed'}")
    return start, end


def parse_item(line: str, path: Path, where: str) -> ReadItem:
    """One input line as a ReadItem; a DataError naming `where` (the file and line) for what is wrong with it."""
    try:
        record = json.loads(line)
    except ValueError as err:
        raise DataError(path, where, f"not JSON ({err})") from None
    if not isinstance(record, dict):
        raise DataError(path, where, "not a JSON object")
    id_, text, pairs = record.get("id"), record.get("text"), record.get("pairs", [])
    if not isinstance(id_, (str, int)) or isinstance(id_, bool) or str(id_) == "":
        raise DataError(path, where, "no \"id\" (a string or a number)")
    if not isinstance(text, str):
        raise DataError(path, where, "no \"text\" (a string)")
    if not isinstance(pairs, list) or not all(isinstance(p, dict) for p in pairs):
        raise DataError(path, where, "\"pairs\" is a list of {\"a\": [s, e], \"b\": [s, e]}")
    parsed = []
    for n, pair in enumerate(pairs, 1):
        if set(pair) != {"a", "b"}:
            raise DataError(path, where, f"pair {n} has the keys {sorted(pair)}, not \"a\" and \"b\"")
        parsed.append((span(pair["a"], text, path, f"{where}, pair {n} a"),
                       span(pair["b"], text, path, f"{where}, pair {n} b")))
    return ReadItem(str(id_), text, parsed)


def read_items(path: Path) -> list[ReadItem]:
    """Every line of an input file (blank lines skipped); ids must differ."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except UnicodeDecodeError as err:
        raise DataError(path, None, f"not UTF-8 text ({err.reason} at byte {err.start})") from None
    items: list[ReadItem] = []
    seen: dict[str, int] = {}
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        item = parse_item(line, path, f"line {number}")
        if item.id in seen:
            raise DataError(path, f"line {number}", f"id {item.id!r} is already on line {seen[item.id]}")
        seen[item.id] = number
        items.append(item)
    if not items:
        raise DataError(path, None, "no line to read")
    return items
