"""The rule ablation: the full program against the program with each switchable rule group off, on held-out
topics of grouped-by-topic CV."""

from __future__ import annotations

from collections.abc import Sequence

from tqdm import tqdm

from ..learn.crossval import FoldResult, bootstrap_interval, held_out_edges, held_out_scores, per_copy
from ..learn.scorer import Scorer
from ..reason.groups import SWITCHABLE
from ..reason.solve import SolverParams


def ablation_rows(analyses, models: Sequence[Scorer], params: SolverParams = SolverParams(), held=None,
                  progress: bool = False) -> list[FoldResult]:
    """The full program first, then one row per switchable rule group switched off, each topic scored by its
    held-out scorer in `models` (learn.bands.fold_blends: the kind `train` ships) and answered with the
    precision bias of its size unless `params` sets one. `held`: per-topic copies scored in place of the topics
    (see crossval.resized_sets). With `progress`, a bar of the programs solved on stderr."""
    programs = {"full program": frozenset(), **{f"without {g}": frozenset({g}) for g in SWITCHABLE}}
    scored, edges = held_out_edges(analyses, models, held)
    scorers = per_copy(list(models), held)
    rows = []
    with tqdm(programs.items(), desc="solving", unit="program", disable=not progress) as bar:
        for name, without in bar:
            bar.set_description(f"solving: {name}")
            rows.append(held_out_scores(scored, edges, name, without, params, scorers))
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
