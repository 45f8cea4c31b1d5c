"""A per-topic on-disk cache of the expensive step, `analysis.analyse_topic`.

An entry's key hashes what the analysis depends on: the topic's content (questions and documents), the encoder
(its name and, for a local model, its files), the installed packages and the analysis code (ANALYSIS_CODE:
the data, text and graph stages and the analysis itself). Changing any of them misses the cache; editing a
rule file, the scorer or the page template does not. Entries are pickles written to a temporary file and renamed into place, so
parallel workers can share one folder and a reader never sees a half-written entry. An entry records its
format and key, and one whose type, format or key does not match is recomputed and replaced, with a warning
that names it. Entries are pickles, and unpickling runs code: an entry, or a cache folder, that another user
owns or could have written (config.untrusted, as ssh judges its keys) is neither read nor written, with a
warning.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import os
import pickle
import sys
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from ..config import PACKAGE_DIR, trusted
from ..data import Topic
from ..text.embed import resolve_model_path
from .analyse import TopicAnalysis, analyse_topic

CACHE_FORMAT = 2  # bump when the entry layout changes
# The package's code that `analyse_topic` runs, relative to the package folder.
ANALYSIS_CODE = ("config.py", "data", "text", "graph", "analysis/analyse.py")

log = logging.getLogger(__name__)


def _hash_files(digest, root: Path, files: list[Path]) -> None:
    for path in files:
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode())
        digest.update(hashlib.sha256(path.read_bytes()).digest())


@lru_cache(maxsize=None)
def code_version() -> str:
    """Hash of the analysis code (ANALYSIS_CODE)."""
    digest = hashlib.sha256()
    files = []
    for entry in ANALYSIS_CODE:
        path = PACKAGE_DIR / entry
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path]
    _hash_files(digest, PACKAGE_DIR, files)
    return digest.hexdigest()


@lru_cache(maxsize=None)
def environment_version() -> str:
    """Hash of the Python version and every installed distribution with its version."""
    dists = sorted({f"{d.metadata['Name'] if 'Name' in d.metadata else ''}=={d.version}" for d in metadata.distributions()})
    return hashlib.sha256("\n".join([sys.version, *dists]).encode()).hexdigest()


@lru_cache(maxsize=None)
def encoder_version(name: str) -> str:
    """Hash of the encoder's name and, when it resolves to local files, of those files."""
    digest = hashlib.sha256(name.encode())
    path = Path(resolve_model_path(name))
    if path.is_dir():
        _hash_files(digest, path, sorted(p for p in path.rglob("*") if p.is_file()))
    elif path.is_file():
        _hash_files(digest, path.parent, [path])
    return digest.hexdigest()


def _json_default(value):
    if isinstance(value, (set, frozenset)):
        return sorted(value)
    raise TypeError(f"cannot hash a {type(value).__name__} in a topic record for the cache key")


def topic_digest(topic: Topic) -> str:
    """Hash of every field of the topic record: its questions (gold labels included) and documents."""
    text = json.dumps(dataclasses.asdict(topic), sort_keys=True, ensure_ascii=False, default=_json_default)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class AnalysisCache:
    """Analyses of topics under `root`, made with `encoder`; `salt` hashes code, packages and encoder."""

    root: Path
    encoder: str
    salt: str
    documents: bool = True  # whether the analyses read the documents

    @classmethod
    def open(cls, root: str | os.PathLike, encoder: str, documents: bool = True) -> "AnalysisCache":
        salt = hashlib.sha256(
            f"{code_version()}\n{environment_version()}\n{encoder_version(encoder)}\ndocuments={documents}".encode())
        return cls(Path(root).expanduser().resolve(), encoder, salt.hexdigest(), documents)

    def path(self, topic: Topic) -> Path:
        key = hashlib.sha256(f"{self.salt}\n{topic_digest(topic)}".encode()).hexdigest()
        return self.root / f"topic-{topic.topic_id}-{key[:32]}.pickle"

    def load(self, topic: Topic) -> TopicAnalysis | None:
        """The cached analysis, or None when absent, unreadable or not an entry of this format and key (then
        with a warning that names the file)."""
        path = self.path(topic)
        if not trusted(path, log):  # unpickling runs code: never what another user could have written
            return None
        try:
            with open(path, "rb") as handle:
                entry = pickle.load(handle)
        except FileNotFoundError:
            return None
        except Exception as err:  # a damaged entry is recomputed and replaced
            log.warning("%s: unreadable cache entry (%s: %s); recomputing", path, type(err).__name__, err)
            return None
        if not (isinstance(entry, dict) and entry.get("format") == CACHE_FORMAT and entry.get("key") == path.stem
                and isinstance(entry.get("analysis"), TopicAnalysis)):
            log.warning("%s: not a cache entry of this version (%s); recomputing", path, type(entry).__name__)
            return None
        return entry["analysis"]

    def store(self, topic: Topic, analysis: TopicAnalysis) -> None:
        """Write the entry atomically; a folder that cannot be written only costs a warning."""
        path = self.path(topic)
        if not trusted(path, log):
            return
        try:
            self.root.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=self.root)
        except OSError as err:
            log.warning("cannot write to the cache folder %s: %s", self.root, err)
            return
        try:
            with os.fdopen(fd, "wb") as handle:
                entry = {"format": CACHE_FORMAT, "key": path.stem, "analysis": analysis}
                pickle.dump(entry, handle, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)
        except BaseException as err:
            os.unlink(tmp)
            if not isinstance(err, OSError):
                raise
            log.warning("cannot write the cache entry %s: %s", path, err)

    def analyse(self, topic: Topic) -> tuple[TopicAnalysis, bool]:
        """The topic's analysis from the cache, or computed and stored; and whether it came from the cache."""
        analysis = self.load(topic)
        if analysis is not None:
            return analysis, True
        analysis = analyse_topic(topic, self.encoder, self.documents)
        self.store(topic, analysis)
        return analysis, False
