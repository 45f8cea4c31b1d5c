"""`python -m causalgraph.ablation`: the full rule program against the program with each rule group off,
cross-validated with folds grouped by topic over train + dev + sample, with topic-bootstrap 95% intervals."""

from __future__ import annotations

import argparse
import sys

from .crossval import FoldResult, bootstrap_interval, fold_scorers, held_out_scores
from .data import DataError, load_labelled
from .embed import DEFAULT_ENCODER
from .pipeline import analyse_topic
from .reason import SWITCHABLE, SolverParams


def ablation_rows(analyses, folds: int, params: SolverParams = SolverParams()) -> list[FoldResult]:
    """The full program first, then one row per switchable rule group switched off."""
    models = fold_scorers(analyses, folds)
    rows = [held_out_scores(analyses, models, "full program", frozenset(), params)]
    rows += [held_out_scores(analyses, models, f"without {g}", frozenset({g}), params) for g in SWITCHABLE]
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
    parser = argparse.ArgumentParser(prog="python -m causalgraph.ablation", description=__doc__)
    parser.add_argument("--data", required=True, help="AER data folder (../shared/aer or the public layout)")
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--encoder", default=DEFAULT_ENCODER)
    args = parser.parse_args(argv)
    try:
        topics = load_labelled(args.data)
    except (DataError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    analyses = [analyse_topic(t, args.encoder) for t in topics]
    rows = ablation_rows(analyses, args.folds)
    n = len(rows[0].scores)
    print(f"Grouped-by-topic {args.folds}-fold CV over {len(topics)} topics, {n} questions (train + dev + sample)\n")
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
