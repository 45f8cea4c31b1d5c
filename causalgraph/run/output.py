"""A command's output files, checked before any work starts (then written together by data.files.write_files)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Iterable

from ..data.files import special_kind, temporary_beside


class OutputError(ValueError):
    """An output that must not or cannot be written; the message names the option and the file."""


def check_outputs(outputs: dict[str, str | os.PathLike | None], inputs: Iterable[Path],
                  folders: dict[str, str | os.PathLike | None] | None = None) -> dict[str, Path]:
    """The given outputs by option name, resolved (symlinks followed). OutputError when one is an input of the
    run (an input file however spelt, a link or hard link included, or a file the loader may read inside an input
    folder: _data_file), two name the same file, one is (or holds) a folder that the run writes in (`folders` by option
    name: the cache folder), or one cannot be written (a folder, a device, pipe or socket, a read-only place):
    found before any work starts."""
    inputs = {Path(p).expanduser().resolve() for p in inputs if Path(p).expanduser().exists()}
    input_folders = {p for p in inputs if p.is_dir()}
    input_ids = {_file_id(p) for p in inputs - input_folders}
    writes_in = {option: Path(f).expanduser().resolve() for option, f in (folders or {}).items() if f is not None}
    resolved: dict[str, Path] = {}
    for option, given in outputs.items():
        if given is None:
            continue
        try:
            path = Path(given).expanduser().resolve()
        except (OSError, RuntimeError) as err:  # a symlink loop
            raise OutputError(f"{option} {given}: cannot be resolved ({err})") from None
        if path in inputs or (path.exists() and (_file_id(path) in input_ids or (
                not input_folders.isdisjoint(path.parents) and _data_file(path)))):
            raise OutputError(f"{option} {given}: is an input of this run; refusing to overwrite it")
        same = [other for other, p in resolved.items() if p == path]
        if same:
            raise OutputError(f"{option} {given}: {same[0]} names the same file")
        inside = [other for other, f in writes_in.items() if f == path or path in f.parents]
        if inside:
            raise OutputError(f"{option} {given}: {inside[0]} {writes_in[inside[0]]} is a folder there; give them "
                              "apart")
        if path.is_dir():
            raise OutputError(f"{option} {given}: is a folder")
        kind = special_kind(path)
        if kind:
            raise OutputError(f"{option} {given}: is {kind}, not a regular file; refusing to write to it")
        folder = next(p for p in path.parents if os.path.lexists(p))  # the folders below it are made when writing
        if not folder.is_dir():
            raise OutputError(f"{option} {given}: cannot be written ({folder} is not a folder)")
        try:
            os.unlink(temporary_beside(folder / path.name, ".probe"))
        except OSError as err:
            raise OutputError(f"{option} {given}: cannot be written ({err.strerror or err})") from None
        resolved[option] = path
    return resolved


def _data_file(path: Path) -> bool:
    """Whether a file in a data folder is one the loader may read: questions.jsonl, docs.json or a topic file
    (.json, .yaml); the run's own outputs beside them (answers, pages) are not."""
    return path.name in ("questions.jsonl", "docs.json") or path.suffix.lower() in (".json", ".yaml", ".yml")


def _file_id(path: Path) -> tuple[int, int]:
    """What names a file whatever its path (hard links included): its device and inode."""
    found = path.stat()
    return found.st_dev, found.st_ino


def jsonl(records: Iterable[dict]) -> str:
    """One JSON object a line."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)

