"""`causalgraph COMMAND ...`: one entry point for every command (`causalgraph --help` lists them)."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

from . import __version__
from .cli import common
from .cli.common import run_command
from .config import default_cache_dir

COMMANDS = ("answer", "read", "evaluate", "calibrate", "train", "ablation", "visualize")
SUMMARIES = {
    "answer": "answer your own topics, a split of the AER data or the demo topic, with explanations",
    "read": "read the causal statements of texts with the trained reader: causal or not, cause and effect, direction",
    "evaluate": "score a prediction file with the official metric, with its breakdown",
    "calibrate": "a reader's fusion parameters from its answers to a labelled split, under grouped CV",
    "train": "retrain the edge scorer (or a reader) with grouped CV and a model card",
    "ablation": "the grouped-CV score of the rule program with each rule group off",
    "visualize": "one topic's graph, answers and explanations as an interactive HTML page",
}


def command_list(entry: str) -> str:
    """The top-level help: answering a user's own topic first, then every command with its line."""
    width = max(map(len, COMMANDS))
    own = [
        "your own topic (a folder holding questions.jsonl and, optionally, docs.json; or one .json/.yaml file):",
        f"  {entry} answer --data FOLDER                      each answer and why it was chosen, printed",
        f"  {entry} answer --data FOLDER --out answers.jsonl  the answers as a file",
        f"  {entry} visualize --data FOLDER --out page.html   its event graph as a page",
        f"  {entry} answer --demo                             the built-in demo topic",
        f"each topic's analysis is cached in {default_cache_dir()} ($CAUSALGRAPH_CACHE or --cache-dir moves it)",
    ]
    lines = [f"usage: {entry} COMMAND [options]", "", *own, "", "commands:"]
    lines += [f"  {c:<{width}}  {SUMMARIES[c]}" for c in COMMANDS]
    lines += ["", f"`{entry} COMMAND --help` shows a command's options; `{entry} --version` the version."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    entry = "python -m causalgraph" if Path(sys.argv[0]).resolve() == Path(__file__).resolve() else "causalgraph"
    previous = common.ENTRY["prefix"]
    common.ENTRY["prefix"] = f"{entry} "
    try:
        return run_command(lambda args: dispatch(entry, args), argv)
    finally:
        common.ENTRY["prefix"] = previous


def dispatch(entry: str, argv: list[str]) -> int:
    """Run the command that `argv` names (or print the list of commands, or the version)."""
    if not argv:
        print(command_list(entry), file=sys.stderr)
        return 2
    if argv[0] in ("-h", "--help") or argv == ["help"]:
        print(command_list(entry))
        return 0
    if argv[0] == "--version":
        print(f"causalgraph {__version__}")
        return 0
    if argv[0] == "help":  # `causalgraph help answer` is `causalgraph answer --help`
        argv = [argv[1], "--help"]
    if argv[0] not in COMMANDS:
        print(f"{entry}: error: unknown command {argv[0]!r}; the commands are {', '.join(COMMANDS)} "
              f"(see {entry} --help)", file=sys.stderr)
        return 2
    return importlib.import_module(f"causalgraph.cli.{argv[0]}").main(argv[1:])


if __name__ == "__main__":
    sys.exit(main())
