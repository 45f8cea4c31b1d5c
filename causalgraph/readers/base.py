"""What a reader returns: a judgement per (question, option), with the evidence it read."""

from __future__ import annotations

import hashlib
import json
import logging
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Protocol

from ..config import trusted
from ..data import DataError
from ..data.files import write_files
from ..data.odds import logit

log = logging.getLogger(__name__)
_UNWRITABLE: set[Path] = set()  # cache folders already warned about

# A hard verdict counts as this log-odds x 100 (P = 0.95) before the reader's weight scales it.
HARD_LOG_ODDS = 294


def log_odds(p: float, cap: float = 6.0) -> int:
    """A probability (the edge scorer's or a reader's) as integer log-odds x 100, capped at +-cap."""
    return int(round(100 * max(-cap, min(cap, logit(p)))))


@dataclass(frozen=True)
class Judgement:
    """One reader's judgement of one option: P(it directly caused the target), or a hard verdict, and the
    (document title, passage) pairs it read."""

    probability: float | None = None
    verdict: bool | None = None
    evidence: tuple[tuple[str, str], ...] = ()
    calibrated: int | None = None  # the log-odds x 100 its reader's calibration gives it (readers/trust/)

    def log_odds(self) -> int:
        """The judgement as integer log-odds x 100: its calibrated value where its reader was calibrated, else a
        probability's, capped, or +-HARD_LOG_ODDS for a verdict."""
        if self.calibrated is not None:
            return self.calibrated
        if self.probability is None:
            return HARD_LOG_ODDS if self.verdict else -HARD_LOG_ODDS
        return log_odds(self.probability)

    def as_record(self) -> dict:
        return {"probability": self.probability, "verdict": self.verdict, "log_odds": self.log_odds(),
                "evidence": [list(e) for e in self.evidence]}


class Calibration(Protocol):
    """What the explanations read of a reader's calibration (readers/trust/: ReaderCalibration)."""

    def reliability(self) -> str: ...


@dataclass(frozen=True)
class ReaderJudgements:
    """A reader's judgements by (question id, label), the weight (in percent) that fusion gives them, and the
    calibration (readers/trust/) that set both, if any."""

    reader: str
    judgements: dict[tuple[str, str], Judgement] = field(default_factory=dict)
    weight: int = 100
    calibration: Calibration | None = None

    def questions_judged(self, qids) -> int:
        """How many of these questions the reader judged."""
        return len(set(qids) & {qid for qid, _ in self.judgements})

    def for_questions(self, qids) -> "ReaderJudgements":
        """The judgements of these questions only (a topic's)."""
        qids = set(qids)
        return replace(self, judgements={k: v for k, v in self.judgements.items() if k[0] in qids})


def check_reader_names(names: list[str]) -> None:
    """DataError for two readers of one name (fusion and the explanations tell readers apart by name)."""
    seen = set()
    for name in names:
        if name in seen:
            raise DataError("--reader-scores", None,
                            f"two readers are named {name!r}; give a score file another name as NAME=FILE")
        seen.add(name)


def cached_json(cache_dir: Path | None, kind: str, key: object, compute: Callable[[], object],
                keep: Callable[[object], bool] = lambda value: True):
    """`compute()`, or its value stored as JSON under `cache_dir/kind/` by the hash of `key` (a JSON value);
    only a value for which `keep` holds is stored or read back. Written to a temporary file and renamed, so
    that a crash leaves no half-written entry; an unreadable entry is recomputed, and a cache folder that
    cannot be written costs one warning, not the value. A cache that another user could have written
    (config.untrusted) is neither read nor written, with a warning."""
    if cache_dir is None:
        return compute()
    path = Path(cache_dir) / kind / f"{hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()}.json"
    if not trusted(path, log):  # what another user could have written is not read, nor written there
        return compute()
    try:
        if path.is_file():
            value = json.loads(path.read_text(encoding="utf-8"))
            if keep(value):
                return value
    except (OSError, ValueError, RecursionError) as err:
        log.warning("%s: unreadable cache entry (%s); recomputing", path, err)
    value = compute()
    if keep(value):
        try:
            write_files({path: json.dumps(value)}, mode=0o600)
        except OSError as err:
            if Path(cache_dir) not in _UNWRITABLE:
                _UNWRITABLE.add(Path(cache_dir))
                log.warning("cannot write to the cache folder %s (%s); going on without caching", cache_dir,
                            err.strerror or err)
    return value
