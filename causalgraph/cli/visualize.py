"""`causalgraph visualize`: one topic's event graph as a self-contained interactive HTML page
(see view/page.py for what it shows)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tqdm import tqdm

from ..analysis.analyse import analyse_topic
from ..config import DEFAULT_MODEL, DEMO_DATA
from ..data import SPLITS, DataError, Topic, data_files, load_split
from ..learn.calibration import load_calibrations, match_calibrations
from ..learn.scorer import EdgeScorer, load_scorer
from ..readers.base import ReaderJudgements
from ..readers.llm import EndpointError
from ..reason.solve import SWITCHABLE, SolverParams
from ..run.batch import Settings, answer_topic
from ..run.calibrate import calibrated_settings
from ..run.output import check_outputs
from ..view.page import render_topic
from .common import add_reader_options, check_reader_options, load_readers, reader_inputs, parse_groups, plural, prog, log_warnings, run_command


def visualize_topic(topic: Topic, path: str | Path, scorer: EdgeScorer, encoder: str,
                    without: frozenset[str] = frozenset(), params: SolverParams = SolverParams(),
                    readers: tuple[ReaderJudgements, ...] = (), progress: bool = False) -> Path:
    """Analyse (documents read: the page shows their evidence), score and solve a topic (fusing the readers'
    judgements), then write its page; with `progress`, a bar of the three steps on stderr."""
    readers = tuple(r.for_questions(q.qid for q in topic.questions) for r in readers)
    with tqdm(total=3, desc="analysing", unit="step", disable=not progress, file=sys.stderr) as bar:
        analysis = analyse_topic(topic, encoder)
        bar.update()
        bar.set_description("scoring and solving")
        probabilities, solution = answer_topic(analysis, scorer, without, params, readers=readers)
        bar.update()
        bar.set_description("writing the page")
        page = render_topic(analysis, probabilities, solution, path, readers)
        bar.update()
    return page


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog("visualize"), description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--demo", action="store_true", help="the built-in demo topic")
    source.add_argument("--data", type=Path, help="AER data folder (../shared/aer or the public repository layout)")
    parser.add_argument("--split", default="test", choices=SPLITS, help="the split of --data holding --topic (default test)")
    parser.add_argument("--topic", type=int, help="topic id (required with --data)")
    parser.add_argument("--out", type=Path, help="HTML page to write (default: topicN.html)")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="trained edge scorer (joblib)")
    parser.add_argument("--without", type=parse_groups, default=frozenset(),
                        help=f"rule groups to switch off: {','.join(SWITCHABLE)}")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_reader_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    log_warnings()
    if args.data and args.topic is None:
        parser.error("give --topic with --data")
    check_reader_options(parser, args)
    data, split = (DEMO_DATA, "sample") if args.demo else (args.data, args.split)
    try:
        topics = load_split(data, split, None if args.topic is None else [args.topic])
        out = args.out or Path(f"topic{topics[0].topic_id}.html")
        check_outputs({"--out": out}, [*data_files(data), args.model, *args.reader_scores, *reader_inputs(args)])
        scorer, encoder = load_scorer(args.model)
        readers = load_readers(args, data, split, topics)
    except (DataError, OSError, ValueError, EndpointError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    topic = topics[0]
    try:  # weighed on this topic alone, without gold unless a calibration file is given
        calibrations = args.reader_calibration and match_calibrations(readers, load_calibrations(args.reader_calibration),
                                                                      args.reader_calibration)
        readers = calibrated_settings(topics, Settings(args.model.resolve(), readers=readers), args.reader_weight,
                                      calibrations).readers
    except DataError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    visualize_topic(topic, out, scorer, encoder, args.without, readers=readers, progress=not args.quiet)
    print(f"wrote {out}: topic {topic.topic_id}, {plural(len(topic.questions), 'question')}")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
