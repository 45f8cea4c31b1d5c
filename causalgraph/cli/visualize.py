"""`python -m causalgraph.visualize`: one topic's event graph as a self-contained interactive HTML page
(see view/page.py for what it shows)."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path

from ..analysis.analyse import analyse_topic
from ..config import DEFAULT_MODEL, DEMO_DATA
from ..data import SPLITS, DataError, Topic, load_split
from ..learn.scorer import EdgeScorer, load_scorer
from ..reason.solve import SWITCHABLE, SolverParams
from ..run.batch import answer_topic
from ..view.page import render_topic
from ..run.output import check_outputs
from ..readers.base import ReaderJudgements
from ..readers.llm import EndpointError
from .common import add_reader_options, data_files, load_readers, parse_groups, run_command


def visualize_topic(topic: Topic, path: str | Path, scorer: EdgeScorer, encoder: str,
                    without: frozenset[str] = frozenset(), params: SolverParams = SolverParams(),
                    readers: tuple[ReaderJudgements, ...] = ()) -> Path:
    """Analyse, score and solve a topic (fusing the readers' judgements), then write its page."""
    analysis = analyse_topic(topic, encoder)
    readers = tuple(r.for_questions(q.qid for q in topic.questions) for r in readers)
    scores, solution = answer_topic(analysis, scorer, without, params, readers=readers)
    return render_topic(analysis, scores, solution, path, readers)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m causalgraph.visualize", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--demo", action="store_true", help="the built-in demo topic")
    source.add_argument("--data", type=Path, help="AER data folder (../shared/aer or the public repository layout)")
    parser.add_argument("--split", default="test", choices=SPLITS)
    parser.add_argument("--topic", type=int, help="topic id (required with --data)")
    parser.add_argument("--out", type=Path, help="HTML page to write (default: topicN.html)")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="trained edge scorer (joblib)")
    parser.add_argument("--without", type=parse_groups, default=frozenset(),
                        help=f"rule groups to switch off: {','.join(SWITCHABLE)}")
    add_reader_options(parser)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s: %(message)s")
    if args.data and args.topic is None:
        parser.error("give --topic with --data")
    data, split = (DEMO_DATA, "sample") if args.demo else (args.data, args.split)
    try:
        topics = load_split(data, split, None if args.topic is None else [args.topic])
        out = args.out or Path(f"topic{topics[0].topic_id}.html")
        check_outputs({"--out": out}, [*data_files(data), args.model, *args.reader_scores])
        scorer, encoder = load_scorer(args.model)
        readers = load_readers(args, data, split, topics)
    except (DataError, OSError, ValueError, EndpointError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    topic = topics[0]
    visualize_topic(topic, out, scorer, encoder, args.without, readers=readers)
    print(f"wrote {out}: topic {topic.topic_id}, {len(topic.questions)} questions")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
