"""What the commands share: option parsers and types, reading the readers the options name, and printing one-line
errors."""

from __future__ import annotations

import argparse
import io
import logging
import os
import re
import signal
import sys
import tempfile
import threading
import time
import traceback
from contextlib import contextmanager
from pathlib import Path

from ..config import DEMO_DATA, ENCODER_STORE, default_cache_dir
from ..data import DataError
from ..data.load import TopicIds
from ..data.records import MAX_DOCUMENT_CHARS, MAX_TOPIC_DIGITS, Topic, escaped
from ..readers.base import ReaderJudgements
from ..readers.llm import RESPONSE_FORMATS, EndpointError
from ..readers.load import load_readers as read_readers
from ..readers.scores import parse_reader_spec
from ..reason.groups import PRIORS, checked_groups
from ..run.checks import priors_for, reader_weight_problem, weight_problem
from ..run.output import OutputError, check_outputs
from ..run.parallel import DaskUnavailable, WorkerDied

# How the commands were started, for their usage lines: `python -m causalgraph.answer` unless the
# `causalgraph COMMAND` entry point (causalgraph/__main__.py) says otherwise.
ENTRY = {"prefix": "python -m causalgraph."}


def prog(command: str) -> str:
    """The usage line's name of a command, as it was run: `causalgraph answer` or `python -m causalgraph.answer`."""
    return f"{ENTRY['prefix']}{command}"


def command_parser(command: str, description: str | None, **kwargs) -> argparse.ArgumentParser:
    """A command's parser, with the --debug option that every command takes (see run_command)."""
    parser = argparse.ArgumentParser(prog=prog(command), description=description, **kwargs)
    parser.add_argument("--debug", action="store_true", help="on a bug, print the traceback as well")
    return parser


# The three kinds of error: the user's input and the environment (exit code 2; one line naming the input or the
# resource), and a bug (BUG_EXIT, sysexits' EX_SOFTWARE; the line says it is one, --debug adds the traceback).
USER_ERRORS = (DataError, OutputError)
# a full disk, a permission, a killed worker, an endpoint or a Dask scheduler out of reach
ENVIRONMENT_ERRORS = (OSError, WorkerDied, EndpointError, DaskUnavailable)
BUG_EXIT = 70


def is_bug(err: BaseException) -> bool:
    """Whether an error is the code's own, neither the user's input nor the environment."""
    return not isinstance(err, USER_ERRORS + ENVIRONMENT_ERRORS)


def error_line(err: BaseException) -> str:
    """An error in one line: the user's input or the environment by what it names (a file system error as
    "PATH: reason"), a bug said to be one."""
    if isinstance(err, OSError) and err.filename is not None and err.strerror:
        return f"{err.filename}: {err.strerror}"
    if not is_bug(err):
        return str(err)
    return (f"a bug in causalgraph ({type(err).__name__}: {err}); please report it with the traceback that "
            "--debug prints")


