"""Whether a question's confidence (the cost of the best answer set that answers it otherwise, less the
optimum's: reason/solve.py Confidence) orders right answers above wrong ones, and how forced guesses score, on
held-out topics of grouped-by-topic CV."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.metrics import roc_auc_score

from causalgraph.data import question_score
from causalgraph.learn.scorer import Scorer, with_scorer_bias
from causalgraph.reason.solve import SolverParams, solve_analysis


@dataclass(frozen=True)
class ConfidenceResult:
    """Per held-out question: its official score, its confidence key (infinite where a prior or the rules
    decide) and whether its answer is a forced guess."""

    name: str
    scores: np.ndarray
    keys: np.ndarray
    guesses: np.ndarray

    def auc(self, evidence_only: bool = False) -> float:
        """AUC of the confidence key for the exactly right answers against the others (infinite keys rank
        above every finite one); with `evidence_only`, among the answers with a finite key alone, which the
        evidence decides (a prior read off the labelled data is right on them by construction)."""
        finite = np.isfinite(self.keys)
        keep = finite if evidence_only else np.ones_like(finite)
        right = self.scores[keep] == 1.0
        if right.all() or not right.any():
            return float("nan")
        top = (self.keys[finite].max() if finite.any() else 0.0) + 1.0
        return float(roc_auc_score(right, np.where(finite, self.keys, top)[keep]))

    def groups(self) -> dict[str, np.ndarray]:
        """Masks of the questions by confidence: a prior or the rules decide; a level-1 margin above the median
        of the finite ones; at or below it. And the forced guesses, and the other answers."""
        finite = np.isfinite(self.keys)
        median = float(np.median(self.keys[finite])) if finite.any() else 0.0
        return {"a prior or the rules decide": ~finite, f"margin above {median:g}": finite & (self.keys > median),
                f"margin {median:g} or less": finite & (self.keys <= median), "forced guesses": self.guesses,
                "not forced guesses": ~self.guesses}


def held_out_confidence(name: str, analyses, edges, params: SolverParams = SolverParams(),
                        scorers: list[Scorer] | None = None) -> ConfidenceResult:
    """Solve each held-out topic with its held-out edge scores, explanations and confidence included; where
    `params` sets no precision bias, each topic takes that of its scorer in `scorers` for its size."""
    scores, keys, guesses = [], [], []
    for i, (analysis, e) in enumerate(zip(analyses, edges)):
        topic_params = with_scorer_bias(params, scorers[i], len(analysis.topic.questions)) if scorers else params
        solution = solve_analysis(analysis, e, params=topic_params, explain=True)
        for q in analysis.topic.questions:
            scores.append(question_score(solution.answers[q.qid], q.gold or frozenset()))
            keys.append(solution.confidence[q.qid].key())
            guesses.append(q.qid in solution.guesses)
    return ConfidenceResult(name, np.array(scores), np.array(keys, dtype=float), np.array(guesses, dtype=bool))


def format_confidence(results: list[ConfidenceResult]) -> str:
    """A markdown table per regime: the AUC, then the mean score and count of each confidence group."""
    lines = []
    for r in results:
        lines += [f"{r.name}: {len(r.scores)} questions, mean score {r.scores.mean():.4f}; AUC of the confidence for "
                  f"the exactly right answers against the others: {r.auc():.3f}, and among the answers the evidence "
                  f"decides (a finite margin): {r.auc(evidence_only=True):.3f}", "",
                  "| questions | n | share | mean score | exactly right |", "|---|---|---|---|---|"]
        for group, mask in r.groups().items():
            n = int(mask.sum())
            mean = f"{r.scores[mask].mean():.4f}" if n else "-"
            right = f"{(r.scores[mask] == 1.0).mean():.1%}" if n else "-"
            lines.append(f"| {group} | {n} | {n / len(r.scores):.1%} | {mean} | {right} |")
        lines.append("")
    return "\n".join(lines)
