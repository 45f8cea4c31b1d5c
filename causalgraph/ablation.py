"""`python -m causalgraph.ablation`: the rule ablation under grouped CV (the command lives in cli/ablation.py)."""

import sys

from .cli.ablation import main

if __name__ == "__main__":
    sys.exit(main())
