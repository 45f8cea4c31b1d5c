"""Reading causal statements: a transformer fine-tuned here on news that people annotated for causality
(read/model.py, read/learn.py) reads whether a text states a causal relation, its causes and effects, and which of
two events caused the other (read/reader.py)."""

from .reader import CausalReader, PairReading, Reading, Statement

__all__ = ["CausalReader", "PairReading", "Reading", "Statement"]
