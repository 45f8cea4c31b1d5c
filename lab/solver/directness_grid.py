"""Would a directness rule group help? The rules below (a penalty per mediated chain E -> M -> T that also
picks the shortcut E -> T, and one per pair of targets sharing a chosen cause) are added to the shipped
program (`SolverParams.extra_rules`) for each point of a penalty grid, and scored with grouped-by-topic
5-fold CV over train + dev + sample at the shipped scorer's bias, on whole held-out topics and on held-out
topics cut to the test split's shapes. Grouped CV kept both penalties at 0, so the group is not part of the
shipped program.

    python -m lab.solver.directness_grid --data ../shared/aer
"""

from __future__ import annotations

from lab.common import labelled_cv, run_benchmark

from causalgraph.measure.inputs import shipped_bias
from causalgraph.learn.crossval import (
    bootstrap_interval,
    fold_scorers,
    held_out_regimes,
    held_out_scores,
)
from causalgraph.reason.solve import SolverParams

DIRECTNESS = """
% E is mediated by M when E causes M and M causes T, and all three are chosen.
mediated(E,M,T) :- cause(E,M), cause(M,T), cause(E,T), E != T, M != T, E != M.
% Each chain that also picks the shortcut E -> T costs the chain penalty.
:~ mediated(E,M,T). [{chain}@1,E,M,T]
% Every pair of targets that share a chosen cause E costs the hub penalty.
:~ cause(E,T1), cause(E,T2), T1 < T2. [{hub}@1,E,T1,T2]
"""
GRID = ((0, 0), (50, 0), (100, 0), (200, 0), (0, 25), (0, 50))


def main() -> None:
    args, analyses, _, extra, held = labelled_cv(__doc__)
    models = fold_scorers(analyses, args.folds, extra=extra)
    bias = shipped_bias()
    print(f"bias {bias}\n\n| chain penalty | hub penalty | whole held-out topics | held-out cut to test shapes "
          "|\n|---|---|---|---|")
    for chain, hub in GRID:
        params = SolverParams(bias=bias, extra_rules=(DIRECTNESS.format(chain=chain, hub=hub),))
        cells = [str(chain), str(hub)]
        for _, scored, edges in held_out_regimes(analyses, models, held):
            result = held_out_scores(scored, edges, params=params)
            low, high = bootstrap_interval(result)
            cells.append(f"{result.mean:.4f} ({low:.3f}-{high:.3f})")
        print("| " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    run_benchmark(main)
