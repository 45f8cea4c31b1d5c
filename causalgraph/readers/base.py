"""What a reader returns: a judgement per (question, option), with the evidence it read."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

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
