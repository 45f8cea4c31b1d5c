"""Does a question's confidence order right answers above wrong ones? Each question's confidence is the cost
of the best answer set that answers it otherwise, less the optimum's (rules/confidence.lp; infinite where the
None prior or the rules allow no other answer). Grouped-by-topic 5-fold CV over train + dev + sample with the
shipped scorer's bias, on whole held-out topics and on held-out topics cut to the test split's shapes: the AUC
of the confidence for the exactly right answers against the others, and the mean score of each confidence
group and of the forced guesses.

    python benchmarks/confidence.py --data ../shared/aer
"""

from __future__ import annotations

from labelled import labelled_cv

from causalgraph.experiments.confidence import format_confidence, held_out_confidence
from causalgraph.experiments.inputs import shipped_bias
from causalgraph.learn.crossval import fold_scorers, held_out_regimes
from causalgraph.reason.solve import SolverParams


def main() -> None:
    args, analyses, _, extra, held = labelled_cv(__doc__, documents=False)
    models = fold_scorers(analyses, args.folds, extra=extra)
    params = SolverParams(bias=shipped_bias())
    results = [held_out_confidence(f"{regime} (bias {params.bias})", scored, edges, params)
               for regime, scored, edges in held_out_regimes(analyses, models, held)]
    print(format_confidence(results))


if __name__ == "__main__":
    main()
