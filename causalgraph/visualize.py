"""`python -m causalgraph.visualize`: one topic as an interactive page (the command lives in cli/visualize.py)."""

import sys

from .cli.visualize import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
