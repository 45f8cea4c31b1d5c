"""`causalgraph ablation`: the full rule program against the program with each rule group off,
cross-validated with folds grouped by topic over train + dev + sample, with topic-bootstrap 95% intervals."""

from __future__ import annotations

import sys

from ..experiments.ablation import ablation_rows, format_table
from ..experiments.inputs import describe_held, labelled_analyses
from ..learn.crossval import resized_sets
from ..reason.solve import SolverParams
from .common import cv_inputs, cv_parser, plural, run_command, step


def build_parser():
    parser = cv_parser("ablation", __doc__, bias=True)
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    inputs = cv_inputs(args)
    if inputs is None:
        return 2
    topics, shapes, bias = inputs
    progress = not args.quiet
    analyses = labelled_analyses(topics, args.encoder, progress)
    with step(f"cutting each topic into copies of the {args.resize_to} split's topic shapes", progress and bool(shapes)):
        extra, held = resized_sets(analyses, shapes)
    params = SolverParams(bias=bias)
    print(f"Grouped-by-topic {args.folds}-fold CV over {plural(len(topics), 'topic')} (train + dev + sample), bias {bias}")
    print("\n## Whole held-out topics\n")
    print(format_table(ablation_rows(analyses, args.folds, params, extra, progress=progress)), flush=True)
    if held is not None:
        print(f"\n## Held-out topics cut to the {args.resize_to} split's topic shapes ({describe_held(held, shapes)})\n")
        print(format_table(ablation_rows(analyses, args.folds, params, extra, held, progress)))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
