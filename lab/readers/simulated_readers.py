"""Fused score against reader accuracy. A simulated reader copies the gold labels and flips each option's
verdict with probability 1 - accuracy (independently per option, so its errors are not the hard questions'
errors of a real system); the real readers are in real_readers.py, and this is the second check. It is fused with the
edge scorer inside the answer set program (rules/readers.lp) under grouped-by-topic 5-fold CV over train + dev + sample:
the edge scores of each topic come from a scorer that did not see it, and the reader weight is chosen in each outer fold
by the score on its training topics. Reported on whole held-out topics and on held-out topics cut to the test split's
shapes, with the reader's own score (its hard answers as they are; an empty answer scores 0) and the structure model's
without it.

    python -m lab.readers.simulated_readers --data ../shared/aer
"""

from __future__ import annotations

import random

import numpy as np

from lab.common import labelled_cv, print_table, run_benchmark

from causalgraph.measure.inputs import shipped_bias
from causalgraph.data import LABELS, question_score
from causalgraph.learn.crossval import fold_scorers, held_out_regimes
from causalgraph.measure.fusion import READER_WEIGHTS as WEIGHTS, nested_choice, question_topics, scores_by_weight
from causalgraph.measure.calibration import answered_sets, fused_scores, without_gold
from causalgraph.readers.base import Judgement, ReaderJudgements

ACCURACIES = (0.6, 0.7, 0.8, 0.9, 0.95)
SEEDS = (0, 1, 2)


def simulated_reader(questions, accuracy: float, seed: int) -> dict[tuple[str, str], Judgement]:
    """Hard verdicts on every label: gold membership, flipped with probability 1 - accuracy."""
    rng = random.Random(f"{seed}-{accuracy}")
    return {(q.qid, label): Judgement(verdict=(label in q.gold) != (rng.random() > accuracy))
            for q in sorted(questions, key=lambda q: q.qid) for label in LABELS}


def main() -> None:
    args, analyses, _, extra, held = labelled_cv(__doc__, documents=False)
    models = fold_scorers(analyses, args.folds, extra=extra)
    bias = shipped_bias()
    questions = [q for a in analyses for q in a.topic.questions]
    judged = {q.qid for q in questions}
    print(f"bias {bias}; weights {WEIGHTS} (percent of a hard verdict's log-odds {Judgement(verdict=True).log_odds()});"
          f" seeds {SEEDS}\n")
    names = {"whole": "whole held-out topics", "test-shaped": "held-out topics cut to test shapes"}
    for name, scored, edges in held_out_regimes(analyses, models, held):
        regime = names[name]
        topics = question_topics(scored)
        structure = scores_by_weight(scored, edges, {}, bias)[0].mean()
        print(f"## {regime}: structure model alone {structure:.4f}\n")
        print("| reader accuracy per option | reader alone | fused, weight chosen by nested CV | fused, calibrated "
              "without gold (the default) | weights chosen (per outer fold, per seed) |")
        print("|---|---|---|---|---|")
        runs = answered_sets(scored, edges)
        by_weight = {}
        for accuracy in ACCURACIES:
            alone, fused, free, weights = [], [], [], []
            for seed in SEEDS:
                judgements = simulated_reader(questions, accuracy, seed)
                alone.append(np.mean([question_score(frozenset(l for l in LABELS if judgements[(q.qid, l)].verdict),
                                                     q.gold)
                                      for a in scored for q in a.topic.questions]))
                scores = scores_by_weight(scored, edges, judgements, bias)
                by_weight[accuracy] = [by_weight.get(accuracy, [0] * len(WEIGHTS))[i] + scores[w].mean() / len(SEEDS)
                                       for i, w in enumerate(WEIGHTS)]
                mean, chosen = nested_choice(scores, topics, args.folds)
                fused.append(mean)
                reader = ReaderJudgements("simulated", judgements)
                free.append(fused_scores(runs, without_gold([reader], runs), bias, args.folds, judged)[0].mean())
                weights.append(chosen)
            print(f"| {accuracy:.0%} | {np.mean(alone):.4f} | {np.mean(fused):.4f} | {np.mean(free):.4f} | {weights} |",
                  flush=True)
        print(f"\nMean fused score by fixed weight ({regime}, mean of the seeds)\n")
        print_table("reader accuracy per option", [f"weight {w}" for w in WEIGHTS],
                    [(f"{accuracy:.0%}", means) for accuracy, means in by_weight.items()])
        print()


if __name__ == "__main__":
    run_benchmark(main)
