"""The user's plaintext backup of the store (memoryctl export-plaintext): a new 0600 file, never over an old one.

The copy itself (sqlcipher_export, row counts compared) is memoryd.storage.conversion's, as are live conversion
and re-keying; memoryd/security/manager.py decides when they run and with which key.
"""

from __future__ import annotations

from pathlib import Path

from memoryd.storage.conversion import export_copy


def export_plaintext(source: Path, key: bytes | None, target: Path) -> int:
    """A plaintext copy of the store for the user's own backup (file mode 0600); rows copied."""
    if target.exists():
        raise FileExistsError(f"{target} exists")
    target.parent.mkdir(parents=True, exist_ok=True)
    return export_copy(source, key, target, None)


__all__ = ["export_plaintext"]
