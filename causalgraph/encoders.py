"""`python -m causalgraph.encoders`: compare sentence encoders under grouped CV (the command lives in cli/encoders.py)."""

import sys

from .cli.encoders import main

if __name__ == "__main__":
    sys.exit(main())
