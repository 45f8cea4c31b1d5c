"""The connective reader (evidence/statements.py: a list of connectives, each event placed at its words) on the
annotated corpora the trained reader learns from, as a baseline beside its cross-validated figures (`python -m
causalgraph.train --reader-model`): the Causal News Corpus's sentences (causal where a causal connective stands,
not negated), the direction of its annotated relations (a connective between the two spans, or opening the
sentence), and EventStoryLine's pairs within a sentence (linked where a connective between them states either
direction). The connective reader learns nothing, so every sentence and pair is held out.

    python -m lab.reader_of_statements.connective_reader
"""

from __future__ import annotations

import argparse
from pathlib import Path

import numpy as np

from causalgraph.evidence.statements import Mention, connectives, within, words_of
from causalgraph.read.corpora import causal_news, storyline
from causalgraph.read.evaluate import f1
from lab.common import SHARED



def place(text: str, span: tuple[int, int]) -> float:
    """The word position of a span's middle word in the text, as evidence/statements.py counts words."""
    return float(len(words_of(text[: (span[0] + span[1]) // 2])))


def stated(text: str, a: tuple[int, int], b: tuple[int, int]) -> set[str]:
    """What the connectives of `text` state of a (as E) and b (as T)."""
    return set(within(Mention(1.0, place(text, a)), Mention(1.0, place(text, b)), connectives(words_of(text))))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--causal-news", type=Path, default=SHARED / "causal-news")
    parser.add_argument("--storyline", type=Path, default=SHARED / "storyline")
    args = parser.parse_args()
    sentences, _, relations = causal_news(args.causal_news)
    gold = np.array([s.causal for s in sentences], dtype=bool)
    pred = np.array([any(c.kind == "causal" and not c.negated for c in connectives(words_of(s.text)))
                     for s in sentences])
    print("Causal News Corpus, %d sentences: sentence F1 %.3f (precision %.3f, recall %.3f)"
          % (len(gold), *f1(gold, pred)))
    reads = [stated(r.text, r.a, r.b) for r in relations]
    right = sum("stated_cause" in s for s in reads)
    wrong = sum("stated_consequence" in s and "stated_cause" not in s for s in reads)
    print(f"  direction of the {len(reads)} annotated relations: {right / len(reads):.3f} right ({right}), "
          f"{wrong} reversed, {len(reads) - right - wrong} not read")
    pairs = [p for p in storyline(args.storyline) if p.same_sentence]
    linked = np.array([p.label != 0 for p in pairs], dtype=bool)
    found = np.array([bool(stated(p.text, p.a, p.b) & {"stated_cause", "stated_consequence"}) for p in pairs])
    print("EventStoryLine, %d pairs within a sentence: pair F1 %.3f (precision %.3f, recall %.3f)"
          % (len(pairs), *f1(linked, found)))


if __name__ == "__main__":
    main()
