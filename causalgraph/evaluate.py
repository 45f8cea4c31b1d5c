"""`python -m causalgraph.evaluate`: score predictions with the official metric (the command lives in cli/evaluate.py)."""

import sys

from .cli.evaluate import main

if __name__ == "__main__":
    sys.exit(main())
