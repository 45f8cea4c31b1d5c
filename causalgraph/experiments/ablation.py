"""The rule ablation: the full program against the program with each switchable rule group off, on held-out
topics of grouped-by-topic CV."""

from __future__ import annotations

from tqdm import tqdm

from ..learn.crossval import FoldResult, bootstrap_interval, fold_scorers, held_out_edges, held_out_scores
from ..reason.solve import SWITCHABLE, SolverParams


def ablation_rows(analyses, folds: int, params: SolverParams = SolverParams(), extra=None, held=None,
                  progress: bool = False) -> list[FoldResult]:
    """The full program first, then one row per switchable rule group switched off. `extra` and `held` are
    per-topic copies added to training and scored in place of the topics (see crossval.resized_sets). With
    `progress`, a bar of the steps (training the fold scorers, then solving under each program) on stderr."""
    programs = {"full program": frozenset(), **{f"without {g}": frozenset({g}) for g in SWITCHABLE}}
    rows = []
    with tqdm(total=1 + len(programs), desc=f"training the scorers of {folds} folds", unit="step",
              disable=not progress) as bar:
        scored, edges = held_out_edges(analyses, fold_scorers(analyses, folds, extra=extra), held)
        for name, without in programs.items():
            bar.update()
            bar.set_description(f"solving: {name}")
            rows.append(held_out_scores(scored, edges, name, without, params))
        bar.update()
    return rows


def format_table(rows: list[FoldResult]) -> str:
    """A markdown table: each program's score, its topic-bootstrap 95% interval and its change from the first row."""
    full = rows[0].mean
    lines = ["| program | score | 95% CI | vs full |", "|---|---|---|---|"]
    for row in rows:
        low, high = bootstrap_interval(row)
        delta = "" if row is rows[0] else f"{row.mean - full:+.4f}"
        lines.append(f"| {row.name} | {row.mean:.4f} | {low:.3f}-{high:.3f} | {delta} |")
    return "\n".join(lines)