@contextmanager
def step(what: str, show: bool = True):
    """A step with no progress of its own to show: on stderr, what it does when it starts, and its seconds when
    it ends (nothing unless `show`)."""
    start = time.perf_counter()
    if show:
        print(f"{what} ...", file=sys.stderr, flush=True)
    yield
    if show:
        print(f"{what}: done in {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True)


def plural(n: int, word: str, many: str | None = None) -> str:
    """'1 topic', '2 topics', '0 topics' (`many` for irregular plurals)."""
    return f"{n} {word if n == 1 else many or word + 's'}"


def parse_groups(text: str) -> frozenset[str]:
    """An argparse type: rule groups to switch off, comma-separated (reason.groups.checked_groups)."""
    try:
        return checked_groups(g.strip() for g in text.split(",") if g.strip())
    except ValueError as err:
        raise argparse.ArgumentTypeError(str(err)) from None


def parse_topics(text: str) -> TopicIds:
    """An argparse type: topic ids and ranges, e.g. '37,40-42', kept as ranges (a range is never expanded)."""
    ranges: list[tuple[int, int]] = []
    for part in (p.strip() for p in text.split(",")):
        match = re.fullmatch(rf"(\d{{1,{MAX_TOPIC_DIGITS}}})(?:\s*-\s*(\d{{1,{MAX_TOPIC_DIGITS}}}))?", part)
        if part and (match is None or (match[2] is not None and int(match[2]) < int(match[1]))):
            raise argparse.ArgumentTypeError(f"--topics takes ids and ranges such as 1,3-5 (ids of at most "
                                             f"{MAX_TOPIC_DIGITS} digits); got {part!r} in {text!r}")
        if match:
            ranges.append((int(match[1]), int(match[2] or match[1])))
    if not ranges:
        raise argparse.ArgumentTypeError(f"--topics names no topic: {text!r}")
    return TopicIds(tuple(ranges))


def positive(kind, most: float = 1e6):
    """An argparse type: a finite number of `kind` above zero and at most `most`."""

    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = 0
        if not 0 < value <= most:
            raise argparse.ArgumentTypeError(f"expected a positive number up to {most:g}, got {text!r}")
        return value

    return parse


def add_document_chars_option(parser: argparse.ArgumentParser) -> None:
    """--max-document-chars: the characters read of each document (the loader cuts longer ones, with a warning)."""
    parser.add_argument("--max-document-chars", type=at_least(1), default=MAX_DOCUMENT_CHARS, metavar="N",
                        help=f"characters read of each document; longer ones are cut there, with a warning naming "
                             f"them (default {MAX_DOCUMENT_CHARS:,}; the longest document of the AER data has 80,000)")


def add_priors_option(parser: argparse.ArgumentParser) -> None:
    """--priors: whether the topics were built the benchmark's way (see reason.solve.PRIORS)."""
    parser.add_argument("--priors", choices=list(PRIORS),
                        help="the AER benchmark's construction priors: 'aer' keeps them (the None prior, repeated "
                             "options, at most three labels, and the scorer that reads where None is offered), 'none' "
                             "answers a topic not built the benchmark's way, choosing None only where no option has "
                             "the evidence. Default: aer for an AER data folder and --demo, none for your own topics "
                             "(a topic folder or file)")


def resolved_priors(args: argparse.Namespace, topics: list[Topic]) -> str:
    """--priors, else the one the topics were built for (see add_priors_option)."""
    return args.priors or priors_for(topics)


def add_reader_options(parser: argparse.ArgumentParser) -> None:
    """--reader-scores (repeatable) and --reader-weight."""
    parser.add_argument("--reader-scores", type=parse_reader_spec, action="append", default=[], metavar="[NAME=]FILE",
                        help='another system\'s output as a reader: {"id", "answer"} or {"id", "probs": {"A": p, ...}} '
                             "a line, named NAME or by the path as given (repeatable)")
    parser.add_argument("--reader-weight", type=reader_weight,
                        help="percent by which every reader's raw log-odds are scaled in the fusion, overriding "
                             "calibration; default: each reader calibrated (--reader-calibration, else without gold "
                             "on the answered topics)")
    parser.add_argument("--reader-calibration", type=Path, metavar="CAL.json",
                        help="reader calibrations written by `calibrate` (matched by reader name, or the only one "
                             "to the only reader); readers it does not name are calibrated without gold")
    parser.add_argument("--crossencoder", metavar="MODEL",
                        help="the cross-encoder reader: a folder written by `train --reader crossencoder --out`, or a "
                             "hub name; it reads passages from the answered topics' documents")
    llm = parser.add_argument_group("LLM reader (any OpenAI-compatible chat-completions endpoint)")
    llm.add_argument("--llm-url", help="base URL of the endpoint, e.g. http://127.0.0.1:8080/v1")
    llm.add_argument("--llm-model", default="default", help="model name sent with each request")
    llm.add_argument("--llm-key-env", default="OPENAI_API_KEY",
                     help="environment variable that holds the API key, if any; it is sent over https or to this "
                          "machine (localhost, 127.0.0.0/8, ::1) only")
    llm.add_argument("--llm-send-key-over-http", action="store_true",
                     help="send the API key to a plain http endpoint on another machine too (the network can read it)")
    llm.add_argument("--llm-concurrency", type=positive(int, 64), default=4, help="requests in flight at once")
    llm.add_argument("--llm-timeout", type=positive(float), default=300.0, metavar="SECONDS",
                     help="seconds the LLM reader may take in all, its requests and retries together (default 300; "
                          "--time-limit, where given, bounds it too, at that many seconds per topic); past them, a "
                          "one-line error")
    llm.add_argument("--llm-response-format", choices=list(RESPONSE_FORMATS),
                     help="how the reply schema is sent: OpenAI's json_schema (vLLM, hosted APIs), json_object "
                          "(llama.cpp's Python server), or none (the prompt alone); default: found by asking the "
                          "endpoint once per run, in that order")


def check_reader_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """A usage error for --reader-weight or --reader-calibration without a reader to apply it to, and for a file
    that --model, --reader-scores or --reader-calibration names and that is not there."""
    given = args.reader_scores or args.crossencoder or args.llm_url
    for option, value in (("--reader-calibration", args.reader_calibration), ("--reader-weight", args.reader_weight)):
        if value is not None and not given:
            parser.error(f"{option} needs a reader (--reader-scores, --crossencoder or --llm-url)")
    files = [("--model", getattr(args, "model", None)), *(("--reader-scores", s.path) for s in args.reader_scores),
             ("--reader-calibration", args.reader_calibration)]
    for option, path in files:
        if path is not None and not Path(path).exists():
            parser.error(f"{option}: no such file: {path}")
        if path is not None and Path(path).is_dir():
            parser.error(f"{option}: {path} is a folder, not a file")


# the options that name what a command reads: files, or folders (a data folder, a model folder) whose files it reads
INPUT_OPTIONS = ("data", "model", "reader_scores", "reader_calibration", "crossencoder", "gold", "pred", "user_topics",
                 "encoder", "base")


def run_inputs(args: argparse.Namespace) -> list[Path]:
    """Every path that a command's options name for reading (INPUT_OPTIONS; the demo folder under --demo): the
    inputs that run.output.check_outputs keeps each command's outputs off."""
    given = [getattr(args, name, None) for name in INPUT_OPTIONS] + [DEMO_DATA if getattr(args, "demo", False)
                                                                     else None]
    return [Path(p) for value in given for p in (value if isinstance(value, list) else [value]) if p is not None]


def check_run_outputs(args: argparse.Namespace, outputs: dict[str, str | os.PathLike | None],
                      folders: dict[str, str | os.PathLike | None] | None = None) -> dict[str, Path]:
    """check_outputs against every input of the run (run_inputs): what each command that writes a file calls."""
    return check_outputs(outputs, run_inputs(args), folders)


def load_readers(args: argparse.Namespace, topics: list) -> tuple[ReaderJudgements, ...]:
    """The readers that the options name (see readers.load.load_readers), their judgements cached under
    --cache-dir (the default cache folder where the command has none), the LLM reader's time bounded by
    --llm-timeout and by --time-limit per topic where the command has it; OSError naming the option."""
    cache = None if getattr(args, "no_cache", False) else getattr(args, "cache_dir", default_cache_dir())
    timeout, bound_by = args.llm_timeout, "--llm-timeout"
    if getattr(args, "time_limit", None) is not None and args.time_limit * len(topics) < timeout:
        timeout, bound_by = args.time_limit * len(topics), "--time-limit"
    try:
        return read_readers(topics, scores=args.reader_scores, crossencoder=args.crossencoder,
                            llm_url=args.llm_url, llm_model=args.llm_model, llm_key_env=args.llm_key_env,
                            llm_concurrency=args.llm_concurrency, llm_response_format=args.llm_response_format,
                            llm_send_key_over_http=args.llm_send_key_over_http, llm_timeout=timeout,
                            llm_bound_by=bound_by,
                            cache_dir=cache, progress=not getattr(args, "quiet", False),
                            keep_going=getattr(args, "keep_going", False))
    except OSError as err:
        raise OSError(f"--crossencoder {err}" if args.crossencoder and str(err).startswith(args.crossencoder)
                      else err) from None


log = logging.getLogger(__name__)


def unwritable(folder: Path) -> str | None:
    """Why a folder could not be made or written, checked without making it (it is made only when an encoder is
    unpacked: a run refused for its options leaves nothing behind); None where it could."""
    existing = next(p for p in [folder, *folder.parents] if os.path.lexists(p))
    if not existing.is_dir():
        return f"{existing} is not a folder"
    if not os.access(existing, os.W_OK | os.X_OK):
        return f"{existing} cannot be written"
    return None


@contextmanager
def encoder_store_for(cache: Path | None):
    """Within it, this process and the workers it starts unpack encoders (config.encoder_store) under the cache
    folder the command was given, `cache/encoders`; where it has none (--no-cache, `cache` None), or that
    folder cannot be made (the cache a file, a read-only or missing home), into a temporary folder removed when
    it ends, the latter with a warning naming the folder."""
    folder = None if cache is None else Path(cache).expanduser() / "encoders"
    problem = None if folder is None else unwritable(folder)
    if folder is not None and problem is not None:
        log.warning("cannot write to the cache folder %s (%s); encoders are unpacked into a temporary folder "
                    "for this run", folder, problem)
        folder = None
    previous, temporary = os.environ.get(ENCODER_STORE), None
    if folder is None:
        temporary = tempfile.TemporaryDirectory(prefix="causalgraph-encoders-")
        folder = Path(temporary.name)
    os.environ[ENCODER_STORE] = str(folder)
    try:
        yield
    finally:
        if previous is None:
            os.environ.pop(ENCODER_STORE, None)
        else:
            os.environ[ENCODER_STORE] = previous
        if temporary is not None:
            temporary.cleanup()


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread so that the run unwinds as on Ctrl-C: outputs rolled back, workers
    stopped."""


class SafeStream:
    """A text stream that writes what it is given with the characters a terminal could act on escaped (see
    data.records.escaped; newlines, tabs and carriage returns, which progress bars use, pass)."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(escaped(text, keep="\n\r\t"))
        return len(text)

    def writelines(self, lines) -> None:
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


class OneLineFormatter(logging.Formatter):
    """Log records as "LEVEL: message", the message on one line with the characters a terminal could act on
    escaped (question ids and texts come from the data)."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname}: {escaped(record.getMessage())}"


def log_warnings() -> None:
    """Warnings and errors of every logger to stderr, one escaped line each (OneLineFormatter)."""
    root = logging.getLogger()
    if not root.handlers:
        root.addHandler(logging.StreamHandler(sys.stderr))
        root.setLevel(logging.WARNING)
    for handler in root.handlers:
        if type(handler) is logging.StreamHandler:
            handler.setFormatter(OneLineFormatter())


def run_command(main, argv: list[str] | None = None) -> int:
    """Run a command's main; an error it did not handle ends it with one line (error_line; a bug with exit code
    BUG_EXIT and, under --debug, the traceback first); Ctrl-C ends it with one line and exit code 130, SIGTERM with one
    line and 143 (outputs are written whole or not at all, so nothing is half-written, and worker processes are
    stopped), and a closed output pipe quietly with 141. What it prints and logs reaches the terminal with control and
    format characters escaped (SafeStream, OneLineFormatter); text the terminal's encoding cannot show (under the C
    locale, say) is printed as escapes, not an error."""
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper):
            stream.reconfigure(errors="backslashreplace")
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeStream(sys.stdout), SafeStream(sys.stderr)

    def terminate(signum, frame):
        raise Terminated

    previous = signal.signal(signal.SIGTERM,
                             terminate) if threading.current_thread() is threading.main_thread() else None
    debug = "--debug" in (sys.argv[1:] if argv is None else argv)
    try:
        log_warnings()
        return main(argv)
    except Terminated:
        print("terminated; nothing written", file=sys.stderr)
        return 143
    except KeyboardInterrupt:
        print("interrupted; nothing written", file=sys.stderr)
        return 130
    except BrokenPipeError:  # whoever read the output stopped (`| head`): end quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), streams[0].fileno())
        return 141
    except Exception as err:  # what a command did not handle: one line, the traceback behind --debug
        if debug:
            traceback.print_exc()
        print(f"error: {error_line(err)}", file=sys.stderr)
        return BUG_EXIT if is_bug(err) else 2
    finally:
        if previous is not None:
            signal.signal(signal.SIGTERM, previous)
        sys.stdout, sys.stderr = streams


def _checked(check, text: str) -> int:
    """`text` as an integer that `check` (of run.checks) passes; argparse's error, with its message, where not."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if problem := check(value):
        raise argparse.ArgumentTypeError(problem)
    return value


def weight(text: str) -> int:
    """An argparse type: an integer that clingo's 32-bit weights can hold (within +-MAX_CONSTANT)."""
    return _checked(weight_problem, text)


def reader_weight(text: str) -> int:
    """An argparse type: a reader weight, 0 or more (a negative one would read every judgement backwards)."""
    return _checked(reader_weight_problem, text)


def at_least(minimum: int):
    """An argparse type: an integer of at least `minimum`."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            value = minimum - 1
        if value < minimum:
            raise argparse.ArgumentTypeError(f"expected an integer of at least {minimum}, got {text!r}")
        return value

    return parse
