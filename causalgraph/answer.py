"""`python -m causalgraph.answer`: answer a split or the demo topic (the command lives in cli/answer.py)."""

import sys

from .cli.answer import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
