"""What a reader returns: a judgement per (question, option), with the evidence it read."""

from __future__ import annotations

import hashlib
import json
import math
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

# A hard verdict counts as this log-odds x 100 (P = 0.95) before the reader's weight scales it.
HARD_LOG_ODDS = 294


def log_odds(p: float, cap: float = 6.0) -> int:
    """A probability (the edge scorer's or a reader's) as integer log-odds x 100, capped at +-cap."""
    p = min(max(p, 1e-6), 1 - 1e-6)
    return int(round(100 * max(-cap, min(cap, math.log(p / (1 - p))))))


@dataclass(frozen=True)
class Judgement:
    """One reader's judgement of one option: P(it directly caused the target), or a hard verdict, and the
    (document title, passage) pairs it read."""

    probability: float | None = None
    verdict: bool | None = None
    evidence: tuple[tuple[str, str], ...] = ()

    def log_odds(self) -> int:
        """The judgement as integer log-odds x 100: a probability's, capped, or +-HARD_LOG_ODDS for a verdict."""
        if self.probability is None:
            return HARD_LOG_ODDS if self.verdict else -HARD_LOG_ODDS
        return log_odds(self.probability)

    def as_record(self) -> dict:
        return {"probability": self.probability, "verdict": self.verdict, "log_odds": self.log_odds(),
                "evidence": [list(e) for e in self.evidence]}


@dataclass(frozen=True)
class ReaderJudgements:
    """A reader's judgements by (question id, label), and the weight (in percent) that fusion gives them."""

    reader: str
    judgements: dict[tuple[str, str], Judgement] = field(default_factory=dict)
    weight: int = 100

    def for_questions(self, qids) -> "ReaderJudgements":
        """The judgements of these questions only."""
        qids = set(qids)
        return ReaderJudgements(self.reader, {k: v for k, v in self.judgements.items() if k[0] in qids}, self.weight)


def cached_json(cache_dir: Path | None, kind: str, key: object, compute: Callable[[], object]):
    """`compute()`, or its value stored as JSON under `cache_dir/kind/` by the hash of `key` (a JSON value);
    written to a temporary file and renamed, so that a crash leaves no half-written entry."""
    if cache_dir is None:
        return compute()
    path = Path(cache_dir) / kind / f"{hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()}.json"
    if path.is_file():
        return json.loads(path.read_text(encoding="utf-8"))
    value = compute()
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}.", suffix=".tmp", dir=path.parent)  # unique per thread too
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(json.dumps(value))
    os.replace(tmp, path)
    return value
