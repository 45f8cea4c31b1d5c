"""On-disk caches of the expensive steps: spaCy's reading of each document (`text.extract.read_documents`) and
the embeddings of its sentences and cue clauses (`evidence.retrieve.embed_readings`), and each topic's analysis
(`analysis.analyse_topic`).

A document's entries are keyed by what they depend on: its title, text and date, the installed packages, the
reading code (READING_CODE) and, for the embeddings, the encoder and how it embeds (VECTORS_CODE), so that topics
sharing documents (a topic cut in pieces, a rerun with other questions) read and embed each document once. A topic's
entry is keyed by its questions, the digests of the documents it reads, the encoder (its name and, for a local model,
its files), the installed packages and the analysis code (ANALYSIS_CODE). Changing any of them misses the cache; editing
a rule file, the scorer or the page template does not. A topic's entry is a pickle written to a temporary file and
renamed into place; the documents' entries are pickles in one SQLite file (DOCUMENTS), each written in a transaction of
its own, so that their files do not grow with the documents (10,000 tiny documents made 21,020 files, each write
scanning the folder). Either way parallel workers can share one folder and a reader never sees a half-written entry. An
entry records its format and key, and one whose type, format or key does not match is recomputed and replaced, with a
warning that names it. Entries are pickles, and unpickling runs code: the cache folder must be writable only by users
the reader trusts (it is the user's own ~/.cache/causalgraph by default); an entry, or a cache folder, that another user
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
import sqlite3
import sys
from collections.abc import Iterator
from contextlib import closing, contextmanager
from dataclasses import dataclass
from functools import lru_cache
from importlib import metadata
from pathlib import Path

from ..config import PACKAGE_DIR, trusted
from ..data import Document, Topic
from ..data.files import write_files
from ..text.embed import resolve_model_path
from ..text.extract import DocumentReading, iter_readings
from ..evidence.retrieve import DocumentVectors, iter_vectors
from .analyse import TopicAnalysis, analyse_topic

CACHE_FORMAT = 3  # bump when the entry layout changes
# The package's code that reading a document runs, and that `analyse_topic` runs, relative to the package folder.
READING_CODE = ("config.py", "data", "text")
VECTORS_CODE = READING_CODE + ("evidence/retrieve.py",)  # which encoder, and how, embeds the sentences
ANALYSIS_CODE = READING_CODE + ("graph", "evidence", "analysis/analyse.py", "analysis/table.py", "read",
                                "models/reader/reader.safetensors", "models/reader/reader.json")

DOCUMENTS = "documents.sqlite"  # the documents' entries, in the cache folder
DOCUMENTS_WAIT = 60.0  # seconds a worker waits for another's write to the documents' entries

log = logging.getLogger(__name__)


def _hash_files(digest, root: Path, files: list[Path]) -> None:
    for path in files:
        digest.update(f"{path.relative_to(root).as_posix()}\0".encode())
        with open(path, "rb") as handle:  # streamed: a model's weights are hundreds of MB
            digest.update(hashlib.file_digest(handle, "sha256").digest())


@lru_cache(maxsize=None)
def code_version(entries: tuple[str, ...] = ANALYSIS_CODE) -> str:
    """Hash of the package's code under `entries` (and of the files they name, the reader's weights among them;
    one that is missing, none)."""
    digest = hashlib.sha256()
    files = []
    for entry in entries:
        path = PACKAGE_DIR / entry
        files += sorted(path.rglob("*.py")) if path.is_dir() else [path] if path.exists() else []
    _hash_files(digest, PACKAGE_DIR, files)
    return digest.hexdigest()


@lru_cache(maxsize=None)
def environment_version() -> str:
    """Hash of the Python version and every installed distribution with its version."""
    dists = sorted({f"{d.metadata['Name'] if 'Name' in d.metadata else ''}=={d.version}"
                    for d in metadata.distributions()})
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


def document_digest(document: Document) -> str:
    """Hash of what reading a document depends on: its title, text and date (see text.extract.document_text)."""
    return hashlib.sha256(json.dumps([document.title, document.content, document.date],
                                     ensure_ascii=False).encode()).hexdigest()


def topic_digest(topic: Topic, documents: bool = True) -> str:
    """Hash of the topic's id, title and questions (gold labels included) and, where they are read, the digests
    of its documents and their sources."""
    record = {"topic_id": topic.topic_id, "title": topic.title,
              "questions": [dataclasses.asdict(q) for q in topic.questions],
              "documents": [[document_digest(d), d.doc_id, d.source] for d in topic.documents] if documents else None}
    text = json.dumps(record, sort_keys=True, ensure_ascii=False, default=_json_default)
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class AnalysisCache:
    """Analyses of topics and readings of documents under `root`, made with `encoder` (and read a second time with
    `second`, where given); `salt` hashes the analysis code, packages and encoders, `reading_salt` the reading code
    and packages."""

    root: Path
    encoder: str
    salt: str
    documents: bool = True  # whether the analyses read the documents
    reading_salt: str = ""
    second: str | None = None  # the encoder of a second reading (analysis.analyse.SecondReading)
    statements: bool = False  # whether the analyses hold the trained reader's statements (evidence/reading.py)

    @classmethod
    def open(cls, root: str | os.PathLike, encoder: str, documents: bool = True,
             second: str | None = None, statements: bool = False) -> "AnalysisCache":
        encoders = encoder_version(encoder) + (f"\nsecond={encoder_version(second)}" if second else "")
        salt = hashlib.sha256(f"{code_version()}\n{environment_version()}\n{encoders}\ndocuments={documents}"
                              f"\nstatements={statements}".encode())
        reading = hashlib.sha256(f"{code_version(READING_CODE)}\n{environment_version()}".encode())
        return cls(Path(root).expanduser().resolve(), encoder, salt.hexdigest(), documents, reading.hexdigest(), second,
                   statements)

    def vectors_salt(self, encoder: str) -> str:
        """The salt of the entries of the documents' embeddings by `encoder`."""
        return hashlib.sha256(f"{code_version(VECTORS_CODE)}\n{environment_version()}\n"
                              f"{encoder_version(encoder)}".encode()).hexdigest()

    def path(self, topic: Topic) -> Path:
        key = hashlib.sha256(f"{self.salt}\n{topic_digest(topic, self.documents)}".encode()).hexdigest()
        return self.root / f"topic-{topic.topic_id}-{key[:32]}.pickle"

    def document_key(self, document: Document, kind: str = "reading", encoder: str | None = None) -> str:
        """The key of a document's reading, or (`kind` "vectors") of its sentences' embeddings by the encoder (or
        `encoder`), among the documents' entries."""
        salt = self.reading_salt if kind == "reading" else self.vectors_salt(encoder or self.encoder)
        key = hashlib.sha256(f"{salt}\n{document_digest(document)}".encode()).hexdigest()
        return f"{kind}-{key[:32]}"

    def load(self, topic: Topic) -> TopicAnalysis | None:
        """The cached analysis, or None when absent, unreadable or not an entry of this format and key (then
        with a warning that names the file)."""
        return _load(self.path(topic), TopicAnalysis)

    def store(self, topic: Topic, analysis: TopicAnalysis) -> None:
        """Write the entry atomically; a folder that cannot be written only costs a warning."""
        _store(self.path(topic), analysis)

    def read(self, documents: list[Document]) -> list[DocumentReading]:
        """Each document's reading from the cache; the others read together by spaCy, each stored as soon as it
        is read (a run stopped midway keeps what it read)."""
        return self._per_document(documents, "reading", DocumentReading,
                                  lambda missing: iter_readings([documents[i] for i in missing]))

    def vectors(self, documents: list[Document], readings: list[DocumentReading],
                encoder: str | None = None) -> list[DocumentVectors]:
        """The embeddings of each document's sentences and cue clauses (by the encoder, or `encoder`) from the
        cache; the others encoded, each stored as soon as it is made."""
        encoder = encoder or self.encoder
        return self._per_document(documents, "vectors", DocumentVectors,
                                  lambda missing: iter_vectors([readings[i] for i in missing], encoder), encoder)

    def _per_document(self, documents: list[Document], kind: str, type_: type, compute,
                      encoder: str | None = None) -> list:
        """Each document's entry of `kind`; `compute(indices)` yields, in order, those of the documents at
        `indices` that the cache does not hold, each stored as it comes."""
        keys = [self.document_key(d, kind, encoder) for d in documents]
        path = self.root / DOCUMENTS
        with _document_entries(path) as entries:
            found = [_load_entry(entries, path, key, type_) for key in keys]
            missing = [i for i, r in enumerate(found) if r is None]
            for i, value in zip(missing, compute(missing) if missing else []):
                found[i] = value
                entries = _store_entry(entries, path, keys[i], value)
        return found

    def analyse(self, topic: Topic, seconds: dict[str, float] | None = None) -> tuple[TopicAnalysis, bool]:
        """The topic's analysis from the cache, or computed (its documents' readings and embeddings through the
        cache too; `seconds` gets the time of each stage, see analyse_topic) and stored; and whether it came from
        the cache."""
        analysis = self.load(topic)
        if analysis is not None:
            return analysis, True
        analysis = analyse_topic(topic, self.encoder, self.documents, self, seconds, second_encoder=self.second,
                                 statements=self.statements)
        self.store(topic, analysis)
        return analysis, False


