"""`python -m causalgraph.calibrate`: a reader's fusion parameters from labelled answers (the command lives in
cli/calibrate.py)."""

import sys

from .cli.calibrate import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
