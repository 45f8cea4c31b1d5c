"""`causalgraph answer`: answer every question of your own topics, of a split of the AER data, or of the built-in
demo topic; without --out, print each answer and what decided each option."""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from tqdm import tqdm

from ..config import DEFAULT_MODEL, DEMO_DATA, StoreError, default_cache_dir
from ..data import SPLITS, Topic, load_data, question_score
from ..data.files import write_files
from ..data.records import escaped
from ..reason.groups import SWITCHABLE
from ..run.output import jsonl
from ..run.parallel import PARALLEL_CHARS, SCHEDULERS, Outcome
from .common import (BUG_EXIT, add_document_chars_option, add_priors_option,
                     add_reader_options, check_reader_options, check_run_outputs, command_parser, encoder_store_for,
                     error_line, is_bug, load_readers, log_warnings, parse_groups, parse_topics, plural, positive,
                     resolved_priors,
                     run_command, weight)

if TYPE_CHECKING:  # the solver, the models and what they answer load only once the options are read
    from ..run.batch import Answer, TopicAnswer
    from ..run.pipeline import Run


def workers_option(text: str) -> int | str:
    """--workers: a number of processes, or 'auto'."""
    return text if text == "auto" else positive(int)(text)


def build_parser() -> argparse.ArgumentParser:
    parser = command_parser("answer", __doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--demo", action="store_true",
                        help="answer the built-in demo topic and print each question, its options, the answer and its "
                             "score")
    source.add_argument("--data", type=Path, metavar="PATH",
                        help="your own topics: a folder holding questions.jsonl (and docs.json), one .json/.yaml file "
                             "of documents and questions, or a folder of such folders and files; or an AER data folder "
                             "with splits (../shared/aer or the public repository layout)")
    parser.add_argument("--split", choices=SPLITS, help="the split of an AER data folder to answer (default test)")
    parser.add_argument("--out", type=Path,
                        help='submission JSONL: {"id", "answer"} a line; without it, the answers are '
                             "printed with what decided each option")
    parser.add_argument("--explain", type=Path, help="JSONL with each option's edge score and the rules that fired")
    parser.add_argument("--topics", type=parse_topics, help="only these topic ids, e.g. 37,40-42")
    add_document_chars_option(parser)
    parser.add_argument("--without", type=parse_groups, default=frozenset(),
                        help=f"rule groups to switch off: {','.join(SWITCHABLE)}")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="trained edge scorer (joblib)")
    add_priors_option(parser)
    parser.add_argument("--none-prior", type=weight,
                        help="cost of a real option where None is offered, weighed against the "
                             "edge log-odds x 100; default: a priority level above all edge evidence")
    parser.add_argument("--bias", type=weight,
                        help="precision bias per selected label (log-odds x 100); default: the model's")
    parser.add_argument("--time-limit", type=positive(float),
                        help="seconds of solving per topic, all its searches together; "
                             "the best answer set found by then is used; it bounds the LLM reader too (--llm-timeout)")
    parser.add_argument("--workers", type=workers_option, default="auto",
                        help="topics answered in parallel (processes); 'auto' (default): two where at least two topics "
                             f"must be analysed and their documents hold {PARALLEL_CHARS:,} characters or more, else "
                             "one")
    parser.add_argument("--scheduler", choices=SCHEDULERS, default="local", help="local processes, or a Dask cluster")
    parser.add_argument("--dask-address", help="scheduler address of a running Dask cluster (implies --scheduler dask)")
    parser.add_argument("--keep-going", action="store_true",
                        help="write the answers of the other topics when one fails")
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir(),
                        help="per-topic analysis cache (default $CAUSALGRAPH_CACHE or ~/.cache/causalgraph)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the analysis cache (an encoder "
                        "that must be unpacked goes to a temporary folder removed at exit)")
    parser.add_argument("--timings", type=Path, help="JSON with the seconds of each stage per topic")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_reader_options(parser)
    return parser


def run_topics(run: Run, args: argparse.Namespace) -> tuple[list[TopicAnswer], list[Outcome]]:
    """Answers of the run's topics in input order and the outcomes of the topics that failed (their `value`: the
    topic id); without --keep-going, stop at the first failure, and with it at one that every topic would meet
    (StoreError)."""
    answers, failures = [], []
    scheduler = "dask" if args.dask_address else args.scheduler
    workers = run.auto_workers() if args.workers == "auto" else args.workers
    outcomes = run.outcomes(workers, scheduler, args.dask_address)
    bar = tqdm(total=len(run.topics), desc="topics", unit="topic", disable=args.quiet, file=sys.stderr)
    with closing(outcomes), bar:
        for topic, outcome in zip(run.topics, outcomes):
            bar.update()
            outcome.replay_logs()
            if outcome.error is None:
                answers.append(outcome.value)
                continue
            failures.append(replace(outcome, value=topic.topic_id))
            if not args.keep_going or isinstance(outcome.error, StoreError):
                break
    return answers, failures


