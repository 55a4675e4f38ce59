"""Files that matter, written atomically: into a temporary file beside the target,
flushed and fsynced, renamed over it, then the directory fsynced (the rename itself
survives a power cut). A crash at any point leaves the previous file whole; a reader
never sees half a file. The one helper every writer of the project uses."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any


def fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: str | Path, write: Callable[[IO], Any], binary: bool = False) -> Path:
    """Write ``path`` through ``write(file)`` (a text file, or a binary one with
    ``binary``); its directory is made if missing."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb" if binary else "w", encoding=None if binary else "utf-8") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)
    return path


def atomic_write_text(path: str | Path, text: str) -> Path:
    return atomic_write(path, lambda f: f.write(text))


def atomic_write_bytes(path: str | Path, data: bytes) -> Path:
    return atomic_write(path, lambda f: f.write(data), binary=True)


def remove_stale(root: str | Path) -> list[Path]:
    """Delete the temporary files (``.NAME.*.tmp``) a killed writer left under ``root``:
    never a finished file, only the half of one. A run calls it at start, when no
    writer of its directory is alive. Returns what it removed."""
    gone = []
    for p in Path(root).rglob(".*.tmp"):
        if p.is_file():
            p.unlink(missing_ok=True)
            gone.append(p)
    return gone
