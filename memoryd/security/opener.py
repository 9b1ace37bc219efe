"""Opening the store: plaintext or SQLCipher decided by the file's first 16 bytes, never by configuration.

| file                               | action                                                         |
|------------------------------------|----------------------------------------------------------------|
| starts with "SQLite format 3\\0"    | open as plaintext; keys are never read                          |
| non-empty without that header      | try the keys (active first); none opens it → degraded (locked) |
| missing or empty                   | create it as the posture says (plaintext, key file, passphrase)|

A store that cannot be opened is quarantined (memoryd.security.quarantine) and memoryd serves an empty scratch
store in its place until Retry or Reset.
"""

from __future__ import annotations

import logging
import os
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from memoryd.config import ServiceSettings
from memoryd.security.keys import (
    MODE_KEY_FILE,
    MODE_PASSPHRASE,
    MODE_PLAINTEXT,
    SOURCE_REQUEST,
    KeyFileError,
    KeyStore,
    StoreKey,
)
from memoryd.security.quarantine import (
    StorePaths,
    clear_marker,
    files_of,
    quarantine,
    quarantined_database,
    read_marker,
    restore,
    write_marker,
)
from memoryd.storage.conversion import key_opens
from memoryd.storage.private import private_folder
from memoryd.storage.store import InvalidSchemaNameError, Store, open_store

_log = logging.getLogger("memoryd.security")

SQLITE_HEADER = b"SQLite format 3\x00"
KIND_LOCKED = "locked"
KIND_CORRUPT = "corrupt"
KIND_MIGRATION = "migration"
KIND_UNKNOWN = "unknown"


@dataclass(frozen=True)
class KeyAttempts:
    """Which key sources find_key tried on an encrypted file (counts only; never key material).

    tried: (source, keys tried) in order — "key_file", or a passphrase source (keys.SOURCE_REQUEST, SOURCE_MEMORY,
    SOURCE_FILE) tried once per passphrase KDF file. passphrase_untried: KDF files no passphrase was available for.
    """

    tried: tuple[tuple[str, int], ...] = ()
    passphrase_untried: int = 0


SOURCE_KEY_FILE = "key_file"


class StoreOpenError(Exception):
    """The store could not be opened: kind (locked, corrupt, migration, unknown) and a reason without content."""

    def __init__(self, kind: str, reason: str, attempts: KeyAttempts | None = None) -> None:
        super().__init__(reason)
        self.kind = kind
        self.reason = reason
        #: The key sources tried, when the file was encrypted.
        self.attempts = attempts or KeyAttempts()


def file_kind(path: Path) -> str:
    """'missing' (absent or empty), 'plaintext' (SQLite header) or 'encrypted' (anything else)."""
    try:
        with path.open("rb") as handle:
            head = handle.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        return "missing"
    if not head:
        return "missing"
    return "plaintext" if head == SQLITE_HEADER else "encrypted"


def classify(error: BaseException) -> str:
    """Sort an open error like the reference app (StorageOpenIssueKind.classify)."""
    text = f"{type(error).__name__} {error}".lower()
    if "hmac" in text or "key verification" in text:
        return KIND_LOCKED
    if "migration" in text or "schema" in text:
        return KIND_MIGRATION
    if "not a database" in text or "notadb" in text or "malformed" in text:
        return KIND_CORRUPT
    return KIND_UNKNOWN


def find_key(path: Path, keys: KeyStore, passphrase: str | None = None) -> StoreKey:
    """The first available key that opens the encrypted file; StoreOpenError(locked) when none does.

    `passphrase` (RecoverStore's) is tried on passphrase keys first, then the remembered one or the passphrase
    file's.
    """
    phrases: list[tuple[str | None, str]] = [(passphrase, SOURCE_REQUEST)] if passphrase else []
    other, other_source = keys.passphrase_and_source()
    if other is not None and other != passphrase:
        phrases.append((other, other_source))
    counts: dict[str, int] = {}
    untried = 0
    for file in keys.candidate_files():
        if not keys.is_passphrase_file(file):
            options: list[tuple[str | None, str]] = [(None, SOURCE_KEY_FILE)]
        elif phrases:
            options = phrases
        else:
            untried += 1
            continue
        for phrase, label in options:
            try:
                candidate = keys.load(file, phrase)
            except KeyFileError:
                break
            if candidate is None:
                continue
            counts[label] = counts.get(label, 0) + 1
            if not key_opens(path, candidate.key):
                continue
            if label == SOURCE_REQUEST and phrase is not None:
                keys.remember_passphrase(phrase)  # it opens the store: keep it (memory only) for this process
            return candidate
    attempts = KeyAttempts(tuple(counts.items()), untried)
    tried = sum(counts.values())
    if tried == 0:
        missing = (
            f"{untried} passphrase key(s) need the passphrase (OSAURUS_MEMORY_PASSPHRASE_FILE, or RecoverStore "
            "RETRY with a passphrase)"
            if untried
            else "no key file or passphrase key was found under the keys folder"
        )
        raise StoreOpenError(
            KIND_LOCKED, f"the store is encrypted and no key is available: {missing}", attempts
        )
    sources = ", ".join(f"{n} from {label}" for label, n in counts.items())
    raise StoreOpenError(
        KIND_LOCKED,
        f"the store is encrypted and none of the {tried} available keys opens it ({sources})"
        + (f"; {untried} passphrase key(s) untried without a passphrase" if untried else ""),
        attempts,
    )


