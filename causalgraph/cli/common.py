"""What the commands share: option parsers and types, reading the labelled data for the CV commands, and printing
one-line errors."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from ..analysis.analyse import TopicAnalysis
from ..analysis.cache import AnalysisCache
from ..config import DEFAULT_ENCODER, DEFAULT_MODEL, default_cache_dir
from ..data import SPLITS, DataError, load_labelled, load_split
from ..learn.crossval import HELD_COPIES, TopicShape
from ..learn.scorer import load_scorer
from ..readers.base import ReaderJudgements
from ..readers.crossencoder import CrossEncoderReader
from ..readers.llm import RESPONSE_FORMATS, LLMReader
from ..readers.scores import load_reader_scores
from ..reason.solve import MAX_CONSTANT, SWITCHABLE


# Reader weight (percent) when none is given: see BENCHMARKS.md, "Readers".
DEFAULT_READER_WEIGHT = 200


def parse_groups(text: str) -> frozenset[str]:
    groups = frozenset(g.strip() for g in text.split(",") if g.strip())
    unknown = groups - set(SWITCHABLE)
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown rule group {sorted(unknown)[0]!r}; choose from {', '.join(SWITCHABLE)}")
    return groups


def parse_topics(text: str) -> list[int]:
    try:
        topics = [int(t) for t in text.split(",") if t.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--topics takes comma-separated integers, got {text!r}") from None
    if not topics:
        raise argparse.ArgumentTypeError(f"--topics names no topic: {text!r}")
    return topics


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


def data_files(root: str | os.PathLike) -> list[Path]:
    """The files a run reads from a data folder: every split's questions.jsonl and docs.json."""
    root = Path(root)
    return [root / f"{split}{suffix}" / name for split in SPLITS for suffix in ("", "_data")
            for name in ("questions.jsonl", "docs.json")]


def add_reader_options(parser: argparse.ArgumentParser) -> None:
    """--reader-scores (repeatable) and --reader-weight."""
    parser.add_argument("--reader-scores", type=Path, action="append", default=[], metavar="FILE",
                        help='another system\'s output as a reader: {"id", "answer"} or {"id", "probs": {"A": p, ...}} '
                             "a line (repeatable)")
    parser.add_argument("--reader-weight", type=weight, default=DEFAULT_READER_WEIGHT,
                        help=f"percent by which each reader's log-odds are scaled in the fusion (default {DEFAULT_READER_WEIGHT})")
    parser.add_argument("--crossencoder", metavar="MODEL",
                        help="the cross-encoder reader: a folder written by `train --reader crossencoder --out`, or a hub "
                             "name; it reads passages from the answered topics' documents")
    llm = parser.add_argument_group("LLM reader (any OpenAI-compatible chat-completions endpoint)")
    llm.add_argument("--llm-url", help="base URL of the endpoint, e.g. http://127.0.0.1:8080/v1")
    llm.add_argument("--llm-model", default="default", help="model name sent with each request")
    llm.add_argument("--llm-key-env", default="OPENAI_API_KEY", help="environment variable that holds the API key, if any")
    llm.add_argument("--llm-concurrency", type=positive(int, 64), default=4, help="requests in flight at once")
    llm.add_argument("--llm-response-format", choices=list(RESPONSE_FORMATS), default="json_schema",
                     help="how the reply schema is sent: OpenAI's json_schema (vLLM, hosted APIs), json_object "
                          "(llama.cpp's Python server), or none (the prompt alone)")


def load_readers(args: argparse.Namespace, data, split: str, topics: list) -> tuple[ReaderJudgements, ...]:
    """The readers of a run: the --reader-scores files (their ids checked against every question of the
    split), the cross-encoder of --crossencoder and the LLM at --llm-url (both run over the answered topics,
    their judgements cached under --cache-dir)."""
    readers = []
    if args.reader_scores:
        questions = {q.qid: q for topic in load_split(data, split) for q in topic.questions}
        readers += [load_reader_scores(path, questions, args.reader_weight) for path in args.reader_scores]
    cache = None if getattr(args, "no_cache", False) else getattr(args, "cache_dir", default_cache_dir())
    if args.crossencoder:
        readers.append(crossencoder_reader(args.crossencoder, args.reader_weight, cache).judge(
            topics, progress=not getattr(args, "quiet", False)))
    if args.llm_url:
        llm = LLMReader(args.llm_url, args.llm_model, args.llm_key_env, cache, args.llm_concurrency,
                        weight=args.reader_weight, response_format=args.llm_response_format)
        readers.append(llm.judge(topics, progress=not getattr(args, "quiet", False)))
    return tuple(readers)


