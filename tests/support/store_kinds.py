"""Both kinds of store for suites that must hold on each: plaintext SQLite and SQLCipher (a raw 32-byte key).

The SQLCipher build differs from the standard library's SQLite (no SQL math functions, for one), so a suite run on
plaintext alone can pass while the encrypted store fails.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from memoryd.storage.store import Store, open_store

STORE_KINDS = ("plaintext", "encrypted")


def open_kind(path: Path, kind: str) -> Store:
    """Open (creating) a store of `kind` at `path`; the encrypted one's key is derived from the path."""
    if kind not in STORE_KINDS:
        raise ValueError(kind)
    key = hashlib.sha256(str(path).encode()).digest() if kind == "encrypted" else None
    return open_store(path, key=key)


__all__ = ["STORE_KINDS", "open_kind"]