def _load(path: Path, kind: type):
    """The value of the entry at `path`, or None when absent, unreadable, not an entry of this format, key
    and kind (then with a warning that names the file), or where another user could have written it."""
    if not trusted(path, log):  # unpickling runs code: never what another user could have written
        return None
    try:
        with open(path, "rb") as handle:
            data = handle.read()
    except FileNotFoundError:
        return None
    except OSError as err:
        log.warning("%s: unreadable cache entry (%s: %s); recomputing", path, type(err).__name__, err)
        return None
    return _unpickle(data, path, path.stem, kind)


def _unpickle(data: bytes, where: str | os.PathLike, key: str, kind: type):
    """The value of the pickled entry `data` of `key`, or None (with a warning that names `where`) when it is
    damaged or not an entry of this format, key and kind."""
    try:
        entry = pickle.loads(data)
    except Exception as err:  # a damaged entry is recomputed and replaced
        log.warning("%s: unreadable cache entry (%s: %s); recomputing", where, type(err).__name__, err)
        return None
    if not (isinstance(entry, dict) and entry.get("format") == CACHE_FORMAT and entry.get("key") == key
            and isinstance(entry.get("value"), kind)):
        log.warning("%s: not a cache entry of this version (%s); recomputing", where, type(entry).__name__)
        return None
    return entry["value"]


