"""What the measuring commands (and the lab) read: the labelled topics and their analyses (through the cache that
`answer` uses), the topic shapes of the split to be answered, and the shipped scorer's precision bias."""

from __future__ import annotations

import os

from tqdm import tqdm

from ..analysis.analyse import TopicAnalysis
from ..analysis.cache import AnalysisCache
from ..config import DEFAULT_MODEL, default_cache_dir
from ..data import DataError, Topic, load_labelled, load_split
from ..learn.crossval import HELD_COPIES, TopicShape
from ..learn.scorer import load_scorer
from ..text.embed import load_encoder
from ..text.extract import load_nlp


def cv_inputs(data: str | os.PathLike, folds: int, resize_to: str | None = "test",
              evidence: bool = False) -> tuple[list[Topic], list[TopicShape]]:
    """The labelled topics of `data` (with `evidence`, topics without documents get train-evidence/ as theirs)
    and the topic shapes of the split `resize_to` (none when it is None or "none"). DataError when the data
    cannot be read or holds fewer labelled topics than `folds`."""
    topics = load_labelled(data, evidence=evidence)
    shapes = target_shapes(data, None if resize_to in (None, "none") else resize_to)
    if folds > len(topics):
        raise DataError(data, None, f"--folds {folds} is more than the {len(topics)} labelled topics")
    return topics, shapes


def labelled_analyses(topics: list[Topic], encoder: str, progress: bool = True,
                      documents: bool = True) -> list[TopicAnalysis]:
    """The topics' analyses (their documents read unless `documents` is False) through the cache folder that
    `answer` uses, so reruns skip spaCy and the encoder; a progress bar on stderr unless `progress` is False,
    which says so while the models load (tens of seconds, before the first topic not in the cache)."""
    cache = AnalysisCache.open(default_cache_dir(), encoder, documents)
    missing = [t for t in topics if not cache.path(t).is_file()]
    analyses = []
    with tqdm(total=len(topics), desc="analysing", unit="topic", disable=not progress) as bar:
        if missing:
            spacy = documents and any(t.documents for t in missing)
            bar.set_postfix_str(f"loading {'spaCy and ' if spacy else ''}{encoder}")
            if spacy:
                load_nlp()
            load_encoder(encoder)
            bar.set_postfix_str(f"{len(missing)} not in the cache")
        for topic in topics:
            analyses.append(cache.analyse(topic)[0])
            bar.update()
    return analyses


def target_shapes(data: str | os.PathLike, split: str | None) -> list[TopicShape]:
    """The shape of each topic of the split to be answered, read from its questions (no answers needed)."""
    if split is None:
        return []
    return [TopicShape.of(t) for t in load_split(data, split)]


def shipped_bias() -> int:
    """The precision bias that `train` chose for the shipped scorer's largest topics (the CV commands' whole
    labelled topics)."""
    return shipped_biases()(10**9)


def shipped_biases():
    """The shipped scorer's precision bias by the number of a topic's questions (its size bands)."""
    return load_scorer(DEFAULT_MODEL)[0].bias_for


def describe_shapes(shapes: list[TopicShape]) -> str:
    """Range of topic sizes and the share of questions offering None, e.g. '8-48 questions, 37% ...'."""
    sizes = [s.questions for s in shapes]
    share = sum(s.none_offered for s in shapes) / max(sum(sizes), 1)
    return f"{min(sizes)}-{max(sizes)} questions, {share:.0%} of them offering None"


def describe_held(held: list[list[TopicAnalysis]], shapes: list[TopicShape]) -> str:
    """The held-out copies' shapes next to the answered split's (copies run short of None questions)."""
    copies = describe_shapes([TopicShape.of(c.topic) for cs in held for c in cs])
    return f"{HELD_COPIES} copies each, {copies}; the split's topics: {describe_shapes(shapes)}"
