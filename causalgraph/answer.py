"""`python -m causalgraph.answer`: answer every question of a split (or the built-in demo topic)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from tqdm import tqdm

from .data import DataError, Topic, load_split
from .explain import explain_question, reason_line
from .output import write_jsonl
from .pipeline import analyse_topic, answer_topic
from .reason import SWITCHABLE, SolverParams
from .scoring import EdgeScorer, load_scorer
from .train import DEFAULT_MODEL

DEMO_DATA = Path(__file__).resolve().parent / "demo"


def answer_topics(
    topics: list[Topic],
    scorer: EdgeScorer,
    encoder: str,
    without: frozenset[str] = frozenset(),
    params: SolverParams = SolverParams(),
    time_limit: float | None = None,
    progress: bool = False,
) -> list[dict]:
    """Explanation records (which carry the answers) for every question, topic by topic, in input order."""
    records = []
    for topic in tqdm(topics, desc="topics", unit="topic", disable=not progress, file=sys.stderr):
        analysis = analyse_topic(topic, encoder)
        scores, solution = answer_topic(analysis, scorer, without, params, time_limit)
        records += [explain_question(q, analysis.graph, scores, solution) for q in topic.questions]
    return records


def parse_groups(text: str) -> frozenset[str]:
    groups = frozenset(g.strip() for g in text.split(",") if g.strip())
    unknown = groups - set(SWITCHABLE)
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown rule group {sorted(unknown)[0]!r}; choose from {', '.join(SWITCHABLE)}")
    return groups


def parse_topics(text: str) -> list[int]:
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--topics takes comma-separated integers, got {text!r}") from None


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m causalgraph.answer", description=__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--demo", action="store_true", help="answer the built-in demo topic and print the reasons")
    source.add_argument("--data", type=Path, help="AER data folder (../shared/aer or the public repository layout)")
    parser.add_argument("--split", default="test", choices=("train", "dev", "sample", "test"))
    parser.add_argument("--out", type=Path, help='submission JSONL: {"id", "answer"} a line')
    parser.add_argument("--explain", type=Path, help="JSONL with each option's edge score and the rules that fired")
    parser.add_argument("--topics", type=parse_topics, help="only these topic ids, e.g. 37,38")
    parser.add_argument("--without", type=parse_groups, default=frozenset(), help=f"rule groups to switch off: {','.join(SWITCHABLE)}")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="trained edge scorer (joblib)")
    parser.add_argument("--none-prior", type=int, default=SolverParams.none_prior, help="cost of a real option where None is offered")
    parser.add_argument("--bias", type=int, default=SolverParams.bias, help="precision bias per selected label (log-odds x 100)")
    parser.add_argument("--time-limit", type=float, help="seconds of solving per topic; the best answer set so far is used")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    if not args.demo and args.out is None and args.explain is None:
        parser.error("give --out (and/or --explain) with --data")
    data, split = (DEMO_DATA, "sample") if args.demo else (args.data, args.split)
    try:
        topics = load_split(data, split, args.topics)
        scorer, encoder = load_scorer(args.model)
    except (DataError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    params = SolverParams(bias=args.bias, none_prior=args.none_prior)
    records = answer_topics(topics, scorer, encoder, args.without, params, args.time_limit, progress=not args.quiet)
    if args.out:
        write_jsonl(args.out, ({"id": r["id"], "answer": r["answer"]} for r in records))
    if args.explain:
        write_jsonl(args.explain, records)
    if args.demo:
        for topic in topics:
            print(f"Topic {topic.topic_id}: {topic.title} ({len(topic.documents)} documents)")
        for record in records:
            print(f"- {record['target']}")
            print(f"  {reason_line(record)}")
    else:
        print(f"answered {len(records)} questions of {len(topics)} topics", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
