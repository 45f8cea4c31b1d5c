"""`python -m causalgraph.encoders`: compare sentence encoders under grouped CV (the command lives in cli/encoders.py)."""

import sys

from .cli.encoders import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
