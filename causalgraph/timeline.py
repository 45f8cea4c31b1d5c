"""`python -m causalgraph.timeline`: measure the documents' timeline, or export it (the command lives in cli/timeline.py)."""

import sys

from .cli.timeline import main
from .cli.common import run_command

if __name__ == "__main__":
    sys.exit(run_command(main))
