"""The store file under SQLCipher: plaintext ⇄ encrypted conversion and re-keying (write a new file with
sqlcipher_export, then swap it in), trying a key, and pointing the live Database at another file.

memoryd.security decides when and with which key (memoryd/security/manager.py); the statements are here.

Crash safety: the new file is written under a temporary name and fsynced while the live store stays untouched;
os.replace swaps it in atomically. A crash before the rename leaves the original (the temporary file is removed
on the next start), after it the converted file; the new key is on disk before the rename, so either opens.

Live swap: writes are held for the whole conversion; every connection is closed, and before the rename the old
file must accept `journal_mode=DELETE`, which SQLite only allows when no other connection (not even a closing
"zombie" with an unfinished statement) has it open. That proves no handle can later checkpoint into, or delete,
the WAL of the file that replaces it.
"""

from __future__ import annotations

import gc
import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from memoryd.storage.db import Database
from memoryd.storage.handle import Database as AnyDatabase
from memoryd.storage.keyed import DB_ERRORS, connect_cipher, connect_raw

#: How long a swap waits for the last reader to let go of the old file.
QUIET_WAIT_S = 10.0


class StoreBusyError(RuntimeError):
    """Connections to the old file did not close in time; nothing was changed."""


@dataclass(frozen=True)
class Conversion:
    """What a conversion did: rows copied (all tables) and how long copying and swapping took."""

    rows: int
    copy_s: float
    swap_s: float


def _key_literal(key: bytes | None) -> str:
    return f"x'{key.hex()}'" if key is not None else ""


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _row_counts(conn: object, schema: str) -> dict[str, int]:
    execute = conn.execute  # type: ignore[attr-defined]
    names = [
        str(r[0])
        for r in execute(
            f"SELECT name FROM {schema}.sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL%'"
        ).fetchall()
    ]
    return {name: int(execute(f'SELECT count(*) FROM {schema}."{name}"').fetchone()[0]) for name in names}


def export_copy(source: Path, source_key: bytes | None, target: Path, target_key: bytes | None) -> int:
    """Copy schema and data of `source` into a new file `target` (plaintext when target_key is None).

    Row counts of every table are compared before returning; returns the number of rows copied.
    """
    target.unlink(missing_ok=True)
    os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))  # private from the first byte
    conn = connect_cipher(source, source_key)
    try:
        conn.execute(f'ATTACH DATABASE ? AS target KEY "{_key_literal(target_key)}"', (str(target),))
        conn.execute("SELECT sqlcipher_export('target')")
        copied, original = _row_counts(conn, "target"), _row_counts(conn, "main")
        conn.execute("DETACH DATABASE target")
    finally:
        conn.close()
    if copied != original:
        target.unlink(missing_ok=True)
        raise RuntimeError("the converted copy does not have the same rows as the store")
    _fsync(target)
    return sum(copied.values())


