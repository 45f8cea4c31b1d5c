"""`python -m lab.scorer.encoders`: compare sentence encoders for the edge scorer's similarity features with
grouped-by-topic CV over train + dev + sample: size, speed, edge AUC and AER score on whole held-out topics
and on held-out topics cut to the answered split's topic shapes (the precision bias fixed, as in the ablation)."""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING

from causalgraph.config import DEFAULT_ENCODER
from causalgraph.text.embed import MPNET, encode, load_encoder
from causalgraph.cli.common import plural, run_command
from causalgraph.cli.cv import cv_inputs, cv_parser

if TYPE_CHECKING:
    from causalgraph.learn.crossval import TopicShape


SPEED_SENTENCES = 1000


def encoder_row(name: str, topics, folds: int, shapes: list[TopicShape], bias: int) -> str:
    """One markdown table row: the encoder, its size and speed, edge AUC and both regimes' scores."""
    from sklearn.metrics import roc_auc_score

    from causalgraph.measure.inputs import labelled_analyses
    from causalgraph.learn.crossval import (bootstrap_interval, fold_scorers, held_out_probabilities, held_out_regimes,
                                  held_out_scores, resized_sets)
    from causalgraph.reason.solve import SolverParams

    n_params = load_encoder(name).size()
    analyses = labelled_analyses(topics, name)
    sentences = [s.text for a in analyses for s in a.extraction.sentences][:SPEED_SENTENCES]
    start = time.perf_counter()
    encode(sentences, name)
    seconds = time.perf_counter() - start
    extra, held = resized_sets(analyses, shapes)
    models = fold_scorers(analyses, folds, extra=extra)
    auc = roc_auc_score(*held_out_probabilities(analyses, folds, extra=extra))
    cells = [name, f"{n_params / 1e6:.0f}M", f"{seconds:.1f}", f"{auc:.3f}"]
    for _, scored, edges in held_out_regimes(analyses, models, held):
        result = held_out_scores(scored, edges, params=SolverParams(bias=bias))
        low, high = bootstrap_interval(result)
        cells.append(f"{result.mean:.4f} ({low:.3f}-{high:.3f})")
    return "| " + " | ".join(cells) + " |"


def build_parser():
    parser = cv_parser("encoders", __doc__, encoder=False, bias=True)
    parser.prog = "python -m lab.scorer.encoders"
    parser.add_argument("--encoders", nargs="+", default=[DEFAULT_ENCODER, MPNET],
                        help=f"sentence encoders to compare: local paths or hub names (default {DEFAULT_ENCODER} "
                             f"{MPNET})")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    inputs = cv_inputs(args)
    if inputs is None:
        return 2
    topics, shapes, bias = inputs
    print(f"Grouped-by-topic {args.folds}-fold CV over {plural(len(topics), 'topic')}, bias {bias}; speed: seconds to "
          f"embed the first {SPEED_SENTENCES} document sentences of the labelled topics on one torch thread\n")
    header = ["encoder", "parameters", f"s per {SPEED_SENTENCES} sentences", "edge AUC", "whole held-out topics"]
    header += [f"held-out cut to {args.resize_to} shapes"] if shapes else []
    print("| " + " | ".join(header) + " |\n" + "|---" * len(header) + "|")
    for name in args.encoders:
        print(encoder_row(name, topics, args.folds, shapes, bias), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