def report_failure(failure: Outcome, debug: bool, then: str = "") -> None:
    """A failed topic on stderr: "error: topic N: " and common.error_line (and `then`), after its traceback
    under --debug."""
    assert failure.error is not None
    if debug and failure.trace:
        print(failure.trace.rstrip(), file=sys.stderr)
    print(f"error: topic {failure.value}: {escaped(error_line(failure.error))}{then}", file=sys.stderr)


def timings(answers: list[TopicAnswer], topics: list[Topic], load: float, total: float) -> str:
    """The --timings file: seconds of loading, in all, and of each stage per topic."""
    sizes = {t.topic_id: (len(t.documents), len(t.questions)) for t in topics}
    rows = [
        {"topic_id": a.topic_id, "documents": sizes[a.topic_id][0], "questions": sizes[a.topic_id][1],
         "cached": a.cached, **a.seconds}
        for a in answers
    ]
    return json.dumps({"load": load, "total": total, "topics": rows}, indent=1) + "\n"


def summary(answers: list[TopicAnswer], topics: int, seconds: float,
            readers: tuple[float, float, int] | None = None) -> str:
    """The run's line: questions and topics answered, the seconds in all and of each stage, and where there are
    readers (`readers`: the seconds of their judging and of their weighing, and the analyses made while they
    were weighed) those too; the analyses read from the cache that this run did not make."""
    from ..analysis.analyse import ANALYSIS_STAGES
    from ..run.batch import STAGES

    questions = sum(len(a.answers) for a in answers)
    total = lambda names: [f"{stage} {sum(a.seconds[stage] for a in answers):.1f} s" for stage in names]
    analysis, *rest = total(STAGES)
    judging, weighing, fresh = readers or (0.0, 0.0, 0)
    weighed = [f"readers {judging:.1f} s", f"weighing them {weighing:.1f} s ({plural(fresh, 'analysis', 'analyses')} "
               "made for it)"] if readers else []
    stages = ", ".join([*weighed, f"{analysis} ({', '.join(total(ANALYSIS_STAGES))})", *rest])
    cached = sum(a.cached for a in answers)
    return (
        f"answered {plural(questions, 'question')} ({len(answers)} of {plural(topics, 'topic')}) in {seconds:.1f} s "
        f"({stages}; {plural(cached, 'analysis', 'analyses')} from the cache)"
    )


def reader_words(reader: dict) -> str:
    """A reader's judgement of an option (its explanation record) and what it adds to choosing the option."""
    from ..reason.explain import judged_words, reader_adds

    return f"{reader['reader']} {judged_words(reader)} ({reader_adds(reader):+d})"


def readable_report(topics: list[Topic], answers: list[Answer]) -> str:
    """How far fusion trusts each reader, then each topic and each question: its target, its options' texts with
    the edge scorer's probability, a sentence on what decided each and the readers' judgements, the answer
    (marked where it is a forced guess, with its confidence) and, where the gold answer is known, the gold
    answer and the official score."""
    from ..reason.explain import answer_flags, evidence_line

    questions = {q.qid: q for t in topics for q in t.questions}
    titles = {t.topic_id: f"Topic {t.topic_id}{': ' + t.title if t.title else ''} "
                          f"({plural(len(t.documents), 'document')})"
              for t in topics}
    legend = ("p: the edge scorer's probability that the option directly caused the target; * marks the options "
              "chosen; readers: each reader's judgement and what it adds to choosing the option; evidence, the "
              "precision bias and margins are in log-odds x 100")
    trusted = {r["reader"]: r["reliability"] for a in answers for o in a.explanation["options"].values()
               for r in o.get("readers", [])}
    trust = [f"reader {name}: {reliability}" for name, reliability in trusted.items()]
    lines: list[str] = []
    question_scores = []
    shown_topic = None
    for answer in answers:
        question, record = questions[answer.qid], answer.explanation
        if question.topic_id != shown_topic:
            shown_topic = question.topic_id
            lines += [*([""] if lines else []), titles[question.topic_id], *([] if lines else [legend, *trust])]
        lines += ["", f"- {answer.qid}: what directly caused \"{question.target}\"?"]
        for label, option in record["options"].items():
            p = "     -" if option.get("score") is None else f"p={option['score']:.2f}"
            lines.append(f"  {'*' if option['selected'] else ' '} {label}  {p}  {option['text']}")
            lines.append(f"               {option['why']}")
            if option.get("readers"):
                lines.append("               readers: " + ", ".join(reader_words(r) for r in option["readers"]))
            if moved := evidence_line(option):
                lines.append(f"               evidence: {moved}")
        flags = answer_flags(record)
        line = f"  answer {record['answer']}" + (f" ({flags})" if flags else "")
        if question.gold is not None:
            question_scores.append(question_score(answer.labels, question.gold))
            line += f"; gold {','.join(sorted(question.gold))}: score {question_scores[-1]:g}"
        lines.append(line)
    if question_scores:
        lines += ["",
                  f"Score {sum(question_scores) / len(question_scores):.3f} over "
                  f"{plural(len(question_scores), 'question')} with a gold answer (the official metric: 1 for the "
                  "exact set, 0.5 for a non-empty subset of it, else 0); `causalgraph evaluate --pred P --gold G` "
                  "scores a file written with --out."]
    return "\n".join(lines)


