"""The edge scorer: its variants, the size curve (sizes.py), how the documents are read, the sentence encoders
and the pair ("NLI") model (docs/lab/scorer.md)."""
