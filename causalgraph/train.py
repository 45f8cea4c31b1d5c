"""`python -m causalgraph.train`: fit the edge scorer and write its model card (the command lives in cli/train.py)."""

import sys

from .cli.train import main

if __name__ == "__main__":
    sys.exit(main())