def written_line(outputs: dict[str, Path], topics: list[Topic], answered: list[Answer]) -> str:
    """Where a run that writes its answers put them, and their official score where the questions have gold."""
    gold = {q.qid: q.gold for t in topics for q in t.questions if q.gold is not None}
    scores = [question_score(a.labels, gold[a.qid]) for a in answered if a.qid in gold]
    score = (f"; score {sum(scores) / len(scores):.3f} over {plural(len(scores), 'question')} with a gold answer"
             if scores else "")
    return f"wrote {plural(len(answered), 'answer')} to {', '.join(escaped(str(p)) for p in outputs.values())}{score}"


def main(argv: list[str] | None = None) -> int:
    """The command: its options read and checked, then the run, which ends as common.run_command ends every
    command (an error of the input or the environment: one line and exit code 2; a bug: one line and BUG_EXIT)."""
    start = time.perf_counter()
    parser = build_parser()
    args = parser.parse_args(argv)
    log_warnings()
    check_reader_options(parser, args)
    with encoder_store_for(None if args.no_cache else args.cache_dir):
        return run_command(lambda _: answer(args, start), argv)


def answer(args: argparse.Namespace, start: float) -> int:
    """The run of `main`, its options read and checked."""
    data, split = (DEMO_DATA, "sample") if args.demo else (args.data, args.split)
    outputs = check_run_outputs(args, {"--out": args.out, "--explain": args.explain, "--timings": args.timings},
                                {"--cache-dir": None if args.no_cache else args.cache_dir})
    topics = load_data(data, split, args.topics, args.max_document_chars)
    from ..api import Reasoner
    from ..reason.solve import SolverParams

    # what decided each option is solved for only where it is shown: --explain, or the printed answers
    explain = args.demo or args.out is None or args.explain is not None
    reasoner = Reasoner.load(args.model, args.without, SolverParams(bias=args.bias, none_prior=args.none_prior),
                             time_limit=args.time_limit, cache_dir=None if args.no_cache else args.cache_dir,
                             reader_weight=args.reader_weight, reader_calibration=args.reader_calibration,
                             priors=resolved_priors(args, topics), explain=explain)
    judging = time.perf_counter()
    readers = load_readers(args, topics)  # last: an LLM reader runs over every question
    judging = time.perf_counter() - judging
    weighing = time.perf_counter()  # weighing the readers analyses every topic first (run/pipeline.py)
    run = reasoner.with_readers(readers).run(topics,
                                             advise=not args.demo)  # the demo's topic is not the user's to change
    loaded = time.perf_counter()
    weighing = loaded - weighing
    answers, failures = run_topics(run, args)
    if failures and isinstance(failures[-1].error, StoreError):  # the environment's, not the topic's: one line
        if args.debug and failures[-1].trace:
            print(failures[-1].trace.rstrip(), file=sys.stderr)
        print(f"error: {escaped(error_line(failures[-1].error))}; nothing written", file=sys.stderr)
        return 2
    code = BUG_EXIT if any(f.error is not None and is_bug(f.error) for f in failures) else 1
    if failures and not args.keep_going:
        report_failure(failures[0], args.debug, "\nnothing written; --keep-going answers the other topics")
        return code
    answered = [answer for a in answers for answer in a.answers]
    files = {"--out": lambda: jsonl(a.submission() for a in answered),
             "--explain": lambda: jsonl(a.explanation for a in answered),
             "--timings": lambda: timings(answers, topics, loaded - start, time.perf_counter() - start)}
    try:
        write_files({path: files[option]() for option, path in outputs.items()})
    except OSError as err:
        print(f"error: {error_line(err)}; no output written", file=sys.stderr)
        return 2
    if args.demo or args.out is None:
        print(readable_report(topics, answered))
    else:
        print(written_line(outputs, topics, answered), file=sys.stderr)
    if not args.demo:
        from ..reason.explain import reliability

        fresh = sum(a is not None and not a.cached for a in run.analysed)
        timed = (judging, weighing, fresh) if any((args.reader_scores, args.crossencoder, args.llm_url)) else None
        print(summary(answers, len(topics), time.perf_counter() - start, timed), file=sys.stderr)
        qids = [q.qid for t in topics for q in t.questions]
        for reader in run.settings.readers:  # how many questions each reader judged, how far it was trusted and why
            print(f"reader {reader.reader}: verdicts on {reader.questions_judged(qids)} of {len(qids)} questions; "
                  f"{reliability(reader)}", file=sys.stderr)
    for failure in failures:
        report_failure(failure, args.debug)
    return code if failures else 0


if __name__ == "__main__":
    sys.exit(run_command(main))
