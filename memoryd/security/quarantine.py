"""Quarantine: move an unopenable store (database, WAL, SHM, vector folder) aside, never delete it; the marker.

$OSAURUS_HOME/quarantine/<stamp>/ holds memory.sqlite with its sidecars and vectors/. While the store is degraded,
$OSAURUS_HOME/memory/degraded.json names that folder and the cause, so a restart stays degraded (and retries)
instead of silently starting an empty store.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from memoryd.storage.private import private_folder, tighten

_log = logging.getLogger("memoryd.security")

SIDECARS = ("", "-wal", "-shm")


@dataclass(frozen=True)
class StorePaths:
    """Where the store, its vectors, the keys, the quarantine and the degraded marker live."""

    database: Path
    vectors: Path
    keys: Path
    quarantine: Path

    @property
    def marker(self) -> Path:
        """memory/degraded.json."""
        return self.database.parent / "degraded.json"

    @property
    def converting(self) -> Path:
        """Where a conversion writes the new file before swapping it in."""
        return self.database.parent / f".{self.database.name}.converting"


@dataclass(frozen=True)
class Marker:
    """Why the store is degraded and where the original went (None: nothing was there to move)."""

    kind: str
    reason: str
    folder: Path | None
    at_ms: int


def files_of(database: Path) -> list[Path]:
    """The database and whichever of its WAL/SHM files exist."""
    return [Path(f"{database}{s}") for s in SIDECARS if Path(f"{database}{s}").exists()]


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def set_aside(paths: StorePaths, *, with_vectors: bool = True) -> Path | None:
    """Move the database, its sidecars (and the vector folder) into a fresh quarantine folder; None if none exist.

    Renames only: nothing is copied or deleted.
    """
    present = files_of(paths.database)
    if not present:
        return None
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    moved = paths.quarantine / f"{stamp}-{secrets.token_hex(3)}"
    private_folder(moved.parent)
    moved.mkdir(mode=0o700)
    for path in present:
        os.replace(path, moved / path.name)
    if with_vectors and paths.vectors.is_dir():
        os.replace(paths.vectors, moved / "vectors")
    _fsync_dir(moved)
    _fsync_dir(paths.database.parent)
    return moved


def quarantine(paths: StorePaths, kind: str, reason: str) -> Path | None:
    """Set the store aside and write the degraded marker; the folder, or None when there was no file to move."""
    moved = set_aside(paths)
    if moved is not None:
        _log.warning("memory store quarantined in %s (%s)", moved, kind)
    write_marker(paths, Marker(kind, reason, moved, int(time.time() * 1000)))
    return moved


def quarantined_database(folder: Path, paths: StorePaths) -> Path:
    """The database file inside a quarantine folder."""
    return folder / paths.database.name


def restore(paths: StorePaths, folder: Path) -> None:
    """Move a quarantined store back into place (the live database must be absent)."""
    if paths.database.exists():
        raise FileExistsError(f"{paths.database} exists; not overwriting it")
    source = quarantined_database(folder, paths)
    for suffix in SIDECARS:
        candidate = Path(f"{source}{suffix}")
        if candidate.exists():
            os.replace(candidate, Path(f"{paths.database}{suffix}"))
    if (folder / "vectors").is_dir() and not paths.vectors.exists():
        os.replace(folder / "vectors", paths.vectors)
    _fsync_dir(paths.database.parent)
    with contextlib.suppress(OSError):
        folder.rmdir()  # only when empty: anything else stays where it is


def write_marker(paths: StorePaths, marker: Marker) -> None:
    """Record the degraded state (tmp + rename)."""
    private_folder(paths.marker.parent)
    tmp = paths.marker.with_name(f".{paths.marker.name}.{secrets.token_hex(3)}")
    data = {
        "kind": marker.kind,
        "reason": marker.reason,
        "folder": str(marker.folder) if marker.folder is not None else "",
        "at_ms": marker.at_ms,
    }
    tmp.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    tighten(tmp)
    os.replace(tmp, paths.marker)


def read_marker(paths: StorePaths) -> Marker | None:
    """The degraded marker, or None when the store is not (known to be) degraded."""
    try:
        data = json.loads(paths.marker.read_text(encoding="utf-8"))
        folder = str(data.get("folder", ""))
        return Marker(
            str(data["kind"]), str(data["reason"]), Path(folder) if folder else None, int(data["at_ms"])
        )
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def clear_marker(paths: StorePaths) -> None:
    """The store is healthy again."""
    paths.marker.unlink(missing_ok=True)


__all__ = [
    "Marker",
    "StorePaths",
    "clear_marker",
    "files_of",
    "quarantine",
    "quarantined_database",
    "read_marker",
    "restore",
    "set_aside",
    "write_marker",
]
