"""`python -m causalgraph.ablation`: the rule ablation under grouped CV (the command lives in cli/ablation.py)."""

import sys

from .cli.ablation import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
