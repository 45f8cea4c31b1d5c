"""`python -m causalgraph.nli`: measure the pair model under grouped CV (the command lives in cli/nli.py)."""

import sys

from .cli.nli import main

if __name__ == "__main__":
    sys.exit(main())
