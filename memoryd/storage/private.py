"""Private files and folders: memoryd's data is the user's memory, so 0600 files and 0700 folders, whatever the umask.

Modes are set explicitly (chmod), not only requested at creation: the umask can take bits away from a requested
mode but a careless one (000) must not add any, and stores created by older releases (0644 / 0755) are tightened
when opened.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

FILE_MODE = 0o600
FOLDER_MODE = 0o700


def private_folder(path: Path) -> Path:
    """Create `path` (and missing parents) as 0700 folders; an existing `path` is set to 0700 too."""
    missing: list[Path] = []
    current = path
    while not current.exists():
        missing.append(current)
        if current.parent == current:
            break
        current = current.parent
    path.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
    for folder in (*missing, path):
        with contextlib.suppress(FileNotFoundError, PermissionError):
            os.chmod(folder, FOLDER_MODE)
    return path


def private_file(path: Path) -> None:
    """Create `path` empty if missing, and set it to 0600."""
    with contextlib.suppress(FileExistsError):
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, FILE_MODE))
    tighten(path)


def tighten(path: Path) -> None:
    """Set an existing file to 0600 (a missing one, or one we may not change, is left alone)."""
    with contextlib.suppress(FileNotFoundError, PermissionError):
        if path.stat().st_mode & 0o777 != FILE_MODE:
            os.chmod(path, FILE_MODE)


def tighten_store(database: Path) -> None:
    """The SQLite file and its -wal / -shm to 0600 (SQLite gives the latter the main file's mode when it creates
    them; ones left by an older release keep theirs until this)."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        tighten(Path(f"{database}{suffix}"))


__all__ = ["FILE_MODE", "FOLDER_MODE", "private_file", "private_folder", "tighten", "tighten_store"]
