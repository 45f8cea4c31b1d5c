"""Atomic output files: written to a temporary file beside the target and renamed only when complete."""

from __future__ import annotations

import json
import os
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Iterable, Iterator, TextIO


@contextmanager
def atomic_writer(path: str | os.PathLike) -> Iterator[TextIO]:
    """Yield a text handle; the file appears at `path` only if the block finishes without an exception
    (KeyboardInterrupt included). An existing file is replaced whole or left untouched."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            yield handle
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


def write_jsonl(path: str | os.PathLike, records: Iterable[dict]) -> None:
    """Write one JSON object a line, atomically."""
    with atomic_writer(path) as handle:
        for record in records:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
