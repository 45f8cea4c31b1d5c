"""Words of a text, as the lexical parts of the pipeline count them (BM25 retrieval, word overlap)."""

from __future__ import annotations

import re


def word_tokens(text: str) -> list[str]:
    """Lower-case runs of letters and digits, in order."""
    return re.findall(r"[a-z0-9]+", text.lower())
