"""The speed and memory of `answer` on a whole split, and what hostile inputs cost it (docs/lab/speed.md)."""
