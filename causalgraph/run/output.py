"""Output files: checked before any work starts, then written together (all of them or none), each through a
temporary file beside it that is renamed into place only when complete. The old outputs are renamed aside
before the first new one is renamed in, so that even a run killed midway leaves no new output beside an old
one; the debris of such a run (its temporary and set-aside files) goes when the same outputs are next
written."""

from __future__ import annotations

import hashlib
import json
import logging
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Iterable

log = logging.getLogger(__name__)

KINDS = {stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device", stat.S_ISFIFO: "a named pipe",
         stat.S_ISSOCK: "a socket"}


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


def special_kind(path: Path) -> str | None:
    """What `path` is when it exists and is neither a regular file nor a folder (symlinks followed)."""
    try:
        mode = path.stat().st_mode
    except (FileNotFoundError, NotADirectoryError):
        return None
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    return next((kind for test, kind in KINDS.items() if test(mode)), "not a regular file")


def check_outputs(outputs: dict[str, str | os.PathLike | None], inputs: Iterable[Path],
                  folders: dict[str, str | os.PathLike | None] | None = None) -> dict[str, Path]:
    """The given outputs by option name, resolved (symlinks followed). OutputError when one is an input file of
    the run, two name the same file, one is (or holds) a folder that the run writes in (`folders` by option
    name: the cache folder), or one cannot be written (a folder, a device, pipe or socket, a read-only place):
    found before any work starts."""
    inputs = {Path(p).resolve() for p in inputs if Path(p).exists()}
    writes_in = {option: Path(f).expanduser().resolve() for option, f in (folders or {}).items() if f is not None}
    resolved: dict[str, Path] = {}
    for option, given in outputs.items():
        if given is None:
            continue
        try:
            path = Path(given).expanduser().resolve()
        except (OSError, RuntimeError) as err:  # a symlink loop
            raise OutputError(f"{option} {given}: cannot be resolved ({err})") from None
        if path in inputs:
            raise OutputError(f"{option} {given}: is an input of this run; refusing to overwrite it")
        same = [other for other, p in resolved.items() if p == path]
        if same:
            raise OutputError(f"{option} {given}: {same[0]} names the same file")
        inside = [other for other, f in writes_in.items() if f == path or path in f.parents]
        if inside:
            raise OutputError(f"{option} {given}: {inside[0]} {writes_in[inside[0]]} is a folder there; give them apart")
        if path.is_dir():
            raise OutputError(f"{option} {given}: is a folder")
        kind = special_kind(path)
        if kind:
            raise OutputError(f"{option} {given}: is {kind}, not a regular file; refusing to write to it")
        folder = next(p for p in path.parents if os.path.lexists(p))  # the folders below it are made when writing
        if not folder.is_dir():
            raise OutputError(f"{option} {given}: cannot be written ({folder} is not a folder)")
        try:
            os.unlink(_beside(folder / path.name, ".probe"))
        except OSError as err:
            raise OutputError(f"{option} {given}: cannot be written ({err.strerror or err})") from None
        resolved[option] = path
    return resolved


def _stem(path: Path) -> str:
    """The part of the name of `path` that its temporary files bear: the name itself, or for a name too long to
    leave room in a file name (255 bytes) for the rest, its first hundred bytes and a hash of the whole."""
    name = path.name
    if len(os.fsencode(name)) <= 200:
        return name
    short = name
    while len(os.fsencode(short)) > 100:
        short = short[:-1]
    return f"{short}~{hashlib.sha256(os.fsencode(name)).hexdigest()[:16]}"


def _beside(path: Path, suffix: str) -> str:
    """A new empty file beside `path`, named after it and this process, so that a later run can tell the
    debris of a dead one."""
    fd, name = tempfile.mkstemp(prefix=f".{_stem(path)}.{os.getpid()}-", suffix=suffix, dir=path.parent)
    os.close(fd)
    return name


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except (ProcessLookupError, OverflowError):
        return False
    except PermissionError:  # another user's process
        pass
    return True


def remove_debris(path: Path) -> None:
    """Remove the temporary and set-aside files that runs no longer alive left beside the output `path`."""
    pattern = re.compile(rf"\.{re.escape(_stem(path))}\.(?:(\d+)-)?[a-z0-9_]{{8}}\.(?:tmp|old|probe)")
    try:
        entries = list(os.scandir(path.parent))
    except FileNotFoundError:
        return
    for entry in entries:
        match = pattern.fullmatch(entry.name)
        if match and entry.is_file(follow_symlinks=False) and not (match.group(1) and _alive(int(match.group(1)))):
            try:
                os.unlink(entry.path)
            except FileNotFoundError:  # another run removed it first
                pass
            except OSError as err:
                log.warning("cannot remove %s, left by an earlier run: %s", entry.path, err.strerror or err)


def write_files(files: dict[Path, str | bytes]) -> None:
    """Write every file (a symlink: the file it points to) to a temporary file beside it, rename the old
    outputs aside, then rename the new ones into place. On any error (Ctrl-C included) every output is left
    as it was: the old ones come back, a new one is removed, and the temporary files and the folders made for
    the outputs go. OSError, before anything is written, for an output that exists and is not a regular file."""
    targets = {Path(os.path.realpath(path)): content for path, content in files.items()}
    for path in targets:
        kind = special_kind(path)
        if kind or path.is_dir():
            raise OSError(f"{path}: is {kind or 'a folder'}, not a regular file; refusing to write to it")
    made: list[str] = []  # every temporary and set-aside file, removed on failure where still there
    folders: list[Path] = []  # the folders made here, removed on failure
    temps: dict[Path, str] = {}
    aside: dict[Path, str] = {}
    placed: list[Path] = []
    try:
        for path in targets:
            for folder in reversed([p for p in path.parents if not os.path.lexists(p)]):
                folder.mkdir()
                folders.append(folder)
            remove_debris(path)
        for path, content in targets.items():
            made.append(_beside(path, ".tmp"))
            temps[path] = made[-1]
            with open(temps[path], "wb") as handle:
                handle.write(content if isinstance(content, bytes) else content.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temps[path], file_mode(path))
        for path in targets:
            if os.path.lexists(path):
                made.append(_beside(path, ".old"))
                os.replace(path, made[-1])
                aside[path] = made[-1]
        for path in targets:
            os.replace(temps[path], path)
            placed.append(path)
    except BaseException:
        for path in placed:
            if path not in aside:
                os.unlink(path)
        for path, old in aside.items():
            os.replace(old, path)
        for leftover in made:
            if os.path.exists(leftover):
                os.unlink(leftover)
        for folder in reversed(folders):
            try:
                folder.rmdir()
            except OSError:  # something else was put there meanwhile
                pass
        raise
    for old in aside.values():
        os.unlink(old)


def jsonl(records: Iterable[dict]) -> str:
    """One JSON object a line."""
    return "".join(json.dumps(record, ensure_ascii=False) + "\n" for record in records)

