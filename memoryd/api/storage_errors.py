"""Storage faults as gRPC errors: RESOURCE_EXHAUSTED (STORAGE_FULL) and UNAVAILABLE (STORAGE_READ_ONLY, and
STORAGE_UNAVAILABLE: the PostgreSQL server cannot be reached), and the
start-up check that the data root takes writes."""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Callable
from pathlib import Path

from memoryd.storage.faults import STORAGE_FULL, StorageFault, StorageHealth
from memoryd.storage.private import private_folder
from servicekit.errors import ResourceExhaustedError, ServiceError, UnavailableError

#: RetryInfo's delay: freeing space or fixing a mount takes an operator, not milliseconds.
RETRY_AFTER_S = 30.0


def storage_error(fault: StorageFault) -> ServiceError:
    """The typed error a client gets for a write refused by `fault`."""
    error_class = ResourceExhaustedError if fault.reason == STORAGE_FULL else UnavailableError
    return error_class(fault.reason, fault.description, retry_after_s=RETRY_AFTER_S)


def storage_translator(health: StorageHealth) -> Callable[[BaseException], ServiceError | None]:
    """For servicekit's ErrorMappingInterceptor: a storage fault becomes its own status (and is noted in health)."""

    def translate(error: BaseException) -> ServiceError | None:
        fault = health.observe(error, "rpc")
        return None if fault is None else storage_error(fault)

    return translate


class DataRootReadOnlyError(RuntimeError):
    """The data root (or the store's files in it) does not take writes; the message is one line for the operator."""


_REFUSED = (errno.EACCES, errno.EPERM, errno.EROFS)


def _probe_folder(folder: Path) -> None:
    probe = folder / f".memoryd-write-probe-{os.getpid()}"
    with contextlib.suppress(FileNotFoundError):
        probe.unlink()
    descriptor = os.open(probe, os.O_CREAT | os.O_WRONLY | os.O_EXCL, 0o600)
    os.close(descriptor)
    probe.unlink()


def check_data_root_writable(home: Path, store_folder: Path, store_file: Path) -> None:
    """Raise DataRootReadOnlyError when memoryd could not write its data root, the store folder or the store files.

    Why before opening: SQLite opens a file it cannot write read-only without a word, and every write would fail
    later; a read-only folder failed deep inside start-up with a bare PermissionError naming a sub-folder.
    Permission bits alone do not tell (root ignores them; an immutable flag or a read-only mount do not show), so
    each place is tried: a probe file created and removed, each existing store file opened for appending.
    """
    try:
        private_folder(home)
        _probe_folder(home)
        if store_folder.exists():
            _probe_folder(store_folder)
        for suffix in ("", "-wal", "-shm"):
            candidate = Path(f"{store_file}{suffix}")
            if candidate.exists():
                os.close(os.open(candidate, os.O_WRONLY | os.O_APPEND))
    except OSError as error:
        if error.errno not in _REFUSED:
            raise
        where = error.filename or home
        raise DataRootReadOnlyError(
            f"data root {home} is read-only ({os.strerror(error.errno)}: {where}); memoryd needs to write its "
            "store there: fix the permissions, the immutable flag or the mount, or choose another --home"
        ) from None


__all__ = [
    "RETRY_AFTER_S",
    "DataRootReadOnlyError",
    "check_data_root_writable",
    "storage_error",
    "storage_translator",
]