def wait_quiet(path: Path, key: bytes | None, timeout_s: float = QUIET_WAIT_S) -> None:
    """Return once no connection holds `path` (it then leaves WAL mode); StoreBusyError after timeout_s."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            conn = connect_raw(path, key, timeout_s=0.05)
            try:
                mode = str(conn.execute("PRAGMA journal_mode = DELETE").fetchone()[0]).lower()
            finally:
                conn.close()
            if mode == "delete":
                return
        except DB_ERRORS:
            pass
        if time.monotonic() >= deadline:
            raise StoreBusyError("the store is still in use; try again")
        gc.collect()  # an abandoned cursor keeps its closed connection alive until collected
        time.sleep(0.05)


def _take_offline(db: Database, old_key: bytes | None, quiet_wait_s: float) -> None:
    """Close every connection and wait until the file is free; back online on it if that fails."""
    db.pw.go_offline()
    try:
        wait_quiet(db.path, old_key, quiet_wait_s)
    except BaseException:
        db.swap(db.path, old_key)
        raise


def _install(db: Database, staged: Path, new_key: bytes | None) -> None:
    """With the store offline and free: rename `staged` over it and go online with `new_key`."""
    live = db.path
    for suffix in ("-wal", "-shm"):
        Path(f"{live}{suffix}").unlink(missing_ok=True)  # empty after DELETE mode: nothing is lost
    os.replace(staged, live)
    _fsync(live.parent)
    db.swap(live, new_key)


def swap_file(
    db: Database,
    staged: Path,
    new_key: bytes | None,
    old_key: bytes | None,
    quiet_wait_s: float = QUIET_WAIT_S,
) -> None:
    """With writes held: close every connection, wait until the old file is free, rename `staged` over it."""
    try:
        _take_offline(db, old_key, quiet_wait_s)
    except BaseException:
        staged.unlink(missing_ok=True)
        raise
    _install(db, staged, new_key)


def convert_live(
    db: Database,
    staged: Path,
    old_key: bytes | None,
    new_key: bytes | None,
    quiet_wait_s: float = QUIET_WAIT_S,
) -> Conversion:
    """Re-write the open store under `new_key` (None: plaintext) and swap it in while memoryd keeps serving.

    A plaintext store is served by the standard library's SQLite but exported by SQLCipher's own copy: two SQLite
    libraries must never have one file open in one process (POSIX locks are per process, so each thinks it is
    alone and re-initialises the -shm under the other: SIGBUS, or a corrupt store). So a plaintext store goes
    offline before the export (reads wait for the copy); an encrypted one is exported by the library serving it.
    """
    with db.writes_held():
        started = time.perf_counter()
        if old_key is not None:
            rows = export_copy(db.path, old_key, staged, new_key)
            copied = time.perf_counter()
            swap_file(db, staged, new_key, old_key, quiet_wait_s)
            return Conversion(rows, copied - started, time.perf_counter() - copied)
        _take_offline(db, None, quiet_wait_s)
        try:
            rows = export_copy(db.path, None, staged, new_key)
        except BaseException:
            staged.unlink(missing_ok=True)
            db.swap(db.path, None)
            raise
        copied = time.perf_counter()
        _install(db, staged, new_key)
    return Conversion(rows, copied - started, time.perf_counter() - copied)


def key_opens(path: Path, key: bytes | None) -> bool:
    """Whether `key` (None: no key) opens the store file at `path`."""
    try:
        connect_raw(path, key).close()
    except DB_ERRORS:
        return False
    return True


class LiveStoreFile:
    """The file under the live Database, as memoryd.security swaps it (built by the composition root)."""

    def __init__(self, db: AnyDatabase) -> None:
        if not isinstance(db, Database):
            raise TypeError("only a SQLite store has a file to convert")
        self._db = db

    @property
    def path(self) -> Path:
        """The file the store is open on now."""
        return self._db.path

    @contextmanager
    def writes_held(self) -> Iterator[None]:
        """Hold every write (BufferTurn, the writer, consolidation) until the block ends."""
        with self._db.writes_held():
            yield

    def convert(
        self, staged: Path, old_key: bytes | None, new_key: bytes | None, quiet_wait_s: float = QUIET_WAIT_S
    ) -> Conversion:
        """Re-write the open store under `new_key` (None: plaintext) and swap it in (convert_live)."""
        return convert_live(self._db, staged, old_key, new_key, quiet_wait_s)

    def reopen(self, path: Path, key: bytes | None) -> None:
        """Close every connection and point the store (every thread) at `path`, opened with `key`."""
        with self._db.writes_held():
            self._db.pw.go_offline()
            self._db.swap(path, key)


__all__ = [
    "QUIET_WAIT_S",
    "Conversion",
    "LiveStoreFile",
    "StoreBusyError",
    "convert_live",
    "export_copy",
    "key_opens",
    "swap_file",
    "wait_quiet",
]
