"""`python -m causalgraph.evaluate`: score predictions with the official metric (the command lives in
cli/evaluate.py)."""

import sys

from .cli.evaluate import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
