"""Does a question's confidence order right answers above wrong ones? Each question's confidence is the cost
of the best answer set that answers it otherwise, less the optimum's (rules/confidence.lp; infinite where the
None prior or the rules allow no other answer). Grouped-by-topic 5-fold CV over train + dev + sample (topics
11-36 read train-evidence/) with the kind of scorer `train` ships (the size blend fitted per fold, the shipped
bands, the bias of each topic's size), on whole held-out topics and on held-out topics cut to the test split's
shapes: the AUC
of the confidence for the exactly right answers against the others, and the mean score of each confidence
group and of the forced guesses.

    python -m lab.solver.confidence --data ../shared/aer
"""

from __future__ import annotations

from lab.common import labelled_cv, run_benchmark

from lab.solver.confidence_cv import format_confidence, held_out_confidence
from causalgraph.learn.bands import blend_copies, fold_blends, shipped_bands
from causalgraph.learn.crossval import held_out_regimes, per_copy


def main() -> None:
    args, analyses, shapes, _, _ = labelled_cv(__doc__, evidence=True)
    copies = blend_copies(analyses, shapes)
    models = fold_blends(analyses, copies, args.folds, shipped_bands())
    held = copies[2]
    scorers = {"whole": models, "test-shaped": per_copy(models, held)}
    results = [held_out_confidence(f"{regime} (the bias of each topic's size)", scored, edges, scorers=scorers[regime])
               for regime, scored, edges in held_out_regimes(analyses, models, held)]
    print(format_confidence(results))


if __name__ == "__main__":
    run_benchmark(main)
