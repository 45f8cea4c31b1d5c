"""Evidence passages for a question, retrieved from its topic's documents with BM25 (no spaCy pass, so a reader
can run before or without the analysis)."""

from __future__ import annotations

import re

from rank_bm25 import BM25Okapi

from ..data import Question, Topic
from ..text.words import word_tokens

SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(])|\n\s*\n")


class PassageIndex:
    """The sentences of a topic's documents, with their document titles, ranked by BM25 for a question."""

    def __init__(self, topic: Topic):
        seen: set[str] = set()
        self.passages: list[tuple[str, str]] = []
        for doc in topic.documents:
            for s in map(str.strip, SENTENCE_END.split(doc.content)):
                if len(s.split()) >= 4 and s not in seen:
                    seen.add(s)
                    self.passages.append((doc.title, s))
        self.bm25 = BM25Okapi([word_tokens(text) or ["_"] for _, text in self.passages]) if self.passages else None

    def for_question(self, question: Question, k: int = 6) -> list[tuple[str, str]]:
        """The k passages (title, sentence) most relevant to the question's target and options, in document order."""
        return [self.passages[i]
                for i in sorted(self.ranked(word_tokens(" ".join([question.target, *question.options])), k))]

    def ranked(self, tokens: list[str], k: int) -> list[int]:
        """Indices of the k passages that BM25 ranks highest for the tokens (those with a positive score)."""
        if self.bm25 is None:
            return []
        scores = self.bm25.get_scores(tokens)
        return [i for i in sorted(range(len(self.passages)), key=lambda i: (-scores[i], i))[:k] if scores[i] > 0]
