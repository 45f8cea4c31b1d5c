"""Edge scoring: features of a candidate pair (E, T) and a calibrated scikit-learn model of P(E directly caused T)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import joblib
import networkx as nx
import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from .graph import candidate_pairs

STOPWORDS = frozenset(
    "a an the of in on at to for by with from and or as is was were be been are that this its it his her their "
    "after before during over into than then also which who whom has have had not but".split()
)

STRUCTURE_FEATURES = (
    "cosine",
    "cosine_minus_best_other",
    "cosine_rank",
    "jaccard",
    "shared_entities",
    "cause_is_target",
    "reverse_offered",
    "cause_option_share",
    "cause_n_targets",
    "target_n_candidates",
    "pair_share",
    "pair_share_minus_best_other",
)


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS and len(w) > 1}


def capitalised_names(text: str) -> set[str]:
    """Capitalised words after the first token: a cheap stand-in for shared named entities."""
    words = re.findall(r"[A-Za-z][\w'-]*", text)
    return {w.lower() for w in words[1:] if w[0].isupper()}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


@dataclass(frozen=True)
class PairTable:
    """Feature rows for a topic's candidate pairs, in the order of `pairs`."""

    pairs: list[tuple[int, int]]
    structure: np.ndarray  # (n_pairs, len(STRUCTURE_FEATURES))
    embedding: np.ndarray  # (n_pairs, 2 * dim): cause * target and |cause - target|


def pair_table(graph: nx.DiGraph, vectors: np.ndarray) -> PairTable:
    """Compute the features of every candidate pair; `vectors[i]` is the unit embedding of node i."""
    pairs = candidate_pairs(graph)
    n_questions = max(len(graph.graph["questions"]), 1)
    texts = {n: graph.nodes[n]["text"] for n in graph}
    words = {n: content_words(t) for n, t in texts.items()}
    names = {n: capitalised_names(t) for n, t in texts.items()}
    sims = vectors @ vectors.T if len(vectors) else np.zeros((0, 0))
    # relative similarity: how the option compares with the other options of the same questions
    rel, rank = {}, {}
    for slots in graph.graph["questions"].values():
        events = [e for e in slots.options.values() if e != slots.target]
        for e in events:
            others = [sims[o, slots.target] for o in events if o != e]
            best_other = max(others) if others else sims[e, slots.target]
            rel.setdefault((e, slots.target), []).append(sims[e, slots.target] - best_other)
            rank.setdefault((e, slots.target), []).append(sum(o > sims[e, slots.target] for o in others))
    # how often the pair is offered, among the questions about its target
    share = {
        (e, t): len(graph.edges[e, t]["questions"]) / len(graph.nodes[t]["targets_of"]) for e, t in pairs
    }
    share_rel = {}
    for slots in graph.graph["questions"].values():
        events = [e for e in slots.options.values() if e != slots.target]
        for e in events:
            others = [share[(o, slots.target)] for o in events if o != e]
            share_rel.setdefault((e, slots.target), []).append(share[(e, slots.target)] - max(others, default=0.0))
    rows = []
    for e, t in pairs:
        rows.append(
            [
                sims[e, t],
                float(np.mean(rel[(e, t)])),
                float(np.mean(rank[(e, t)])),
                jaccard(words[e], words[t]),
                len(names[e] & names[t]),
                float(bool(graph.nodes[e]["targets_of"])),
                float(graph.has_edge(t, e)),
                len(graph.nodes[e]["option_of"]) / n_questions,
                float(sum(1 for _ in graph.successors(e))),
                float(sum(1 for _ in graph.predecessors(t))),
                share[(e, t)],
                float(np.mean(share_rel[(e, t)])),
            ]
        )
    structure = np.asarray(rows, dtype=np.float64).reshape(len(pairs), len(STRUCTURE_FEATURES))
    if pairs:
        cause, target = vectors[[p[0] for p in pairs]], vectors[[p[1] for p in pairs]]
        embedding = np.hstack([cause * target, np.abs(cause - target)]).astype(np.float64)
    else:
        embedding = np.zeros((0, 2 * vectors.shape[1] if vectors.ndim == 2 else 0))
    return PairTable(pairs, structure, embedding)


class EdgeScorer:
    """Logistic regression over pair features; `predict_proba` gives P(cause) per pair, `weights` its log-odds."""

    def __init__(self, C: float = 1.0, use_embedding: bool = False, seed: int = 0):
        self.C, self.use_embedding, self.seed = C, use_embedding, seed

    def _matrix(self, tables: list[PairTable]) -> np.ndarray:
        parts = [np.vstack([t.structure for t in tables])]
        if self.use_embedding:
            parts.append(np.vstack([t.embedding for t in tables]))
        return np.hstack(parts)

    def fit(self, tables: list[PairTable], labels: list[np.ndarray]) -> "EdgeScorer":
        self.model_ = make_pipeline(
            StandardScaler(), LogisticRegression(C=self.C, max_iter=2000, random_state=self.seed)
        )
        self.model_.fit(self._matrix(tables), np.concatenate(labels).astype(int))
        return self

    def predict_proba(self, table: PairTable) -> np.ndarray:
        if not table.pairs:
            return np.zeros(0)
        return self.model_.predict_proba(self._matrix([table]))[:, 1]


def save_scorer(scorer: EdgeScorer, path: str | Path, encoder: str) -> None:
    """Save a fitted scorer with the encoder name and feature list it was trained with."""
    joblib.dump({"scorer": scorer, "encoder": encoder, "features": STRUCTURE_FEATURES}, path)


def load_scorer(path: str | Path) -> tuple[EdgeScorer, str]:
    """Load (scorer, encoder name); raise if the file is missing or was made with other features."""
    saved = joblib.load(path)
    if tuple(saved["features"]) != STRUCTURE_FEATURES:
        raise ValueError(f"{path}: trained on other features; retrain with `python -m causalgraph.train`")
    return saved["scorer"], saved["encoder"]
