"""`causalgraph ablation`: the full rule program against the program with each rule group off,
cross-validated with folds grouped by topic over train + dev + sample, with topic-bootstrap 95% intervals."""

from __future__ import annotations

import sys

from .common import plural, run_command, step
from .cv import cv_inputs, cv_parser


def build_parser():
    parser = cv_parser("ablation", __doc__, bias=True)
    parser.add_argument("--quiet", action="store_true", help="no progress bars")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    from ..measure.ablation import ablation_rows, format_table  # after the options: --help stays fast
    from ..measure.inputs import describe_held, labelled_analyses
    from ..learn.bands import blend_copies, fold_blends, shipped_bands
    from ..reason.solve import SolverParams

    inputs = cv_inputs(args, evidence=True)  # 11-36 read train-evidence/ for the shipped scorer's evidence
    if inputs is None:
        return 2
    topics, shapes, _ = inputs
    progress = not args.quiet
    analyses = labelled_analyses(topics, args.encoder, progress)
    with step(f"cutting each topic into copies of the {args.resize_to} split's topic shapes and of every size",
              progress):
        copies = blend_copies(analyses, shapes)
    held = copies[2]
    params = SolverParams(bias=args.bias)
    bias = f"bias {args.bias}" if args.bias is not None else "the shipped precision bias of each topic's size"
    print(f"Grouped-by-topic {args.folds}-fold CV over {plural(len(topics), 'topic')} (train + dev + sample), the "
          f"shipped kind of scorer, {bias}")
    print("\n## Whole held-out topics\n")
    with step(f"training the scorers of {args.folds} folds", progress):
        models = fold_blends(analyses, copies, args.folds, shipped_bands())
    print(format_table(ablation_rows(analyses, models, params, progress=progress)), flush=True)
    if held is not None:
        print(f"\n## Held-out topics cut to the {args.resize_to} split's topic shapes "
              f"({describe_held(held, shapes)})\n")
        print(format_table(ablation_rows(analyses, models, params, held, progress)))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
