"""The annotated news the reader learns from, as training examples for its three heads, with the groups to fold
by: the Causal News Corpus (sentences; a document's sentences in one group) and EventStoryLine (pairs of event
mentions within and across sentences; a topic's documents in one group). Their layouts: the READMEs in
../shared/causal-news and ../shared/storyline."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..data import DataError

Span = tuple[int, int]


@dataclass(frozen=True)
class SentenceExample:
    """A text and whether it states a causal relation."""

    text: str
    causal: int
    group: str


@dataclass(frozen=True)
class TagExample:
    """A text and its cause and effect spans ((start, end, "C" or "E"), characters)."""

    text: str
    spans: tuple[tuple[int, int, str], ...]
    group: str


@dataclass(frozen=True)
class PairExample:
    """A passage, two event spans in it and what holds between them: 0 neither caused the other, 1 a caused b,
    2 b caused a, -1 one caused the other in a direction not given. `same_sentence` as the corpus says."""

    text: str
    a: Span
    b: Span
    label: int
    group: str
    same_sentence: bool = True


def read_jsonl(path: Path) -> list[dict]:
    """The records of a JSON-lines file; a DataError naming the line that is not a JSON object."""
    records = []
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as err:
        raise DataError(path, None, f"cannot be read ({err})") from err
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except ValueError as err:
            raise DataError(path, f"line {number}", f"not JSON ({err})") from err
        if not isinstance(record, dict):
            raise DataError(path, f"line {number}", "not a JSON object")
        records.append(record)
    return records


def causal_news(folder: Path) -> tuple[list[SentenceExample], list[TagExample], list[PairExample]]:
    """The Causal News Corpus's sentences (train.jsonl): each sentence's label, its cause and effect spans (a span
    that is both, in two relations, kept as its first), and each annotated relation as a pair, cause first
    (label 1). Grouped by document."""
    sentences, tags, pairs = [], [], []
    for r in read_jsonl(folder / "train.jsonl"):
        try:
            text, group = r["text"], r["id"].rsplit("_", 1)[0]
            sentences.append(SentenceExample(text, int(r["causal"]), group))
            spans: list[tuple[int, int, str]] = []
            for rel in r.get("relations", []):
                cause, effect = tuple(rel["cause"]), tuple(rel["effect"])
                for (s, e), kind in ((cause, "C"), (effect, "E")):
                    if not any(s < e2 and s2 < e for s2, e2, _ in spans):
                        spans.append((s, e, kind))
                pairs.append(PairExample(text, cause, effect, 1, group))
            tags.append(TagExample(text, tuple(sorted(spans)), group))
        except (KeyError, TypeError, ValueError) as err:
            raise DataError(folder / "train.jsonl", f"id {r.get('id')!r}",
                            f"not a record of the corpus ({err!r})") from err
    return sentences, tags, pairs


def storyline(folder: Path) -> list[PairExample]:
    """EventStoryLine's pairs of event mentions (train-text.jsonl, train-pairs.jsonl, train.jsonl for the
    topics and sentences), each in its passage: the sentences from the one that holds a to the one that holds b.
    Grouped by topic."""
    topics = {r["id"]: r for r in read_jsonl(folder / "train.jsonl")}
    gold = {r["id"]: r["pairs"] for r in read_jsonl(folder / "train-pairs.jsonl")}
    labels = {"a_causes_b": 1, "b_causes_a": 2, None: -1}
    examples = []
    for doc in read_jsonl(folder / "train-text.jsonl"):
        meta, text = topics[doc["id"]], doc["text"]
        sentences = meta["sentences"]
        for given, truth in zip(doc["pairs"], gold[doc["id"]]):
            a, b = tuple(given["a"]), tuple(given["b"])
            first = next(s for s, e in sentences if s <= a[0] < e)
            last = next(e for s, e in sentences if s <= b[0] < e)
            label = labels[truth["truth"]] if truth["causal"] else 0
            examples.append(PairExample(text[first:last], (a[0] - first, a[1] - first), (b[0] - first, b[1] - first),
                                        label, f"storyline-{meta['topic']}", bool(truth["same_sentence"])))
    return examples
