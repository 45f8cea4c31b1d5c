"""`python -m causalgraph.train`: fit the edge scorer and write its model card (the command lives in cli/train.py)."""

import sys

from .cli.train import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
