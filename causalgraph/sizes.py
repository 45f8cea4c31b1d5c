"""`python -m causalgraph.sizes`: the size curve under grouped CV (the command lives in cli/sizes.py)."""

import sys

from .cli.sizes import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
