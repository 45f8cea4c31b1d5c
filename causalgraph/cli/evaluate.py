"""`causalgraph evaluate`: the official AER score of a prediction file, with its breakdown."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass

from ..data import DataError, load_answers, load_questions, question_score
from .common import plural, prog, run_command


@dataclass(frozen=True)
class Report:
    """Mean score overall and by group; `missing` are gold ids without a prediction (they score 0)."""

    score: float
    n: int
    groups: dict[str, tuple[float, int]]
    missing: int


def score_answers(
    predicted: dict[str, frozenset[str]], gold: dict[str, frozenset[str]], offers_none: dict[str, bool]
) -> Report:
    """Score every gold question; break down by whether None is offered and by gold-set size."""
    buckets: dict[str, list[float]] = defaultdict(list)
    all_scores = []
    for qid, gold_labels in sorted(gold.items()):
        s = question_score(predicted.get(qid, frozenset()), gold_labels)
        all_scores.append(s)
        if qid in offers_none:
            buckets["offers None" if offers_none[qid] else "no None option"].append(s)
        buckets[f"gold size {len(gold_labels)}"].append(s)
    groups = {k: (sum(v) / len(v), len(v)) for k, v in sorted(buckets.items())}
    mean = sum(all_scores) / len(all_scores) if all_scores else 0.0
    return Report(mean, len(all_scores), groups, sum(1 for q in gold if q not in predicted))


def format_report(report: Report) -> str:
    lines = [f"score {report.score:.4f} over {plural(report.n, 'question')}"]
    if report.missing:
        lines.append(f"  ({plural(report.missing, 'question')} without a prediction scored 0)")
    lines += [f"  {name:<16} {s:.4f}  (n={n})" for name, (s, n) in report.groups.items()]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog("evaluate"), description=__doc__)
    parser.add_argument("--pred", required=True, help='predictions: JSONL of {"id", "answer"}, as `answer --out` writes')
    parser.add_argument("--gold", required=True, help="questions.jsonl with golden_answer, or JSONL of {id, answer}")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        predicted = load_answers(args.pred, predictions=True)
        gold = load_answers(args.gold)
        try:
            offers_none = {q.qid: q.none_label is not None for q in load_questions(args.gold)}
        except DataError:
            offers_none = {}  # a plain {id, answer} gold file has no options to inspect
    except (DataError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    unknown = sorted(set(predicted) - set(gold))
    if unknown:
        print(f"warning: {plural(len(unknown), 'predicted id')} not in the gold file, e.g. {unknown[0]}", file=sys.stderr)
    print(format_report(score_answers(predicted, gold, offers_none)))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
