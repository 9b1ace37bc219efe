"""StoreSecurity: the store's protection and health at runtime — encrypt, decrypt, rotate the key, retry, reset.

One maintenance operation runs at a time. Each one swaps the file under the live Database (memoryd.storage.conversion),
re-seals the vector files, and runs the invalidation hooks so caches never serve rows of the previous file.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from memoryd.security.keys import MODE_KEY_FILE, MODE_PASSPHRASE, MODE_PLAINTEXT, KeyStore, StoreKey
from memoryd.security.opener import (
    KeyAttempts,
    Opened,
    StoreOpenError,
    create_store,
    file_kind,
    recover_quarantined,
    remove_scratch,
)
from memoryd.security.quarantine import (
    StorePaths,
    clear_marker,
    quarantined_database,
    read_marker,
    set_aside,
    write_marker,
)
from memoryd.storage.conversion import Conversion, LiveStoreFile, StoreBusyError
from memoryd.vectors.registry import VectorRegistry
from memoryd.vectors.sealing import sealer_for
from servicekit.errors import (
    AbortedError,
    FailedPreconditionError,
    InvalidArgumentError,
    UnavailableError,
)

_log = logging.getLogger("memoryd.security")

STATE_HEALTHY = "healthy"
STATE_DEGRADED = "degraded"
ACTION_RETRY = "retry"
ACTION_RESET = "reset"


@dataclass(frozen=True)
class StoreStatus:
    """Diagnose's view: state, cause, the quarantine folder, encryption, and the actions that can help.

    While degraded, also what the quarantined file looks like (opener.file_kind: "missing", "plaintext" — damaged or
    newer schema, no key involved — or "encrypted": no plaintext header, needs its key), its size, and which key
    sources the last open attempt tried.
    """

    state: str
    kind: str
    reason: str
    quarantine: str
    is_encrypted: bool
    mode: str
    actions: tuple[str, ...]
    file_kind: str = ""
    file_bytes: int = 0
    attempts: KeyAttempts = field(default_factory=KeyAttempts)


class StoreSecurity:
    """Owns the store's key, its degraded state and every operation that swaps the file underneath memoryd."""

    def __init__(
        self,
        paths: StorePaths,
        keys: KeyStore,
        opened: Opened,
        live: LiveStoreFile,
        vectors: VectorRegistry,
        on_replaced: list[Callable[[], None]] | None = None,
    ) -> None:
        self._paths = paths
        self._keys = keys
        self._live = live
        self._vectors = vectors
        self._key: StoreKey | None = opened.key
        self._failure: StoreOpenError | None = opened.failure
        self._scratch: Path | None = opened.scratch
        self._busy = threading.Lock()
        #: Run after the file changed (cache invalidation, re-indexing).
        self.on_replaced: list[Callable[[], None]] = list(on_replaced or [])
        self.last_conversion: Conversion | None = None

    # ------------------------------------------------------------------------------------------- state
    @property
    def is_degraded(self) -> bool:
        """Whether memoryd is serving the empty scratch store (writes refused)."""
        return self._failure is not None

    @property
    def vectors_root(self) -> Path:
        """Where vector indexes live now: the real folder, or the scratch one while degraded."""
        return self._scratch / "vectors" if self._scratch is not None else self._paths.vectors

    @property
    def store_key(self) -> bytes | None:
        """The open store's key (None: plaintext or degraded)."""
        return self._key.key if self._key is not None else None

    def status(self) -> StoreStatus:
        """The current state for Diagnose."""
        failure = self._failure
        if failure is None:
            mode = self._key.mode if self._key is not None else MODE_PLAINTEXT
            return StoreStatus(STATE_HEALTHY, "", "", "", self._key is not None, mode, ())
        marker = read_marker(self._paths)
        folder = str(marker.folder) if marker is not None and marker.folder is not None else ""
        kind, size = "missing", 0
        if marker is not None and marker.folder is not None:
            database = quarantined_database(marker.folder, self._paths)
            kind = file_kind(database)
            try:
                size = database.stat().st_size
            except OSError:
                size = 0
        return StoreStatus(
            STATE_DEGRADED,
            failure.kind,
            f"{failure.kind}: {failure.reason}" + (f" (store moved to {folder})" if folder else ""),
            folder,
            False,
            self._keys.posture().mode,
            (ACTION_RETRY, ACTION_RESET),
            kind,
            size,
            failure.attempts,
        )

    def require_healthy(self) -> None:
        """FAILED_PRECONDITION (STORE_DEGRADED) while degraded."""
        failure = self._failure
        if failure is not None:
            raise FailedPreconditionError(
                "STORE_DEGRADED",
                f"the memory store is degraded ({failure.kind}); see Diagnose, then RecoverStore RETRY or RESET",
                metadata={"kind": failure.kind},
            )

    @contextmanager
    def _maintenance(self) -> Iterator[None]:
        if not self._busy.acquire(blocking=False):
            raise AbortedError("MAINTENANCE_RUNNING", "another encryption or recovery operation is running")
        try:
            yield
        except StoreBusyError as error:
            raise UnavailableError("STORE_BUSY", str(error), retry_after_s=1.0) from error
        finally:
            self._busy.release()

    def _replaced(self) -> None:
        for hook in list(self.on_replaced):
            try:
                hook()
            except Exception as error:  # derived state only; it rebuilds on next use
                _log.warning("store-replaced hook failed: %s", type(error).__name__)

    # -------------------------------------------------------------------------------------- encryption
    def _convert(self, target: StoreKey | None) -> None:
        old = self.store_key
        new = target.key if target is not None else None
        self.last_conversion = self._live.convert(self._paths.converting, old, new)
        self._key = target
        rewritten = self._vectors.reseal(sealer_for(new))
        _log.info(
            "store converted to %s: %d rows copied in %.2fs, swapped in %.2fs, %d vector indexes re-sealed",
            target.mode if target is not None else MODE_PLAINTEXT,
            self.last_conversion.rows,
            self.last_conversion.copy_s,
            self.last_conversion.swap_s,
            rewritten,
        )
        self._replaced()

    def _new_key(self, mode: str, passphrase: str) -> StoreKey:
        if mode == MODE_KEY_FILE:
            return self._keys.new_key_file()
        try:
            return self._keys.new_passphrase_key(passphrase)
        except ValueError as error:
            raise InvalidArgumentError("PASSPHRASE_TOO_SHORT", str(error)) from error

    def set_encryption(self, mode: str, passphrase: str = "") -> str:
        """Convert the store to `mode` (plaintext, key_file, passphrase); returns the mode in force."""
        with self._maintenance():
            self.require_healthy()
            current = self._key
            if mode == MODE_PLAINTEXT:
                if current is not None:
                    self._convert(None)
                self._keys.set_posture(
                    MODE_PLAINTEXT
                )  # key files stay: backups and quarantined stores need them
                return MODE_PLAINTEXT
            if mode == MODE_KEY_FILE and current is not None and current.mode == MODE_KEY_FILE:
                self._keys.set_posture(current.mode, current.key_id)
                return MODE_KEY_FILE
            target = self._new_key(mode, passphrase)
            self._convert(target)
            self._keys.set_posture(target.mode, target.key_id)
            if current is not None:
                self._keys.retire(current.key_id)
            return target.mode

    def rotate_key(self, new_passphrase: str = "") -> str:
        """Re-encrypt under a new key (a new key file, or a key from `new_passphrase`); the old key is retired."""
        with self._maintenance():
            self.require_healthy()
            current = self._key
            if current is None:
                raise FailedPreconditionError(
                    "NOT_ENCRYPTED", "the store is not encrypted; use SetEncryption"
                )
            target = self._new_key(MODE_PASSPHRASE if new_passphrase else MODE_KEY_FILE, new_passphrase)
            self._convert(target)
            self._keys.set_posture(target.mode, target.key_id)
            self._keys.retire(current.key_id)
            return target.mode

    # ---------------------------------------------------------------------------------------- recovery
    def _go_live(self, key: StoreKey | None) -> None:
        """Point the Database (every thread) at the real file, leave degraded mode."""
        self._live.reopen(self._paths.database, key.key if key is not None else None)
        self._vectors.retarget(self._paths.vectors, sealer_for(key.key if key is not None else None))
        self._key, self._failure = key, None
        clear_marker(self._paths)
        remove_scratch(self._scratch)
        self._scratch = None
        self._replaced()

    def retry(self, passphrase: str = "") -> StoreStatus:
        """Open the quarantined store again (e.g. after restoring the key file or passphrase file).

        `passphrase` (optional, never logged) is tried on passphrase keys before the passphrase file; it is kept
        in memory only when it opens the store.
        """
        with self._maintenance():
            if self._failure is None:
                return self.status()
            marker = read_marker(self._paths)
            try:
                if marker is not None and marker.folder is not None:
                    key = recover_quarantined(self._paths, self._keys, marker.folder, passphrase or None)
                else:
                    store, key = create_store(self._paths.database, self._keys)
                    store.close()
            except StoreOpenError as failure:
                self._failure = failure
                if marker is not None:
                    write_marker(
                        self._paths, type(marker)(failure.kind, failure.reason, marker.folder, marker.at_ms)
                    )
                _log.warning("retry failed; store still degraded (%s)", failure.kind)
                return self.status()
            self._go_live(key)
            _log.info("memory store recovered by retry")
            return self.status()

    def reset(self, confirm: bool) -> StoreStatus:
        """Start an empty store in the posture's mode; the quarantined store is kept where it is."""
        if not confirm:
            raise FailedPreconditionError(
                "CONFIRMATION_REQUIRED",
                "Reset starts an empty store (the old one stays in quarantine); set confirm",
            )
        with self._maintenance():
            if self._failure is None:
                raise FailedPreconditionError(
                    "STORE_NOT_DEGRADED",
                    "the store is healthy; Reset only replaces a degraded store (see ClearAll)",
                )
            set_aside(
                self._paths, with_vectors=True
            )  # whatever appeared at the live path meanwhile is kept too
            store, key = create_store(self._paths.database, self._keys)
            store.close()
            self._go_live(key)
            _log.warning("degraded memory store reset to an empty store")
            return self.status()

    def close(self) -> None:
        """Remove the scratch store's folder (degraded mode)."""
        remove_scratch(self._scratch)


__all__ = ["ACTION_RESET", "ACTION_RETRY", "STATE_DEGRADED", "STATE_HEALTHY", "StoreSecurity", "StoreStatus"]
