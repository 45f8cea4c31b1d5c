"""`causalgraph evaluate`: the official AER score of a prediction file, with its breakdown."""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from ..data import DataError, load_answers, load_data, load_questions, question_score
from ..data.load import TOPIC_FILE_SUFFIXES
from .common import command_parser, parse_topics, plural, run_command


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
    """Score every question of `gold` (a missing prediction as 0); break down by whether None is offered and by
    gold-set size."""
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


def format_report(report: Report, scope: str = "") -> str:
    """The score, what it was taken over, and the breakdown."""
    lines = [f"score {report.score:.4f} over {plural(report.n, 'question')}"] + ([f"  ({scope})"] if scope else [])
    if report.missing:
        lines.append(f"  ({plural(report.missing, 'question')} without a prediction scored 0)")
    lines += [f"  {name:<16} {s:.4f}  (n={n})" for name, (s, n) in report.groups.items()]
    return "\n".join(lines)


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser("evaluate", __doc__)
    parser.add_argument("--pred", required=True,
                        help='predictions: JSONL of {"id", "answer"}, as `answer --out` writes')
    parser.add_argument("--gold", required=True, type=Path,
                        help="questions.jsonl with golden_answer, JSONL of {id, answer}, or your own topics with "
                             "golden_answer (a folder holding questions.jsonl, or a .json/.yaml topic file)")
    scope = parser.add_mutually_exclusive_group()
    scope.add_argument("--topics", type=parse_topics,
                       help="score the gold questions of these topics, a missing prediction as 0 (default: only the "
                            "questions that have a prediction)")
    scope.add_argument("--all", action="store_true", help="score every gold question, a missing prediction as 0")
    return parser


@dataclass(frozen=True)
class Gold:
    """The gold answers of a file; where it has the questions themselves, whether each offers None and its topic
    (a plain {id, answer} file has neither), and how many of its questions have no golden_answer."""

    answers: dict[str, frozenset[str]]
    offers_none: dict[str, bool]
    topic_of: dict[str, int]
    unlabelled: int = 0


def read_gold(path: Path) -> Gold:
    """The gold of `path`: questions (a topic folder or file, or a questions.jsonl), of which those with a
    golden_answer, or plain {id, answer} lines."""
    if path.is_dir() or path.suffix in TOPIC_FILE_SUFFIXES:
        questions = [q for t in load_data(path) for q in t.questions]
    else:
        try:
            questions = load_questions(path)
        except DataError:  # a plain {id, answer} gold file has no options or topics to inspect
            return Gold(load_answers(path), {}, {})
    labelled = [q for q in questions if q.gold is not None]
    if not labelled:
        raise DataError(path, None, "no question with a golden_answer")
    return Gold({q.qid: q.gold for q in labelled if q.gold is not None},
                {q.qid: q.none_label is not None for q in labelled},
                {q.qid: q.topic_id for q in labelled}, len(questions) - len(labelled))


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        predicted = load_answers(args.pred, predictions=True)
        read = read_gold(args.gold)
        gold, offers_none, topic_of = read.answers, read.offers_none, read.topic_of
        if args.topics and not topic_of:
            raise DataError(args.gold, None,
                            "--topics needs the gold questions with their topic ids (a questions.jsonl "
                                             "or a topic folder or file), not {id, answer} lines")
    except (DataError, OSError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    unknown = sorted(set(predicted) - set(gold))
    if unknown:
        print(f"warning: {plural(len(unknown), 'predicted id')} not in the gold file, e.g. {unknown[0]}",
              file=sys.stderr)
    every = "every question of the gold file" + " with a golden_answer" * bool(read.unlabelled)
    if args.all:
        scored, scope = gold, every
    elif args.topics:
        missing = args.topics.first_missing(set(topic_of.values()))
        if missing is not None:
            print(f"error: {args.gold}: no question of topic {missing}", file=sys.stderr)
            return 2
        scored = {q: g for q, g in gold.items() if topic_of[q] in args.topics}
        several = len(args.topics.ranges) > 1 or args.topics.ranges[0][0] != args.topics.ranges[0][1]
        scope = f"the gold questions of topic{'s' if several else ''} {args.topics}"
    else:
        scored = {q: g for q, g in gold.items() if q in predicted}
        scope = (every if len(scored) == len(gold) else
                 f"only the questions that have a prediction: {len(scored):,} of {len(gold):,} in the gold file; --all "
                 "scores the others as 0, --topics the questions of chosen topics")
    if read.unlabelled:
        scope += f"; {plural(read.unlabelled, 'question')} of the gold file without a golden_answer not scored"
    if not scored:
        print(f"error: {args.pred}: no prediction for any question of {args.gold}", file=sys.stderr)
        return 2
    print(format_report(score_answers(predicted, scored, offers_none), scope))
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
