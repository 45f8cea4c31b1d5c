"""`causalgraph answer`: answer every question of your own topics, of a split of the AER data, or of the built-in
demo topic; without --out, print each answer and what decided each option."""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from contextlib import closing
from pathlib import Path

from tqdm import tqdm

from ..analysis.analyse import ANALYSIS_STAGES
from ..analysis.cache import AnalysisCache
from ..config import DEFAULT_MODEL, DEMO_DATA, default_cache_dir
from ..data import SPLITS, DataError, Topic, input_files, load_data, question_score
from ..experiments.sizes import thin_topics
from ..data.load import warn_without_documents
from ..data.records import escaped
from ..readers.llm import EndpointError
from ..learn.calibration import load_calibrations, match_calibrations
from ..learn.scorer import reads_documents
from ..reason.solve import SWITCHABLE, SolverParams
from ..reason.explain import answer_flags, evidence_line, judged_words, reader_adds, reliability
from ..run.batch import PARALLEL_CHARS, STAGES, Answer, Settings, TopicAnswer, answer_topics, auto_workers, scorer_for
from ..run.calibrate import calibrated_settings
from ..run.output import check_outputs, jsonl, write_files
from ..run.parallel import SCHEDULERS
from .common import add_document_chars_option, add_priors_option, add_reader_options, check_reader_options, resolved_priors, load_readers, reader_inputs, parse_groups, parse_topics, plural, positive, prog, log_warnings, run_command, weight


def workers_option(text: str) -> int | str:
    """--workers: a number of processes, or 'auto'."""
    return text if text == "auto" else positive(int)(text)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog=prog("answer"), description=__doc__)
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--demo", action="store_true",
                        help="answer the built-in demo topic and print each question, its options, the answer and its score")
    source.add_argument("--data", type=Path, metavar="PATH",
                        help="your own topics: a folder holding questions.jsonl (and docs.json), one .json/.yaml file "
                             "of documents and questions, or a folder of such folders and files; or an AER data folder with splits (../shared/aer or the "
                             "public repository layout)")
    parser.add_argument("--split", choices=SPLITS, help="the split of an AER data folder to answer (default test)")
    parser.add_argument("--out", type=Path, help='submission JSONL: {"id", "answer"} a line; without it, the answers are '
                                                 "printed with what decided each option")
    parser.add_argument("--explain", type=Path, help="JSONL with each option's edge score and the rules that fired")
    parser.add_argument("--topics", type=parse_topics, help="only these topic ids, e.g. 37,40-42")
    add_document_chars_option(parser)
    parser.add_argument("--without", type=parse_groups, default=frozenset(), help=f"rule groups to switch off: {','.join(SWITCHABLE)}")
    parser.add_argument("--model", type=Path, default=DEFAULT_MODEL, help="trained edge scorer (joblib)")
    add_priors_option(parser)
    parser.add_argument("--none-prior", type=weight, help="cost of a real option where None is offered, weighed against the "
                        "edge log-odds x 100; default: a priority level above all edge evidence")
    parser.add_argument("--bias", type=weight, help="precision bias per selected label (log-odds x 100); default: the model's")
    parser.add_argument("--time-limit", type=positive(float), help="seconds of solving per topic, all its searches together; "
                        "the best answer set found by then is used")
    parser.add_argument("--workers", type=workers_option, default="auto",
                        help="topics answered in parallel (processes); 'auto' (default): two where at least two topics "
                             f"must be analysed and their documents hold {PARALLEL_CHARS:,} characters or more, else one")
    parser.add_argument("--scheduler", choices=SCHEDULERS, default="local", help="local processes, or a Dask cluster")
    parser.add_argument("--dask-address", help="scheduler address of a running Dask cluster (implies --scheduler dask)")
    parser.add_argument("--keep-going", action="store_true", help="write the answers of the other topics when one fails")
    parser.add_argument("--cache-dir", type=Path, default=default_cache_dir(), help="per-topic analysis cache (default $CAUSALGRAPH_CACHE or ~/.cache/causalgraph)")
    parser.add_argument("--no-cache", action="store_true", help="neither read nor write the analysis cache")
    parser.add_argument("--timings", type=Path, help="JSON with the seconds of each stage per topic")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_reader_options(parser)
    return parser


