"""Shared fixtures: the demo topic, a tiny data folder builder, and the path of the shared AER data."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from causalgraph.answer import DEMO_DATA

AER = Path(__file__).resolve().parents[2] / "shared" / "aer"


def write_questions(path: Path, rows: list[dict]) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def question_row(qid: str, topic: int, target: str, options: list[str], gold: str | None = None) -> dict:
    row = {"topic_id": topic, "id": qid, "target_event": target}
    row.update({f"option_{label}": text for label, text in zip("ABCD", options)})
    if gold is not None:
        row["golden_answer"] = gold
    return row


@pytest.fixture
def demo_dir() -> Path:
    return DEMO_DATA


@pytest.fixture
def aer() -> Path:
    if not (AER / "train" / "questions.jsonl").is_file():
        pytest.skip(f"the AER data is not at {AER} (tests that need it read ../shared/aer)")
    return AER
