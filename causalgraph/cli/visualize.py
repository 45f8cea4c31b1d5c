"""`causalgraph visualize`: one topic's event graph as a self-contained interactive HTML page, to open in a
browser (nothing is fetched from the network). Events are nodes (targets as boxes); an edge is a candidate
cause, coloured and sized by its edge score; the chosen causes glow green and edges a rule excluded are dashed.
Hovering shows texts, scores, rule atoms and evidence sentences; picking a question highlights its target and
options and shows, for each option, its score and what decided it."""

from __future__ import annotations

import argparse
import logging
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from ..config import DEFAULT_MODEL, DEMO_DATA
from ..data import SPLITS, DataError, Topic, load_data
from ..reason.groups import SWITCHABLE
from .common import (ENVIRONMENT_ERRORS, USER_ERRORS, add_document_chars_option, add_priors_option, add_reader_options,
                     at_least, check_reader_options, check_run_outputs, command_parser, error_line, load_readers,
                     log_warnings, parse_groups, parse_topics, plural, resolved_priors, run_command)

log = logging.getLogger(__name__)

if TYPE_CHECKING:  # the solver and the models load only once the options are read
    from ..api import Reasoner


def visualize_topic(reasoner: Reasoner, topic: Topic, path: str | Path, progress: bool = False) -> Path:
    """Analyse the topic once (its documents read where the scorer uses them, as the shipped one does: the page
    shows their evidence), weigh the reasoner's readers on it (without gold unless the reasoner has
    calibrations), score and solve it, then write its page; with `progress`, a bar of the two steps on stderr."""
    from ..view.page import render_topic

    with tqdm(total=2, desc="analysing, scoring and solving", unit="step", disable=not progress,
              file=sys.stderr) as bar:
        solved = reasoner.run([topic]).solve()
        bar.update()
        bar.set_description("writing the page")
        page = render_topic(solved.analysis, solved.probabilities, solved.solution, path, solved.readers,
                            solved.evidence)
        bar.update()
    return page


# Characters of a topic's documents, all together, that the page reads by default: three times those of the
# largest topic of the AER data (166,968); the page of 500,000 of them took 58 s and 0.75 GB on one core (issue
# 25's note). Each document is first cut at --max-document-chars, as `answer` cuts it.
PAGE_TOPIC_CHARS = 500_000


def capped(topic: Topic, most: int) -> Topic:
    """The topic with its documents cut to their first `most` characters (whole documents, in order, then the
    start of the one that crosses the mark), with a warning that says so; the topic itself where they fit."""
    total = sum(len(d.content) for d in topic.documents)
    if total <= most:
        return topic
    kept, left = [], most
    for doc in topic.documents:
        if left <= 0:
            break
        kept.append(doc if len(doc.content) <= left else replace(doc, content=doc.content[:left]))
        left -= len(kept[-1].content)
    log.warning("topic %s: its %s documents hold %s characters; the page reads the first %s of them, in %s "
                "(--max-topic-chars)", topic.topic_id, f"{len(topic.documents):,}", f"{total:,}", f"{most:,}",
                plural(len(kept), "document"))
    return replace(topic, documents=kept)


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser("visualize", __doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--demo", action="store_true", help="the built-in demo topic")
    source.add_argument("--data", type=Path, metavar="PATH",
                        help="your own topics (a folder holding questions.jsonl, or a .json/.yaml topic file), or an "
                             "AER data folder with splits")
    parser.add_argument("--split", choices=SPLITS,
                        help="the split of an AER data folder holding --topics (default test)")
    parser.add_argument("--topics", type=parse_topics, metavar="ID",
                        help="the topic to draw, as answer's --topics names topics (required where --data holds "
                             "several)")
    parser.add_argument("--out", type=Path, help="HTML page to write (default: topicN.html)")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="trained edge scorer (joblib)")
    add_document_chars_option(parser)
    parser.add_argument("--max-topic-chars", type=at_least(0), default=PAGE_TOPIC_CHARS, metavar="N",
                        help=f"characters of the topic's documents, all together, that the page analyses (default "
                             f"{PAGE_TOPIC_CHARS:,}, about a minute of analysis; the rest is left out, with a warning)")
    add_priors_option(parser)
    parser.add_argument("--without", type=parse_groups, default=frozenset(),
                        help=f"rule groups to switch off: {','.join(SWITCHABLE)}")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_reader_options(parser)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    log_warnings()
    check_reader_options(parser, args)
    data, split = (DEMO_DATA, "sample") if args.demo else (args.data, args.split)
    try:
        topics = load_data(data, split, args.topics, args.max_document_chars)
        if len(topics) > 1:
            raise DataError(data, None, f"holds {len(topics)} topics; choose one with --topics "
                                        f"({', '.join(str(t.topic_id) for t in topics[:10])}"
                                        f"{', ...' if len(topics) > 10 else ''})")
        out = args.out or Path(f"topic{topics[0].topic_id}.html")
        check_run_outputs(args, {"--out": out})
        from ..api import Reasoner

        reasoner = Reasoner.load(args.model, args.without, reader_weight=args.reader_weight,
                                 reader_calibration=args.reader_calibration, priors=resolved_priors(args, topics))
        readers = load_readers(args, topics)
    except (*USER_ERRORS, *ENVIRONMENT_ERRORS) as err:
        print(f"error: {error_line(err)}", file=sys.stderr)
        return 2
    topic = capped(topics[0], args.max_topic_chars)
    try:
        visualize_topic(reasoner.with_readers(readers), topic, out, progress=not args.quiet)
    except OSError as err:  # a full disk, say: write_files leaves no half-written page
        print(f"error: --out {out}: {err.strerror or err}; no page written", file=sys.stderr)
        return 2
    except (*USER_ERRORS, *ENVIRONMENT_ERRORS) as err:
        print(f"error: {error_line(err)}", file=sys.stderr)
        return 2
    print(f"wrote {out}: topic {topic.topic_id}, {plural(len(topic.questions), 'question')}")
    return 0


if __name__ == "__main__":
    sys.exit(run_command(main))