def run_topics(topics: list[Topic], settings: Settings, args: argparse.Namespace) -> tuple[list[TopicAnswer], list[str]]:
    """Answers of the topics in input order and "topic N: error" lines; without --keep-going, stop at the first
    failure."""
    answers, failures = [], []
    scheduler = "dask" if args.dask_address else args.scheduler
    workers = auto_workers(topics, settings.cache, reads_documents(scorer_for(settings.model, settings.priors)[0])) \
        if args.workers == "auto" else args.workers
    outcomes = answer_topics(topics, settings, workers, scheduler, args.dask_address)
    bar = tqdm(total=len(topics), desc="topics", unit="topic", disable=args.quiet, file=sys.stderr)
    with closing(outcomes), bar:
        for topic, outcome in zip(topics, outcomes):
            bar.update()
            outcome.replay_logs()
            if outcome.error is None:
                answers.append(outcome.value)
                continue
            failures.append(f"topic {topic.topic_id}: {escaped(outcome.error)}")
            if not args.keep_going:
                break
    return answers, failures


def timings(answers: list[TopicAnswer], topics: list[Topic], load: float, total: float) -> str:
    """The --timings file: seconds of loading, in all, and of each stage per topic."""
    sizes = {t.topic_id: (len(t.documents), len(t.questions)) for t in topics}
    rows = [
        {"topic_id": a.topic_id, "documents": sizes[a.topic_id][0], "questions": sizes[a.topic_id][1], "cached": a.cached, **a.seconds}
        for a in answers
    ]
    return json.dumps({"load": load, "total": total, "topics": rows}, indent=1) + "\n"


def summary(answers: list[TopicAnswer], topics: int, seconds: float,
            readers: tuple[float, float, int] | None = None) -> str:
    """The run's line: questions and topics answered, the seconds in all and of each stage, and where there are
    readers (`readers`: the seconds of their judging and of their weighing, and the analyses made while they
    were weighed) those too; the analyses read from the cache that this run did not make."""
    questions = sum(len(a.answers) for a in answers)
    total = lambda names: [f"{stage} {sum(a.seconds[stage] for a in answers):.1f} s" for stage in names]
    analysis, *rest = total(STAGES)
    judging, weighing, fresh = readers or (0.0, 0.0, 0)
    weighed = [f"readers {judging:.1f} s", f"weighing them {weighing:.1f} s ({plural(fresh, 'analysis', 'analyses')} "
               "made for it)"] if readers else []
    stages = ", ".join([*weighed, f"{analysis} ({', '.join(total(ANALYSIS_STAGES))})", *rest])
    cached = sum(a.cached for a in answers) - fresh
    return (
        f"answered {plural(questions, 'question')} ({len(answers)} of {plural(topics, 'topic')}) in {seconds:.1f} s "
        f"({stages}; {plural(cached, 'analysis', 'analyses')} from the cache)"
    )


def reader_words(reader: dict) -> str:
    """A reader's judgement of an option (its explanation record) and what it adds to choosing the option."""
    return f"{reader['reader']} {judged_words(reader)} ({reader_adds(reader):+d})"


