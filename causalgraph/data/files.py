"""Files written whole or not at all, the one way every output, cache entry and page is written: each through a
temporary file beside it that is renamed into place only when complete. Several files are written together
(all of them or none): the old ones are renamed aside before the first new one is renamed in, so that even a
run killed midway leaves no new file beside an old one; the debris of such a run (its temporary and set-aside
files) goes when the same files are next written."""

from __future__ import annotations

import hashlib
import logging
import os
import re
import stat
import tempfile
from pathlib import Path

log = logging.getLogger(__name__)

KINDS = {stat.S_ISCHR: "a character device", stat.S_ISBLK: "a block device", stat.S_ISFIFO: "a named pipe",
         stat.S_ISSOCK: "a socket"}


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


def temporary_beside(path: Path, suffix: str) -> str:
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


def write_files(files: dict[Path, str | bytes], mode: int | None = None) -> None:
    """Write every file (a symlink: the file it points to) to a temporary file beside it, rename the old
    outputs aside, then rename the new ones into place. On any error (Ctrl-C included) every output is left
    as it was: the old ones come back, a new one is removed, and the temporary files and the folders made for
    the outputs go. OSError, before anything is written, for an output that exists and is not a regular file.
    `mode`: that of every file written (default: file_mode)."""
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
                try:
                    folder.mkdir()
                except FileExistsError:
                    if folder.is_dir():  # made meanwhile by another writer (a thread, a process): not ours
                        continue
                    raise
                folders.append(folder)
            remove_debris(path)
        for path, content in targets.items():
            made.append(temporary_beside(path, ".tmp"))
            temps[path] = made[-1]
            with open(temps[path], "wb") as handle:
                handle.write(content if isinstance(content, bytes) else content.encode("utf-8"))
                handle.flush()
                os.fsync(handle.fileno())
            os.chmod(temps[path], file_mode(path) if mode is None else mode)
        for path in targets:
            if os.path.lexists(path):
                made.append(temporary_beside(path, ".old"))
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
