"""What the commands share: option parsers and types, reading the labelled data for the CV commands, and printing
one-line errors."""

from __future__ import annotations

import argparse
import sys

from ..analysis.analyse import TopicAnalysis
from ..analysis.cache import AnalysisCache
from ..config import DEFAULT_ENCODER, DEFAULT_MODEL, default_cache_dir
from ..data import DataError, load_labelled, load_split
from ..learn.crossval import HELD_COPIES, TopicShape
from ..learn.scorer import load_scorer
from ..reason.solve import MAX_CONSTANT, SWITCHABLE


def parse_groups(text: str) -> frozenset[str]:
    groups = frozenset(g.strip() for g in text.split(",") if g.strip())
    unknown = groups - set(SWITCHABLE)
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown rule group {sorted(unknown)[0]!r}; choose from {', '.join(SWITCHABLE)}")
    return groups


def parse_topics(text: str) -> list[int]:
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--topics takes comma-separated integers, got {text!r}") from None


def positive(kind):
    """An argparse type: a number of `kind` above zero."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not value > 0:
            raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
        return value

    return parse


def weight(text: str) -> int:
    """An argparse type: an integer that clingo's 32-bit weights can hold (within +-MAX_CONSTANT)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if abs(value) > MAX_CONSTANT:
        raise argparse.ArgumentTypeError(f"must be within +-{MAX_CONSTANT:,} (clingo's weights are 32-bit), got {text}")
    return value


def cv_parser(prog: str, doc: str, encoder: bool = True, bias: bool = False) -> argparse.ArgumentParser:
    """The options that the CV commands share: data, folds, the split to resize to, the encoder (unless
    `encoder` is False) and a fixed precision bias (where `bias` is True)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc)
    parser.add_argument("--data", required=True, help="AER data folder (../shared/aer or the public layout)")
    parser.add_argument("--folds", type=int, default=5)
    if encoder:
        parser.add_argument("--encoder", default=DEFAULT_ENCODER, help="sentence-transformers path or hub name")
    parser.add_argument("--resize-to", default="test", help="split whose topic shapes (questions, None offers) the training and held-out copies are cut to; 'none' for whole topics only")
    if bias:
        parser.add_argument("--bias", type=weight, help="precision bias (log-odds x 100); default: the shipped scorer's")
    return parser


def shipped_bias() -> int:
    """The precision bias that `train` chose for the shipped scorer."""
    return load_scorer(DEFAULT_MODEL)[0].bias


def cv_inputs(args: argparse.Namespace) -> tuple[list, list[TopicShape]] | None:
    """The labelled topics and the target topic shapes, with `args.bias` (where the command has one) set to
    the shipped scorer's when not given; None, after printing the error, when the data cannot be read."""
    try:
        topics = load_labelled(args.data)
        shapes = target_shapes(args.data, None if args.resize_to == "none" else args.resize_to)
        if getattr(args, "bias", 0) is None:
            args.bias = shipped_bias()
    except (DataError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return None
    return topics, shapes


def labelled_analyses(topics: list, encoder: str) -> list[TopicAnalysis]:
    """The topics' analyses through the cache that `answer` uses, so reruns skip spaCy and the encoder."""
    cache = AnalysisCache.open(default_cache_dir(), encoder)
    return [cache.analyse(t)[0] for t in topics]


def target_shapes(data: str, split: str | None) -> list[TopicShape]:
    """The shape of each topic of the split to be answered, read from its questions (no answers needed)."""
    if split is None:
        return []
    return [TopicShape.of(t) for t in load_split(data, split)]


def describe_shapes(shapes: list[TopicShape]) -> str:
    """Range of topic sizes and the share of questions offering None, e.g. '8-48 questions, 37% ...'."""
    sizes = [s.questions for s in shapes]
    share = sum(s.none_offered for s in shapes) / max(sum(sizes), 1)
    return f"{min(sizes)}-{max(sizes)} questions, {share:.0%} of them offering None"


def describe_held(held: list[list[TopicAnalysis]], shapes: list[TopicShape]) -> str:
    """The held-out copies' shapes next to the answered split's (copies run short of None questions)."""
    copies = describe_shapes([TopicShape.of(c.topic) for cs in held for c in cs])
    return f"{HELD_COPIES} copies each, {copies}; the split's topics: {describe_shapes(shapes)}"