def readable_report(topics: list[Topic], answers: list[Answer]) -> str:
    """How far fusion trusts each reader, then each topic and each question: its target, its options' texts with
    the edge scorer's probability, a sentence on what decided each and the readers' judgements, the answer
    (marked where it is a forced guess, with its confidence) and, where the gold answer is known, the gold
    answer and the official score."""
    questions = {q.qid: q for t in topics for q in t.questions}
    titles = {t.topic_id: f"Topic {t.topic_id}{': ' + t.title if t.title else ''} ({plural(len(t.documents), 'document')})"
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
        lines += ["", f"Score {sum(question_scores) / len(question_scores):.3f} over {plural(len(question_scores), 'question')} with a gold answer (the "
                  "official metric: 1 for the exact set, 0.5 for a non-empty subset of it, else 0); "
                  "`causalgraph evaluate --pred P --gold G` scores a file written with --out."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    start = time.perf_counter()
    parser = build_parser()
    args = parser.parse_args(argv)
    log_warnings()
    check_reader_options(parser, args)
    data, split = (DEMO_DATA, "sample") if args.demo else (args.data, args.split)
    try:
        outputs = check_outputs({"--out": args.out, "--explain": args.explain, "--timings": args.timings},
                                [*input_files(data), args.model, *args.reader_scores, *reader_inputs(args)],
                                {"--cache-dir": None if args.no_cache else args.cache_dir})
        calibrations = load_calibrations(args.reader_calibration) if args.reader_calibration else None
        topics = load_data(data, split, args.topics, args.max_document_chars)
        warn_without_documents(topics)
        model, priors = args.model.resolve(), resolved_priors(args, topics)
        scorer, encoder = scorer_for(model, priors)
        cache = None if args.no_cache else AnalysisCache.open(args.cache_dir, encoder, reads_documents(scorer))
        reading = time.perf_counter()
        readers = load_readers(args, topics)  # last: an LLM reader runs over every question
        reading = time.perf_counter() - reading
    except (DataError, OSError, ValueError, EndpointError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    if thin := thin_topics(topics, bool(readers), reads_documents(scorer))[1]:  # once per run: small topics, no reader
        logging.getLogger(__name__).warning(thin)
    params = SolverParams(bias=args.bias, none_prior=args.none_prior)
    # what decided each option is solved for only where it is shown: --explain, or the printed answers
    explain = args.demo or args.out is None or args.explain is not None
    settings = Settings(model, args.without, params, args.time_limit, cache, readers, explain, priors)
    weighing = time.perf_counter()  # the readers' weighing analyses every topic first (run/calibrate.py)
    fresh = sum(not cache.path(t).is_file() for t in topics) if cache and readers and args.reader_weight is None else 0
    try:
        settings = calibrated_settings(topics, settings, args.reader_weight,
                                       calibrations and match_calibrations(readers, calibrations, args.reader_calibration))
    except DataError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    loaded = time.perf_counter()
    weighing = loaded - weighing
    try:
        answers, failures = run_topics(topics, settings, args)
    except (RuntimeError, OSError) as err:  # no Dask, or no scheduler at --dask-address
        print(f"error: {err}", file=sys.stderr)
        return 2
    if failures and not args.keep_going:
        print(f"error: {failures[0]}\nnothing written; --keep-going answers the other topics", file=sys.stderr)
        return 1
    answered = [answer for a in answers for answer in a.answers]
    files = {"--out": lambda: jsonl(a.submission() for a in answered),
             "--explain": lambda: jsonl(a.explanation for a in answered),
             "--timings": lambda: timings(answers, topics, loaded - start, time.perf_counter() - start)}
    try:
        write_files({path: files[option]() for option, path in outputs.items()})
    except OSError as err:
        print(f"error: {err}; no output written", file=sys.stderr)
        return 2
    if args.demo or args.out is None:
        print(readable_report(topics, answered))
    if not args.demo:
        judging = (reading, weighing, fresh) if any((args.reader_scores, args.crossencoder, args.llm_url)) else None
        print(summary(answers, len(topics), time.perf_counter() - start, judging), file=sys.stderr)
        qids = [q.qid for t in topics for q in t.questions]
        for reader in settings.readers:  # how many questions each reader judged, how far it was trusted and why
            print(f"reader {reader.reader}: verdicts on {reader.questions_judged(qids)} of {len(qids)} questions; "
                  f"{reliability(reader)}", file=sys.stderr)
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(run_command(main))
