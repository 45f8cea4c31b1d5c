"""What the trained reader (causalgraph.read) reads of each candidate pair (E, T) in a topic's sentences: each event
marked where a sentence tells it (its own words' densest stretch, as evidence/statements.py places it), and the
reader's probability that E caused T, or T caused E, within one sentence and across two sentences of a document up
to WINDOW apart. The strongest of each, with its sentences, is the pair's feature and its source. Every passage is
read once, all of a topic's in one batch."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .statements import REL_MIN, WINDOW, WORD, StatementReader

READ_FEATURES = ("read_cause", "read_consequence", "read_cause_across", "read_consequence_across")
PER_PAIR = 3  # sentences (or sentence pairs) read for a pair, those that tell both events best
GAP = 4  # words between two of an event's words that still belong to one place


@dataclass(frozen=True)
class ReadStatement:
    """The reader's strongest reading of one feature of a pair: its probability and its sentence(s)."""

    p: float
    sentences: tuple[int, ...]


def densest(places: list[int]) -> list[int]:
    """The longest run of word positions with no gap of more than GAP words."""
    ordered = sorted(places)
    runs = [[ordered[0]]]
    for i in ordered[1:]:
        if i - runs[-1][-1] > GAP:
            runs.append([])
        runs[-1].append(i)
    return max(runs, key=len)


class ReadStatements:
    """The reader's statements about a topic's candidate pairs (`statements`: the topic's StatementReader, whose
    sentences, documents and event places it reads)."""

    def __init__(self, sentences: list[str], statements: StatementReader):
        self.sentences, self.statements = sentences, statements
        self.words = [[(m.start(), m.end()) for m in WORD.finditer(s.lower())] for s in sentences]

    def span(self, e: int, s: int, other: int) -> tuple[int, int] | None:
        """The characters of sentence s that tell event e (its own words, not the other's), or None."""
        places = self.statements.own_places(e, s, other)
        if not places:
            return None
        run = densest(places)
        return self.words[s][run[0]][0], self.words[s][run[-1]][1]

    def passages(self, e: int, t: int) -> list[tuple[tuple[str, tuple[int, int], tuple[int, int]], tuple[int, ...]]]:
        """The passages to read for (E, T): ((passage, E's span, T's span), its sentences), the PER_PAIR sentences
        that tell both best and the PER_PAIR pairs of near sentences that tell one each."""
        rel = self.statements.relevance
        docs = self.statements.docs
        within, across = [], []
        for s in np.union1d(self.statements.told[e], self.statements.told[t]).tolist():
            strength = min(rel[e, s], rel[t, s])
            if strength >= REL_MIN and (a := self.span(e, s, t)) and (b := self.span(t, s, e)):
                within.append((strength, (self.sentences[s], a, b), (s,)))
            for nxt in range(s + 1, min(s + 1 + WINDOW, len(self.sentences))):
                if docs[nxt] != docs[s]:
                    break
                for first, second in ((e, t), (t, e)):
                    strength = min(rel[first, s], rel[second, nxt])
                    if strength < REL_MIN:
                        continue
                    x, y = self.span(first, s, second), self.span(second, nxt, first)
                    if x and y:
                        passage = " ".join(self.sentences[s : nxt + 1])
                        shift = len(" ".join(self.sentences[s:nxt])) + 1
                        y = (y[0] + shift, y[1] + shift)
                        a, b = (x, y) if first == e else (y, x)
                        across.append((strength, (passage, a, b), (s, nxt)))
        best = lambda found: [(f[1], f[2]) for f in sorted(found, key=lambda f: (-f[0], f[2]))[:PER_PAIR]]
        return best(within) + best(across)

    def read(self, pairs: list[tuple[int, int]], reader) -> list[dict[str, ReadStatement]]:
        """For each pair, READ_FEATURES that the reader reads (`reader`: a causalgraph.read.CausalReader): the
        highest probability of each direction within a sentence and across sentences, with its sentences."""
        wanted = [self.passages(e, t) for e, t in pairs]
        unique = list(dict.fromkeys(p for found in wanted for p, _ in found))
        probs = dict(zip(unique, reader.pairs(unique))) if unique else {}
        out = []
        for found in wanted:
            read: dict[str, ReadStatement] = {}
            for passage, sentences in found:
                p = probs[passage]  # (none, E caused T, T caused E)
                suffix = "" if len(sentences) == 1 else "_across"
                for feature, value in ((f"read_cause{suffix}", p[1]), (f"read_consequence{suffix}", p[2])):
                    if value > read.get(feature, ReadStatement(0.0, ())).p:
                        read[feature] = ReadStatement(float(value), sentences)
            out.append(read)
        return out
