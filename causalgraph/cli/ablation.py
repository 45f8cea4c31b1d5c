"""`python -m causalgraph.ablation`: the full rule program against the program with each rule group off,
cross-validated with folds grouped by topic over train + dev + sample, with topic-bootstrap 95% intervals."""

from __future__ import annotations

import sys

from ..learn.crossval import FoldResult, bootstrap_interval, fold_scorers, held_out_edges, held_out_scores, resized_sets
from ..reason.solve import SWITCHABLE, SolverParams
from .common import cv_inputs, cv_parser, describe_held, labelled_analyses, run_command


def ablation_rows(analyses, folds: int, params: SolverParams = SolverParams(), extra=None, held=None) -> list[FoldResult]:
    """The full program first, then one row per switchable rule group switched off. `extra` and `held` are
    per-topic copies added to training and scored in place of the topics (see crossval.resized_sets)."""
    scored, edges = held_out_edges(analyses, fold_scorers(analyses, folds, extra=extra), held)
    rows = [held_out_scores(scored, edges, "full program", frozenset(), params)]
    rows += [held_out_scores(scored, edges, f"without {g}", frozenset({g}), params) for g in SWITCHABLE]
    return rows


def format_table(rows: list[FoldResult]) -> str:
    full = rows[0].mean
    lines = ["| program | score | 95% CI | vs full |", "|---|---|---|---|"]
    for row in rows:
        low, high = bootstrap_interval(row)
        delta = "" if row is rows[0] else f"{row.mean - full:+.4f}"
        lines.append(f"| {row.name} | {row.mean:.4f} | {low:.3f}-{high:.3f} | {delta} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = cv_parser("python -m causalgraph.ablation", __doc__, bias=True)
    args = parser.parse_args(argv)
    inputs = cv_inputs(args)
    if inputs is None:
        return 2
    topics, shapes = inputs
    analyses = labelled_analyses(topics, args.encoder)
    extra, held = resized_sets(analyses, shapes)
    params = SolverParams(bias=args.bias)
    print(f"Grouped-by-topic {args.folds}-fold CV over {len(topics)} topics (train + dev + sample), bias {args.bias}")
    print("\n## Whole held-out topics\n")
    print(format_table(ablation_rows(analyses, args.folds, params, extra)))
    if shapes:
        print(f"\n## Held-out topics cut to the {args.resize_to} split's topic shapes ({describe_held(held, shapes)})\n")
        print(format_table(ablation_rows(analyses, args.folds, params, extra, held)))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