def _pickled(key: str, value) -> bytes:
    return pickle.dumps({"format": CACHE_FORMAT, "key": key, "value": value}, protocol=pickle.HIGHEST_PROTOCOL)


@contextmanager
def _document_entries(path: Path) -> Iterator[sqlite3.Connection | None]:
    """The documents' entries at `path` (made, readable and writable by this user only, where missing), or None,
    with a warning, where another user could have written them or they cannot be opened."""
    if not trusted(path, log):
        yield None
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o600))
        entries = sqlite3.connect(path, timeout=DOCUMENTS_WAIT, isolation_level=None)  # each write commits alone
    except (OSError, sqlite3.Error) as err:
        log.warning("cannot use the cache's document entries %s (%s); documents are read without them", path, err)
        yield None
        return
    with closing(entries):
        try:
            entries.execute("PRAGMA journal_mode = WAL")  # a write appends to the log, with no wait for the disk
            entries.execute("PRAGMA synchronous = NORMAL")
            entries.execute("CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, entry BLOB NOT NULL)")
        except sqlite3.Error as err:  # a damaged file, one that is no SQLite database, a folder not writable
            log.warning("cannot use the cache's document entries %s (%s); documents are read without them", path, err)
            yield None
            return
        yield entries


def _load_entry(entries: sqlite3.Connection | None, path: Path, key: str, kind: type):
    """The value of the entry `key` of the document entries at `path`, as _load reads a file's."""
    if entries is None:
        return None
    try:
        row = entries.execute("SELECT entry FROM entries WHERE key = ?", (key,)).fetchone()
    except sqlite3.Error as err:
        log.warning("%s:%s: unreadable cache entry (%s); recomputing", path, key, err)
        return None
    return None if row is None else _unpickle(row[0], f"{path}:{key}", key, kind)


def _store_entry(entries: sqlite3.Connection | None, path: Path, key: str, value) -> sqlite3.Connection | None:
    """Write the entry `key` of the document entries at `path`; the entries, or None (with a warning) once they
    cannot be written."""
    if entries is None:
        return None
    try:
        entries.execute("INSERT OR REPLACE INTO entries VALUES (?, ?)", (key, _pickled(key, value)))
    except sqlite3.Error as err:
        log.warning("cannot write the cache's document entries %s (%s); the rest are not stored", path, err)
        return None
    return entries


def _store(path: Path, value) -> None:
    """Write the entry atomically; a folder that cannot be written only costs a warning."""
    if not trusted(path, log):
        return
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        log.warning("cannot write to the cache folder %s: %s", path.parent, err)
        return
    try:
        write_files({path: _pickled(path.stem, value)}, mode=0o600)
    except OSError as err:
        log.warning("cannot write the cache entry %s: %s", path, err)