def crossencoder_reader(model: str, weight: int, cache_dir: Path | None) -> CrossEncoderReader:
    """The cross-encoder reader of --crossencoder; OSError naming the option when it cannot be loaded."""
    local = Path(model).expanduser()
    if (local.exists() or model.startswith((".", "/", "~"))) and not (local / "config.json").is_file():
        raise OSError(f"--crossencoder {model}: no model folder there (expected one written by "
                      "`python -m causalgraph.train --reader crossencoder --out FOLDER`)")
    try:
        return CrossEncoderReader(local if local.exists() else model, weight=weight, cache_dir=cache_dir)
    except OSError as err:
        raise OSError(f"--crossencoder {model}: cannot load the model ({str(err).splitlines()[0]})") from None


def run_command(main, argv: list[str] | None = None) -> int:
    """Run a command's main; Ctrl-C ends it with one line and exit code 130 (outputs are written whole or not
    at all, so nothing is half-written), and a closed output pipe quietly with 141."""
    try:
        return main(argv)
    except KeyboardInterrupt:
        print("interrupted; nothing written", file=sys.stderr)
        return 130
    except BrokenPipeError:  # whoever read the output stopped (`| head`): end quietly, as Unix tools do
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def weight(text: str) -> int:
    """An argparse type: an integer that clingo's 32-bit weights can hold (within +-MAX_CONSTANT)."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if abs(value) > MAX_CONSTANT:
        raise argparse.ArgumentTypeError(f"must be within +-{MAX_CONSTANT:,} (clingo's weights are 32-bit), got {text}")
    return value


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


def cv_parser(prog: str, doc: str, encoder: bool = True, bias: bool = False, min_folds: int = 2) -> argparse.ArgumentParser:
    """The options that the CV commands share: data, folds (at least `min_folds`), the split to resize to, the
    encoder (unless `encoder` is False) and a fixed precision bias (where `bias` is True)."""
    parser = argparse.ArgumentParser(prog=prog, description=doc)
    parser.add_argument("--data", required=True, help="AER data folder (../shared/aer or the public layout)")
    parser.add_argument("--folds", type=at_least(min_folds), default=5, help=f"grouped CV folds (at least {min_folds})")
    if encoder:
        parser.add_argument("--encoder", default=DEFAULT_ENCODER, help="sentence-transformers path or hub name")
    parser.add_argument("--resize-to", default="test", help="split whose topic shapes (questions, None offers) the training and held-out copies are cut to; 'none' for whole topics only")
    if bias:
        parser.add_argument("--bias", type=weight, help="precision bias (log-odds x 100); default: the shipped scorer's")
    return parser


def shipped_bias() -> int:
    """The precision bias that `train` chose for the shipped scorer."""
    return load_scorer(DEFAULT_MODEL)[0].bias


def cv_inputs(args: argparse.Namespace) -> tuple[list, list[TopicShape]] | None:
    """The labelled topics and the target topic shapes, with `args.bias` (where the command has one) set to
    the shipped scorer's when not given; None, after printing the error, when the data cannot be read."""
    try:
        topics = load_labelled(args.data)
        shapes = target_shapes(args.data, None if args.resize_to == "none" else args.resize_to)
        if getattr(args, "bias", 0) is None:
            args.bias = shipped_bias()
        if args.folds > len(topics):
            raise DataError(args.data, None, f"--folds {args.folds} is more than the {len(topics)} labelled topics")
    except (DataError, OSError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return None
    return topics, shapes


def labelled_analyses(topics: list, encoder: str) -> list[TopicAnalysis]:
    """The topics' analyses through the cache that `answer` uses, so reruns skip spaCy and the encoder."""
    cache = AnalysisCache.open(default_cache_dir(), encoder)
    return [cache.analyse(t)[0] for t in topics]


def target_shapes(data: str, split: str | None) -> list[TopicShape]:
    """The shape of each topic of the split to be answered, read from its questions (no answers needed)."""
    if split is None:
        return []
    return [TopicShape.of(t) for t in load_split(data, split)]


def describe_shapes(shapes: list[TopicShape]) -> str:
    """Range of topic sizes and the share of questions offering None, e.g. '8-48 questions, 37% ...'."""
    sizes = [s.questions for s in shapes]
    share = sum(s.none_offered for s in shapes) / max(sum(sizes), 1)
    return f"{min(sizes)}-{max(sizes)} questions, {share:.0%} of them offering None"


def describe_held(held: list[list[TopicAnalysis]], shapes: list[TopicShape]) -> str:
    """The held-out copies' shapes next to the answered split's (copies run short of None questions)."""
    copies = describe_shapes([TopicShape.of(c.topic) for cs in held for c in cs])
    return f"{HELD_COPIES} copies each, {copies}; the split's topics: {describe_shapes(shapes)}"
