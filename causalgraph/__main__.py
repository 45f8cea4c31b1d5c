"""`causalgraph COMMAND ...`: one entry point for answer, evaluate, train, ablation, encoders, nli, timeline,
visualize."""

from __future__ import annotations

import importlib
import sys

from .cli.common import run_command

COMMANDS = ("answer", "evaluate", "train", "ablation", "encoders", "nli", "timeline", "visualize")


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: causalgraph {{{','.join(COMMANDS)}}} [options]  (see causalgraph COMMAND --help)", file=sys.stderr)
        return 2
    return run_command(importlib.import_module(f"causalgraph.cli.{argv[0]}").main, argv[1:])


if __name__ == "__main__":
    sys.exit(main())
