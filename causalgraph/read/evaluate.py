"""The reader's figures under cross-validation: fold i holds out the i-th part of the Causal News Corpus's documents
and of EventStoryLine's topics (GroupKFold each), trains on the rest (read/learn.py) and reads what it held out:
- the Causal News Corpus: whether each sentence is causal (F1 of the causal class), the direction of each annotated
  relation (its two spans given in a seeded random order), and the cause and effect words tagged (word-level F1);
- EventStoryLine: whether each pair of event mentions is causally linked, within a sentence and across sentences
  (F1 of the linked class)."""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np
from sklearn.model_selection import GroupKFold

from .learn import Corpus, Settings, fit
from .reader import THRESHOLD


@dataclass(frozen=True)
class Figures:
    """What the held-out readings score."""

    sentence_f1: float
    sentence_precision: float
    sentence_recall: float
    direction: float  # share of annotated relations read in the right direction (over none and the wrong one)
    direction_of_two: float  # the same, the none class left aside
    span_f1: float
    within_f1: float
    across_f1: float
    within_threshold_f1: float  # at a threshold chosen on the other folds' held-out pairs
    across_threshold_f1: float
    counts: dict

    def lines(self) -> list[str]:
        c = self.counts
        return [
            f"Causal News Corpus, {c['sentences']} sentences ({c['causal']} causal): sentence F1 "
            f"{self.sentence_f1:.3f} (precision {self.sentence_precision:.3f}, recall {self.sentence_recall:.3f})",
            f"  direction of the {c['relations']} annotated relations: {self.direction:.3f} right "
            f"({self.direction_of_two:.3f} of the two directions, none left aside)",
            f"  cause and effect words (word-level F1 of the two tags): {self.span_f1:.3f}",
            f"EventStoryLine, {c['pairs_within']} pairs within a sentence ({c['linked_within']} linked), "
            f"{c['pairs_across']} across ({c['linked_across']} linked): pair F1 within {self.within_f1:.3f}, "
            f"across {self.across_f1:.3f} at p >= {THRESHOLD}; {self.within_threshold_f1:.3f} and "
            f"{self.across_threshold_f1:.3f} at a threshold chosen on the other folds",
        ]


def f1(gold: np.ndarray, pred: np.ndarray) -> tuple[float, float, float]:
    """F1, precision and recall of the positive class."""
    tp = float((gold & pred).sum())
    p = tp / max(1, int(pred.sum()))
    r = tp / max(1, int(gold.sum()))
    return (2 * p * r / (p + r) if p + r else 0.0), p, r


def word_labels(text: str, spans) -> list[str]:
    """Each whitespace-separated word's tag: C or E where a span covers its first character, else O."""
    out, at = [], 0
    for word in text.split():
        at = text.index(word, at)
        tag = next((kind for s, e, kind, *_ in spans if s <= at < e), "O")
        out.append(tag)
        at += len(word)
    return out


def folds(corpus: Corpus, k: int) -> list[set[str]]:
    """The groups each fold holds out: the i-th GroupKFold part of each corpus's groups."""
    held: list[set[str]] = [set() for _ in range(k)]
    news = sorted({x.group for x in corpus.sentences})
    story = sorted({x.group for x in corpus.pairs if x.group.startswith("storyline-")})
    for groups in (news, story):
        if len(groups) < k:
            continue
        for i, (_, test) in enumerate(GroupKFold(n_splits=k).split(groups, groups=groups)):
            held[i] |= {groups[j] for j in test}
    return held


def read_fold(corpus: Corpus, settings: Settings, groups: set[str], fold: int, progress: bool,
              rng: random.Random | None = None) -> dict:
    """What a reader trained on every group but `groups` reads of those groups: {"sentences", "tags",
    "direction", "pairs"} rows (each relation's two spans given in the order `rng` draws, seeded)."""
    rng = rng or random.Random(settings.seed)
    reader = fit(corpus.where(lambda g: g not in groups), settings, progress)
    test = corpus.where(lambda g: g in groups)
    rows: dict[str, list] = {}
    rows["sentences"] = [{"group": x.group, "causal": x.causal, "p": float(p), "fold": fold}
                         for x, p in zip(test.sentences, reader.causal([x.text for x in test.sentences]))]
    rows["tags"] = [{"gold": word_labels(x.text, x.spans), "pred": word_labels(x.text, found)}
                    for x, found in zip(test.tags, reader.spans([x.text for x in test.tags]))]
    news = [x for x in test.pairs if not x.group.startswith("storyline-")]
    flips = [rng.random() < 0.5 for _ in news]
    probs = reader.pairs([(x.text, x.b, x.a) if flip else (x.text, x.a, x.b) for x, flip in zip(news, flips)])
    rows["direction"] = [{"right": 2 if flip else 1, "p": p.tolist(), "fold": fold} for flip, p in zip(flips, probs)]
    story = [x for x in test.pairs if x.group.startswith("storyline-")]
    probs = reader.pairs([(x.text, x.a, x.b) for x in story])
    rows["pairs"] = [{"group": x.group, "label": x.label, "within": x.same_sentence, "p": p.tolist(), "fold": fold}
                     for x, p in zip(story, probs)]
    return rows


