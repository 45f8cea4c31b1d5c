"""`python -m causalgraph.read`: read causal statements with the trained reader (the command lives in cli/read.py)."""

import sys

from ..cli.common import run_command
from ..cli.read import main

if __name__ == "__main__":
    sys.exit(run_command(main))
