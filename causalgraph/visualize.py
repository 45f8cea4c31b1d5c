"""`python -m causalgraph.visualize`: one topic as an interactive page (the command lives in cli/visualize.py)."""

import sys

from .cli.visualize import main

if __name__ == "__main__":
    sys.exit(main())
