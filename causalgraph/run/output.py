"""Output files: checked before any work starts, then written together (all of them or none), each through a
temporary file beside it that is renamed into place only when complete."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterable


class OutputError(ValueError):
    """An output that must not or cannot be written; the message names the option and the file."""


def file_mode(path: Path) -> int:
    """The mode an output gets: an existing file keeps its own, a new one gets 0666 less the umask."""
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def check_outputs(outputs: dict[str, str | os.PathLike | None], inputs: Iterable[Path]) -> dict[str, Path]:
    """The given outputs by option name, resolved. OutputError when one is an input file of the run, two name
    the same file, or one cannot be written (a folder, a read-only place): found before any work starts."""
    inputs = {Path(p).resolve() for p in inputs if Path(p).exists()}
    resolved: dict[str, Path] = {}
    for option, given in outputs.items():
        if given is None:
            continue
        path = Path(given).expanduser().resolve()
        if path in inputs:
            raise OutputError(f"{option} {given}: is an input of this run; refusing to overwrite it")
        same = [other for other, p in resolved.items() if p == path]
        if same:
            raise OutputError(f"{option} {given}: {same[0]} names the same file")
        if path.is_dir():
            raise OutputError(f"{option} {given}: is a folder")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, probe = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".probe", dir=path.parent)
            os.close(fd)
            os.unlink(probe)
        except OSError as err:
            raise OutputError(f"{option} {given}: cannot be written ({err.strerror or err})") from None
        resolved[option] = path
    return resolved


def write_files(files: dict[Path, str | bytes]) -> None:
    """Write every file to a temporary file beside it, then rename them all into place. On any error (Ctrl-C
    included) every target is left as it was: a target already replaced gets its old content back from a
    copy kept until all renames succeed, a new one is removed, and the temporary files go."""
    temps: list[tuple[str, Path]] = []
    backups: dict[Path, str | None] = {}
    replaced: list[Path] = []
    try:
        for path, content in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            temps.append((tmp, path))
            with os.fdopen(fd, "wb") as handle:
                handle.write(content if isinstance(content, bytes) else content.encode("utf-8"))
            os.chmod(tmp, file_mode(path))
        for tmp, path in temps:
            backups[path] = None
            if path.exists():
                fd, backups[path] = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".old", dir=path.parent)
                os.close(fd)
                shutil.copy2(path, backups[path])
            os.replace(tmp, path)
            replaced.append(path)
    except BaseException:
        for path in replaced:
            if backups[path] is None:
                path.unlink()
            else:
                os.replace(backups.pop(path), path)
        for leftover in [*(b for b in backups.values() if b), *(t for t, _ in temps)]:
            if os.path.exists(leftover):
                os.unlink(leftover)
        raise
    for backup in backups.values():
        if backup is not None:
            os.unlink(backup)


def jsonl(records: Iterable[dict]) -> str:
    """One JSON object a line."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)

