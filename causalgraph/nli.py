"""`python -m causalgraph.nli`: measure the pair model under grouped CV (the command lives in cli/nli.py)."""

import sys

from .cli.nli import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
