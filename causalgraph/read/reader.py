"""`CausalReader`: the trained reader's three heads run over texts (read/model.py), and `read`, what it reads in a
sentence or a document: whether it states a causal relation, the cause and effect it states, within a sentence
and across sentences, and which of two given events caused the other."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import numpy as np
import torch

from ..config import PACKAGE_DIR
from .model import MARKERS, PAIR_CLASSES, TAGS, Encoded, ReaderNet, Tokens, load

READER_DIR = PACKAGE_DIR / "models" / "reader"  # the shipped reader: its weights, settings and card
BATCH = 32
ACROSS = 2  # sentences apart that a statement across sentences may span
THRESHOLD = 0.5  # the probability a statement within a sentence needs to be read
# The probability a statement across sentences needs: the pair head learned pairs across sentences from
# EventStoryLine's event words alone, and reads two tagged clauses of near sentences as linked far more often (no
# annotated spans across sentences to measure it on; BENCHMARKS.md, "The reader of causal statements")
ACROSS_THRESHOLD = 0.9
MAX_SPANS = 12  # spans of a document's sentences paired across sentences, the most likely kept
MEMO = 100_000  # pair readings kept, so that a passage read again (a second reading of the topic) is not
Span = tuple[int, int]


@dataclass(frozen=True)
class Statement:
    """A cause and an effect that the text states (character spans), and the reader's probability."""

    cause: Span
    effect: Span
    p: float


@dataclass(frozen=True)
class PairReading:
    """Two given events (character spans) and the reader's probability of each direction."""

    a: Span
    b: Span
    a_causes_b: float
    b_causes_a: float


@dataclass(frozen=True)
class Reading:
    """What the reader reads in one text."""

    causal: float
    statements: list[Statement] = field(default_factory=list)
    pairs: list[PairReading] = field(default_factory=list)

    def record(self, id_: str) -> dict:
        """The line `python -m causalgraph.read` writes for it."""
        return {"id": id_, "causal": round(self.causal, 4),
                "statements": [{"cause": list(s.cause), "effect": list(s.effect), "p": round(s.p, 4)}
                               for s in self.statements],
                "pairs": [{"a": list(p.a), "b": list(p.b), "a_causes_b": round(p.a_causes_b, 4),
                           "b_causes_a": round(p.b_causes_a, 4)} for p in self.pairs]}


SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)]*\s+(?=[\"“'(]?[A-Z0-9])|\n+")


def sentences(text: str) -> list[Span]:
    """The character spans of a text's sentences: split at a line break, and at ., ! or ? before a capital."""
    spans, start = [], 0
    for m in SENTENCE_END.finditer(text):
        if text[start : m.start()].strip():
            spans.append((start, m.start()))
        start = m.end()
    if text[start:].strip():
        spans.append((start, len(text)))
    return spans


def mark(text: str, a: Span, b: Span) -> tuple[str, int, int]:
    """The text with a and b marked (MARKERS), and where their opening markers stand in it."""
    (a_open, a_close), (b_open, b_close) = MARKERS["a"], MARKERS["b"]
    # at one place a closing marker goes before an opening one
    inserts = sorted([(a[1], 0, f" {a_close}", ""), (b[1], 0, f" {b_close}", ""),
                      (a[0], 1, f"{a_open} ", "a"), (b[0], 1, f"{b_open} ", "b")])
    out, last, length, opens = [], 0, 0, {}
    for place, _, marker, name in inserts:
        out.append(text[last:place])
        length += place - last
        if name:
            opens[name] = length
        out.append(marker)
        length += len(marker)
        last = place
    out.append(text[last:])
    return "".join(out), opens["a"], opens["b"]


def marker_token(encoded: Encoded, at: int) -> int:
    """The token of the marker placed at character `at`: the first that starts there or after it (a marker is
    punctuation, its own token, but a text's odd characters may shift what the tokenizer reports)."""
    return next((i for i, (s, _) in enumerate(encoded.offsets) if s >= at), max(0, len(encoded.offsets) - 1))


class CausalReader:
    """The trained reader, loaded from a folder (read/model.py's files; the shipped one by default)."""

    def __init__(self, net: ReaderNet, settings: dict, base_path: str):
        self.net, self.settings = net, settings
        self.tokens = Tokens(base_path, int(settings.get("max_length", 192)))
        self.memo: dict[tuple[str, Span, Span], np.ndarray] = {}
        self.lock = threading.Lock()  # one reading at a time: torch's threads are the machine's

    @classmethod
    def load(cls, folder: str | Path = READER_DIR, quantized: bool = False) -> "CausalReader":
        """The reader saved in `folder`; with `quantized`, its linear layers run in int8."""
        net, settings, path = load(Path(folder))
        if quantized:
            from ..text.embed import int8

            int8(net.encoder)
        return cls(net, settings, path)

    def _batches(self, n: int, lengths: list[int]):
        order = sorted(range(n), key=lambda i: lengths[i])
        for start in range(0, n, BATCH):
            yield order[start : start + BATCH]

    @torch.inference_mode()
    def causal(self, texts: list[str]) -> np.ndarray:
        """The probability that each text states a causal relation."""
        framed = [self.tokens.frame(e) for e in self.tokens.encode_batch(texts)]
        out = np.zeros(len(texts))
        for idx in self._batches(len(texts), [len(e.ids) for e in framed]):
            logits = self.net.sentence_logits(*self.tokens.batch([framed[i] for i in idx]))
            out[idx] = torch.sigmoid(logits).numpy()
        return out

    @torch.inference_mode()
    def spans(self, texts: list[str]) -> list[list[tuple[int, int, str, float]]]:
        """The cause ("C") and effect ("E") spans tagged in each text, with their first token's probability."""
        framed = [self.tokens.frame(e) for e in self.tokens.encode_batch(texts)]
        out: list[list[tuple[int, int, str, float]]] = [[] for _ in texts]
        for idx in self._batches(len(texts), [len(e.ids) for e in framed]):
            probs = torch.softmax(self.net.tag_logits(*self.tokens.batch([framed[i] for i in idx])), -1).numpy()
            for row, i in enumerate(idx):
                out[i] = decode(framed[i], probs[row, : len(framed[i].ids)])
        return out

    def pair_inputs(self, passages: list[tuple[str, Span, Span]]) -> list[tuple[Encoded, int, int]]:
        """Each passage marked, tokenized and cut to fit, with the positions of its two opening markers."""
        marked = [mark(*p) for p in passages]
        encoded = self.tokens.encode_batch([m[0] for m in marked])
        out = []
        for (_, a_at, b_at), e in zip(marked, encoded):
            a_tok, b_tok = marker_token(e, a_at), marker_token(e, b_at)
            keep = self.tokens.window(e, a_tok, b_tok)
            out.append((self.tokens.frame(e, keep), keep.index(a_tok) + 1, keep.index(b_tok) + 1))
        return out

    def pairs(self, passages: list[tuple[str, Span, Span]]) -> np.ndarray:
        """For each passage and its two events a and b: the probabilities of PAIR_CLASSES (none, a caused b, b
        caused a), calibrated (`calibrated`); a passage read before (MEMO) is not read again."""
        with self.lock:
            new = list(dict.fromkeys(p for p in passages if p not in self.memo))
            if new:
                if len(self.memo) + len(new) > MEMO:
                    self.memo.clear()
                self.memo.update(zip(new, (self.calibrated(p, q) for p, q in zip(new, self._read_pairs(new)))))
            return np.array([self.memo[p] for p in passages]).reshape(len(passages), len(PAIR_CLASSES))

    def calibrated(self, passage: tuple[str, Span, Span], p: np.ndarray) -> np.ndarray:
        """The pair head's probabilities with the odds of a link (either direction) scaled so that the threshold
        of the settings' `link_thresholds` (chosen under cross-validation: read/evaluate.py) reads as 0.5, within
        a sentence or across sentences; as they are where the settings have none."""
        thresholds = self.settings.get("link_thresholds")
        if not thresholds:
            return p
        text, a, b = passage
        between = text[min(a[0], b[0]) : max(a[1], b[1])]
        t = float(thresholds["across" if len(sentences(between)) > 1 else "within"])
        scaled = np.array([p[0], *(p[1:] * (1 - t) / t)])
        return scaled / scaled.sum()

    @torch.inference_mode()
    def _read_pairs(self, passages: list[tuple[str, Span, Span]]) -> np.ndarray:
        inputs = self.pair_inputs(passages)
        out = np.zeros((len(passages), len(PAIR_CLASSES)))
        for idx in self._batches(len(inputs), [len(x[0].ids) for x in inputs]):
            ids, mask = self.tokens.batch([inputs[i][0] for i in idx])
            a = torch.tensor([inputs[i][1] for i in idx])
            b = torch.tensor([inputs[i][2] for i in idx])
            out[idx] = torch.softmax(self.net.pair_logits(ids, mask, a, b), -1).numpy()
        return out

    def read(self, text: str, pairs: list[tuple[Span, Span]] | None = None) -> Reading:
        """What `text` (a sentence or a document) states: the probability that it states a causal relation (its
        likeliest sentence's), the statements read within each sentence and across sentences up to ACROSS
        apart, and for each given pair of events the probability of each direction."""
        return self.read_many([(text, pairs or [])])[0]

    def read_many(self, items: list[tuple[str, list[tuple[Span, Span]]]]) -> list[Reading]:
        """`read` for many texts, their sentences read in batches."""
        flat = [(k, span) for k, (text, _) in enumerate(items) for span in sentences(text)]  # every sentence
        rows_of: list[list[int]] = [[] for _ in items]
        for i, (k, _) in enumerate(flat):
            rows_of[k].append(i)
        texts = [items[k][0][s:e] for k, (s, e) in flat]
        causal = self.causal(texts) if texts else np.zeros(0)
        tagged = self.spans(texts) if texts else []
        # candidate statements, (text, the passage's offset in it, (passage, a, b)): a cause and an effect tagged
        # in one sentence; and the MAX_SPANS likeliest spans of a text, paired across sentences ACROSS apart
        candidates: list[tuple[int, int, tuple[str, Span, Span], float]] = []  # and the threshold it needs
        for k, (text, _) in enumerate(items):
            rows = rows_of[k]
            found = [(n, (flat[i][1][0] + s, flat[i][1][0] + e, kind, p))
                     for n, i in enumerate(rows) for s, e, kind, p in tagged[i]]
            for n, c in found:
                lo, hi = flat[rows[n]][1]
                candidates += [(k, lo, (text[lo:hi], (c[0] - lo, c[1] - lo), (x[0] - lo, x[1] - lo)), THRESHOLD)
                               for m, x in found if m == n and c[2] == "C" and x[2] == "E"]
            strongest = sorted(found, key=lambda f: -f[1][3])[:MAX_SPANS]
            for n, x in strongest:
                for m, y in strongest:
                    if 0 < m - n <= ACROSS:
                        lo, hi = flat[rows[n]][1][0], flat[rows[m]][1][1]
                        candidates.append((k, lo, (text[lo:hi], (x[0] - lo, x[1] - lo), (y[0] - lo, y[1] - lo)),
                                           ACROSS_THRESHOLD))
        given = [(k, passage(text, [flat[i][1] for i in rows_of[k]], a, b))
                 for k, (text, pairs) in enumerate(items) for a, b in pairs]
        passages = [c for _, _, c, _ in candidates] + [g for _, g in given]
        probs = self.pairs(passages) if passages else np.zeros((0, len(PAIR_CLASSES)))
        statements: list[set[Statement]] = [set() for _ in items]
        for (k, lo, (_, a, b), threshold), p in zip(candidates, probs[: len(candidates)]):
            a, b = (a[0] + lo, a[1] + lo), (b[0] + lo, b[1] + lo)
            if p[1] >= threshold:
                statements[k].add(Statement(a, b, float(p[1])))
            elif p[2] >= threshold:
                statements[k].add(Statement(b, a, float(p[2])))
        readings = [Reading(float(max(causal[rows_of[k]], default=0.0)),
                            sorted(statements[k], key=lambda s: (s.cause, s.effect, -s.p))) for k in range(len(items))]
        for (k, _), (a, b), p in zip(given, [pair for _, pairs in items for pair in pairs], probs[len(candidates):]):
            readings[k].pairs.append(PairReading(a, b, float(p[1]), float(p[2])))
        return readings


def passage(text: str, spans: list[Span], a: Span, b: Span) -> tuple[str, Span, Span]:
    """The sentences of `text` (`spans`) from the one where the first of a and b starts to the one where the last
    ends, as the reader was trained to read a pair, with a and b shifted into it."""
    first, last = min(a[0], b[0]), max(a[1], b[1])
    lo = max((s for s, _ in spans if s <= first), default=0)
    hi = min((e for _, e in spans if e >= last), default=len(text))
    return text[lo:hi], (a[0] - lo, a[1] - lo), (b[0] - lo, b[1] - lo)


@lru_cache(maxsize=2)
def shipped_reader(quantized: bool = False) -> CausalReader:
    """The shipped reader (READER_DIR), loaded once: in float, as its figures were measured, or with `quantized` in
    int8, twice as fast, as the answer path reads (it moves a few readings across 0.5: BENCHMARKS.md, "The reader
    of causal statements")."""
    return CausalReader.load(READER_DIR, quantized)


def decode(encoded: Encoded, probs: np.ndarray) -> list[tuple[int, int, str, float]]:
    """The spans of a framed text's tag probabilities (TAGS per token): each run of a B tag and the I tags of its
    kind after it (an I without its B opens a span too), as character spans with the first token's probability."""
    best = probs.argmax(-1)
    spans: list[tuple[int, int, str, float]] = []
    current: list | None = None
    for t, (tag, (s, e)) in enumerate(zip(best, encoded.offsets)):
        name = TAGS[tag]
        if s == e or name == "O":
            if current:
                spans.append(tuple(current))  # type: ignore[arg-type]
            current = None
            continue
        kind = name[-1]
        if name.startswith("B") or current is None or current[2] != kind:
            if current:
                spans.append(tuple(current))  # type: ignore[arg-type]
            current = [s, e, kind, float(probs[t, tag])]
        else:
            current[1] = e
    if current:
        spans.append(tuple(current))  # type: ignore[arg-type]
    return spans
