"""Examples for the pair ("NLI") model of `readers.crossencoder` from analysed topics: labelled pairs with the
analysis's best evidence sentence as premise, and silver pairs from the documents' causal cues.
`python -m lab.scorer.nli` measures the model on them."""

from __future__ import annotations

import random

from causalgraph.analysis.analyse import TopicAnalysis
from causalgraph.readers.crossencoder import PairExample, hypothesis


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
