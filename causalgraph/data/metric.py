"""The official AER metric, per question."""

from __future__ import annotations


def question_score(predicted: frozenset[str], gold: frozenset[str]) -> float:
    """Official AER score: 1 for the exact set, 0.5 for a non-empty proper subset, else 0."""
    if not predicted:
        return 0.0
    if predicted == gold:
        return 1.0
    if predicted < gold:
        return 0.5
    return 0.0
