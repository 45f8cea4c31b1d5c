"""Readers fused with the edge scores: eleven public systems' dev answers (real_readers.py and the real_*.py
modules of its sections), simulated readers, and a reader on a user's own topic (docs/lab/readers.md)."""
