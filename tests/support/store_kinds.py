"""Every kind of store for suites that must hold on each: plaintext SQLite, SQLCipher (a raw 32-byte key), and
PostgreSQL (a fresh schema on the session's server, tests/support/pg_stores.py).

The SQLCipher build differs from the standard library's SQLite (no SQL math functions, for one), and PostgreSQL
differs from both, so a suite run on plaintext alone can pass while another backend fails.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from memoryd.storage.store import Store, open_store

#: The SQLite file kinds (what memoryd's security RPCs convert between).
STORE_KINDS = ("plaintext", "encrypted")
#: Every backend a storage suite runs on.
BACKEND_KINDS = (*STORE_KINDS, "postgres")


def open_kind(path: Path, kind: str) -> Store:
    """Open (creating) a store of `kind`: at `path` (the encrypted one's key derived from the path), or on the
    session's PostgreSQL in a fresh schema."""
    if kind == "postgres":
        from tests.support.pg_stores import pg_store

        return pg_store()
    if kind not in STORE_KINDS:
        raise ValueError(kind)
    key = hashlib.sha256(str(path).encode()).digest() if kind == "encrypted" else None
    return open_store(path, key=key)


__all__ = ["BACKEND_KINDS", "STORE_KINDS", "open_kind"]