def held_out(corpus: Corpus, settings: Settings, k: int, progress: bool) -> dict:
    """Each fold's model's readings of what it held out (`read_fold`), the folds' rows joined."""
    rng = random.Random(settings.seed)
    rows: dict[str, list] = {"sentences": [], "tags": [], "direction": [], "pairs": []}
    for i, groups in enumerate(folds(corpus, k)):
        for kind, found in read_fold(corpus, settings, groups, i, progress, rng).items():
            rows[kind] += found
    return rows


def figures(rows: dict) -> Figures:
    """The figures of held-out readings (`held_out`)."""
    gold = np.array([r["causal"] for r in rows["sentences"]]).astype(bool)
    pred = np.array([r["p"] for r in rows["sentences"]]) >= THRESHOLD
    sentence = f1(gold, pred)
    direction = [int(np.argmax(r["p"])) == r["right"] for r in rows["direction"]]
    of_two = [int(np.argmax(r["p"][1:])) + 1 == r["right"] for r in rows["direction"]]
    gold_words = np.array([w for r in rows["tags"] for w in r["gold"]])
    pred_words = np.array([w for r in rows["tags"] for w in r["pred"]])
    tp = float(((gold_words == pred_words) & (gold_words != "O")).sum())
    p = tp / max(1, int((pred_words != "O").sum()))
    r = tp / max(1, int((gold_words != "O").sum()))
    span = 2 * p * r / (p + r) if p + r else 0.0
    pair_rows = rows["pairs"]
    within = np.array([r["within"] for r in pair_rows], dtype=bool)
    linked = np.array([r["label"] != 0 for r in pair_rows], dtype=bool)
    p_link = np.array([r["p"][1] + r["p"][2] for r in pair_rows])
    fold = np.array([r["fold"] for r in pair_rows])

    def nested(where: np.ndarray) -> float:
        """F1 over the folds, each at the threshold that the other folds' held-out pairs score best at."""
        hits = np.zeros(len(pair_rows), dtype=bool)
        for i in np.unique(fold):
            rest = where & (fold != i)
            best = max(GRID, key=lambda t: f1(linked[rest], p_link[rest] >= t)[0])
            mine = where & (fold == i)
            hits[mine] = p_link[mine] >= best
        return f1(linked[where], hits[where])[0]

    counts = {"sentences": len(gold), "causal": int(gold.sum()), "relations": len(direction),
              "pairs_within": int(within.sum()), "linked_within": int((linked & within).sum()),
              "pairs_across": int((~within).sum()), "linked_across": int((linked & ~within).sum())}
    return Figures(sentence[0], sentence[1], sentence[2], float(np.mean(direction)) if direction else 0.0,
                   float(np.mean(of_two)) if of_two else 0.0, span,
                   f1(linked[within], p_link[within] >= THRESHOLD)[0],
                   f1(linked[~within], p_link[~within] >= THRESHOLD)[0],
                   nested(within), nested(~within), counts)


GRID = tuple(round(t, 2) for t in np.arange(0.05, 0.96, 0.05))


def link_thresholds(rows: dict) -> dict[str, float]:
    """The probability of a causal link (either direction) at which the held-out EventStoryLine pairs score their
    best F1, within a sentence and across sentences: the reader's `link_thresholds` (read/reader.py)."""
    pairs = rows["pairs"]
    found = {}
    for kind, within in (("within", True), ("across", False)):
        gold = np.array([r["label"] != 0 for r in pairs if r["within"] == within], dtype=bool)
        p = np.array([r["p"][1] + r["p"][2] for r in pairs if r["within"] == within])
        found[kind] = float(max(GRID, key=lambda t: f1(gold, p >= t)[0])) if gold.any() else THRESHOLD
    return found

