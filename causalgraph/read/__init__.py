"""Reading causal statements: a transformer fine-tuned here on news that people annotated for causality
(read/model.py, read/learn.py) reads whether a text states a causal relation, its causes and effects, and which of
two events caused the other (read/reader.py).

    import causalgraph as cg
    reading = cg.read("The strike resumed on Tuesday when their demands were not met.")
    reading.causal, reading.statements, reading.pairs

The module itself is callable: `cg.read(text, pairs)` is `read(text, pairs)` below.
"""

from __future__ import annotations

import sys
import types
from pathlib import Path

from .reader import CausalReader, PairReading, Reading, Statement, shipped_reader

__all__ = ["CausalReader", "PairReading", "Reading", "Statement", "read"]


def read(text: str, pairs: list[tuple[tuple[int, int], tuple[int, int]]] | None = None,
         model: str | Path | None = None) -> Reading:
    """What the reader reads in `text` (a sentence or a document): the probability that it states a causal
    relation, the cause and effect spans it states, and for each given pair of events (character spans (a, b)) the
    probability that a caused b and that b caused a. `model`: a reader folder, default the shipped reader."""
    for a, b in pairs or []:
        for start, end in (a, b):
            if not 0 <= start < end <= len(text):
                raise ValueError(f"span [{start}, {end}] is not a non-empty span of the text ({len(text)} characters)")
    reader = shipped_reader() if model is None else CausalReader.load(model)
    return reader.read(text, [(tuple(a), tuple(b)) for a, b in pairs or []])  # type: ignore[misc]


class _CallableModule(types.ModuleType):
    """This module, callable as `read`: `causalgraph.read` names both the command's module and the function."""

    def __call__(self, text: str, pairs=None, model: str | Path | None = None) -> Reading:
        return read(text, pairs, model)


sys.modules[__name__].__class__ = _CallableModule
