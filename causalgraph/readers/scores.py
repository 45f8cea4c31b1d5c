"""Another system's output as a reader: the task's submission format with hard answers
(`{"id": ..., "answer": "A,C"}`) or per-option probabilities (`{"id": ..., "probs": {"A": 0.91, ...}}`)."""

from __future__ import annotations

import logging
import math
import os
from pathlib import Path

from ..data import LABELS, DataError, Question, parse_labels, read_jsonl
from ..data.records import parse_id
from .base import Judgement, ReaderJudgements

log = logging.getLogger(__name__)


def load_reader_scores(path: str | os.PathLike, questions: dict[str, Question], weight: int = 100) -> ReaderJudgements:
    """A reader from a file of answers or probabilities. DataError (file and line) for an id that is not one of
    `questions`, a label outside A-D, a probability outside [0, 1] or a line with neither field; questions
    the file leaves out get no judgement, with one warning."""
    path = Path(path)
    judgements: dict[tuple[str, str], Judgement] = {}
    seen: dict[str, int] = {}
    for lineno, obj in read_jsonl(path):
        where = f"line {lineno}"
        if "id" not in obj:
            raise DataError(path, where, "missing field 'id'")
        qid = parse_id(obj["id"], path, where)
        if qid not in questions:
            raise DataError(path, where, f"id {qid!r} is not a question of the answered split")
        if qid in seen:
            raise DataError(path, where, f"duplicate id {qid!r} (first on line {seen[qid]})")
        seen[qid] = lineno
        if "probs" in obj:
            probs = obj["probs"]
            if not isinstance(probs, dict):
                raise DataError(path, where, f"probs must be an object such as {{\"A\": 0.9}}, got {probs!r}")
            for label, p in probs.items():
                if label not in LABELS:
                    raise DataError(path, where, f"label {label!r} is outside A-D in probs")
                if isinstance(p, bool) or not isinstance(p, (int, float)) or not (0 <= p <= 1) or math.isnan(p):
                    raise DataError(path, where, f"probability of {label} must be a number in [0, 1], got {p!r}")
                judgements[(qid, label)] = Judgement(probability=float(p))
        elif "answer" in obj:
            chosen = parse_labels(obj["answer"], path, where, allow_empty=True)
            judgements.update({(qid, label): Judgement(verdict=label in chosen) for label in LABELS})
        else:
            raise DataError(path, where, "expected an 'answer' or a 'probs' field")
    missing = len(set(questions) - set(seen))
    if missing:
        log.warning("%s: no judgement for %d of the %d questions; they get no reader facts", path, missing, len(questions))
    return ReaderJudgements(path.name, judgements, weight)
