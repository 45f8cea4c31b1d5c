"""Question-structure features of every candidate edge (E, T) of a topic graph: how the questions offer the pair,
and how similar its two texts are."""

from __future__ import annotations

import re
from collections.abc import Callable

import networkx as nx
import numpy as np

from .topic import candidate_pairs

STOPWORDS = frozenset(
    "a an the of in on at to for by with from and or as is was were be been are that this its it his her their "
    "after before during over into than then also which who whom has have had not but".split()
)

QUESTION_FEATURES = (
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
    "cause_none_share",
    "target_none_share",
    "target_n_questions",
    "topic_n_questions",
)
# Counts that tell a small topic from a large one where the shares above read the same: how many questions
# offer the pair, and how many mention the cause and the target (as an option or as the target).
SIZE_FEATURES = ("pair_n_questions", "cause_n_mentions", "target_n_mentions")
# Every feature read off the questions alone (no documents).
STRUCTURE_FEATURES = QUESTION_FEATURES + SIZE_FEATURES


def content_words(text: str) -> set[str]:
    return {w for w in re.findall(r"[a-z0-9]+", text.lower()) if w not in STOPWORDS and len(w) > 1}


def capitalised_names(text: str) -> set[str]:
    """Capitalised words after the first token: a cheap stand-in for shared named entities."""
    words = re.findall(r"[A-Za-z][\w'-]*", text)
    return {w.lower() for w in words[1:] if w[0].isupper()}


def jaccard(a: set[str], b: set[str]) -> float:
    return len(a & b) / len(a | b) if a | b else 0.0


def none_share(graph: nx.DiGraph, qids: list[str], exclude_target: int | None = None) -> float:
    """The share of these questions that offer None (leaving out questions about `exclude_target`)."""
    slots = [graph.graph["questions"][q] for q in qids]
    slots = [s for s in slots if s.target != exclude_target]
    return sum(s.none_label is not None for s in slots) / len(slots) if slots else 0.0


def versus_other_options(graph: nx.DiGraph, values: dict[tuple[int, int], float],
                         against: Callable[[list[float]], float] = max) -> tuple[dict, dict]:
    """For each pair, averaged over the questions offering it: its value minus the best other option's
    value in that question (`against` the others' values: their best by default), and the number of other options
    with a higher value."""
    margin: dict[tuple[int, int], list[float]] = {}
    rank: dict[tuple[int, int], list[float]] = {}
    for slots in graph.graph["questions"].values():
        events = [e for e in slots.options.values() if e != slots.target]
        for e in events:
            mine = values[(e, slots.target)]
            others = [values[(o, slots.target)] for o in events if o != e]
            margin.setdefault((e, slots.target), []).append(mine - (against(others) if others else mine))
            rank.setdefault((e, slots.target), []).append(sum(o > mine for o in others))
    return ({k: float(np.mean(v)) for k, v in margin.items()}, {k: float(np.mean(v)) for k, v in rank.items()})


def structure_features(graph: nx.DiGraph, vectors: np.ndarray) -> np.ndarray:
    """STRUCTURE_FEATURES of every candidate pair, in `candidate_pairs` order; `vectors[i]` is the unit
    embedding of node i."""
    pairs = candidate_pairs(graph)
    n_questions = max(len(graph.graph["questions"]), 1)
    texts = {n: graph.nodes[n]["text"] for n in graph}
    words = {n: content_words(t) for n, t in texts.items()}
    names = {n: capitalised_names(t) for n, t in texts.items()}
    sims = vectors @ vectors.T if len(vectors) else np.zeros((0, 0))
    cosine = {(e, t): float(sims[e, t]) for e, t in pairs}
    cosine_margin, cosine_rank = versus_other_options(graph, cosine)
    # how often the pair is offered, among the questions about its target
    share = {(e, t): len(graph.edges[e, t]["questions"]) / len(graph.nodes[t]["targets_of"]) for e, t in pairs}
    share_margin, _ = versus_other_options(graph, share)
    # None shares are taken relative to the topic's rate of None questions, which differs between splits
    topic_none_rate = max(none_share(graph, list(graph.graph["questions"])), 0.01)
    rows = [
        [
            cosine[(e, t)],
            cosine_margin[(e, t)],
            cosine_rank[(e, t)],
            jaccard(words[e], words[t]),
            len(names[e] & names[t]),
            float(bool(graph.nodes[e]["targets_of"])),
            float(graph.has_edge(t, e)),
            len(graph.nodes[e]["option_of"]) / n_questions,
            float(sum(1 for _ in graph.successors(e))),
            float(sum(1 for _ in graph.predecessors(t))),
            share[(e, t)],
            share_margin[(e, t)],
            none_share(graph, graph.nodes[e]["option_of"], exclude_target=t) / topic_none_rate,
            none_share(graph, graph.nodes[t]["targets_of"]) / topic_none_rate,
            float(len(graph.nodes[t]["targets_of"])),
            float(n_questions),
            float(len(graph.edges[e, t]["questions"])),
            float(len(graph.nodes[e]["option_of"]) + len(graph.nodes[e]["targets_of"])),
            float(len(graph.nodes[t]["option_of"]) + len(graph.nodes[t]["targets_of"])),
        ]
        for e, t in pairs
    ]
    return np.asarray(rows, dtype=np.float64).reshape(len(pairs), len(STRUCTURE_FEATURES))