def open_existing(path: Path, keys: KeyStore, passphrase: str | None = None) -> tuple[Store, StoreKey | None]:
    """Open and migrate an existing file, choosing plaintext or a key by its content."""
    key = find_key(path, keys, passphrase) if file_kind(path) == "encrypted" else None
    try:
        store = open_store(path, key=key.key if key is not None else None)
    except Exception as error:  # any open or migration failure degrades the store; it is never fatal
        raise StoreOpenError(classify(error), f"{type(error).__name__}: {str(error)[:160]}") from error
    if key is not None and keys.posture().key_id != key.key_id:
        keys.set_posture(key.mode, key.key_id)  # a crash between swap and posture update, repaired
    return store, key


def key_for_new_store(keys: KeyStore) -> StoreKey | None:
    """The key a new store gets under the posture (None: plaintext), generating a key file when needed."""
    posture = keys.posture()
    if posture.mode == MODE_PLAINTEXT:
        return None
    active = keys.active()
    if active is not None:
        return active
    passphrase = keys.passphrase() if posture.mode == MODE_PASSPHRASE else None
    if passphrase is not None:
        fresh = keys.new_passphrase_key(passphrase)
    else:
        if posture.mode == MODE_PASSPHRASE:
            _log.warning(
                "no passphrase available for the new store; it is encrypted with a new key file instead"
            )
        fresh = keys.new_key_file()
    keys.set_posture(fresh.mode, fresh.key_id)
    return fresh


def create_store(path: Path, keys: KeyStore) -> tuple[Store, StoreKey | None]:
    """Create an empty store at `path` as the posture says."""
    key = key_for_new_store(keys)
    # An empty file or orphaned WAL/SHM files: a stale WAL would be replayed into the new store, so move them aside.
    leftovers = files_of(path)
    if leftovers:
        folder = path.parent / ".orphans" / f"{time.time_ns()}"
        private_folder(folder)
        for leftover in leftovers:
            os.replace(leftover, folder / leftover.name)
    return open_store(path, key=key.key if key is not None else None), key


def recover_quarantined(
    paths: StorePaths, keys: KeyStore, folder: Path, passphrase: str | None = None
) -> StoreKey | None:
    """Open the quarantined copy in place (proving the key, migrating), close it and move it back."""
    store, key = open_existing(quarantined_database(folder, paths), keys, passphrase)
    store.close()
    restore(paths, folder)
    return key


def scratch_store() -> tuple[Store, Path]:
    """An empty plaintext store in a private temporary folder, served while degraded (writes are refused)."""
    folder = Path(tempfile.mkdtemp(prefix="memoryd-degraded-"))
    return open_store(folder / "empty.sqlite"), folder


@dataclass
class Opened:
    """What the opener produced: the store to serve, its key, and the failure when degraded."""

    store: Store
    key: StoreKey | None
    failure: StoreOpenError | None = None
    scratch: Path | None = None


def _degraded(failure: StoreOpenError) -> Opened:
    store, folder = scratch_store()
    _log.warning("memory store degraded (%s): %s", failure.kind, failure.reason)
    return Opened(store, None, failure, folder)


def open_memory_store(paths: StorePaths, keys: KeyStore) -> Opened:
    """Open the live store, retry a quarantined one, or create one; degrade (never raise, never delete) on failure."""
    paths.converting.unlink(
        missing_ok=True
    )  # a conversion that crashed before its swap; the original is intact
    marker = read_marker(paths)
    if marker is not None and file_kind(paths.database) == "missing":
        try:
            if marker.folder is not None:
                key = recover_quarantined(paths, keys, marker.folder)
                store = open_store(paths.database, key=key.key if key is not None else None)
            else:
                store, key = create_store(paths.database, keys)
        except StoreOpenError as failure:
            write_marker(paths, type(marker)(failure.kind, failure.reason, marker.folder, marker.at_ms))
            return _degraded(failure)
        clear_marker(paths)
        _log.info("quarantined memory store recovered")
        return Opened(store, key)
    if file_kind(paths.database) == "missing":
        store, key = create_store(paths.database, keys)
        clear_marker(paths)
        return Opened(store, key)
    try:
        store, key = open_existing(paths.database, keys)
    except StoreOpenError as failure:
        quarantine(paths, failure.kind, failure.reason)
        return _degraded(failure)
    clear_marker(paths)
    return Opened(store, key)


class StoreUnreachableError(RuntimeError):
    """The PostgreSQL store could not be opened at start-up; the message is one line for the operator (no URL:
    it may hold a password)."""


def open_database_store(settings: ServiceSettings) -> Store:
    """Open (creating the schema and tables when missing) the store on PostgreSQL; StoreUnreachableError if not."""
    try:
        return open_store(settings.database_url, schema=settings.database_schema)
    except InvalidSchemaNameError as error:
        raise StoreUnreachableError(f"OSAURUS_MEMORYD_DATABASE_SCHEMA: {error}") from None
    except Exception as error:
        first_line = (str(error).strip().splitlines() or [type(error).__name__])[0][:200]
        raise StoreUnreachableError(
            f"cannot open the memory store on PostgreSQL (schema {settings.database_schema}): "
            f"{type(error).__name__}: {first_line}"
        ) from None


def remove_scratch(folder: Path | None) -> None:
    """Delete a scratch folder (it only ever held an empty store)."""
    if folder is not None:
        shutil.rmtree(folder, ignore_errors=True)


__all__ = [
    "KIND_CORRUPT",
    "KIND_LOCKED",
    "KIND_MIGRATION",
    "KIND_UNKNOWN",
    "MODE_KEY_FILE",
    "SOURCE_KEY_FILE",
    "SQLITE_HEADER",
    "KeyAttempts",
    "Opened",
    "StoreOpenError",
    "StoreUnreachableError",
    "classify",
    "create_store",
    "file_kind",
    "find_key",
    "key_for_new_store",
    "open_database_store",
    "open_existing",
    "open_memory_store",
    "recover_quarantined",
    "remove_scratch",
    "scratch_store",
]
