"""At-rest sealing of vector files: AES-256-GCM under a key derived (HKDF-SHA256) from the store key.

A sealed file is MAGIC + 12-byte nonce + ciphertext-with-tag. The associated data names the agent folder and the
file, so a sealed index cannot be moved into another agent's folder and still open. Files written without a
sealer stay plain bytes (plaintext stores), exactly as before.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import tempfile
from pathlib import Path

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

MAGIC = b"OSVSEAL1"
_NONCE_BYTES = 12
_INFO = b"osaurus-memory-vectors-v1"


class FileSealer:
    """Seals and opens vector files with one AES-GCM key."""

    def __init__(self, key: bytes, name_key: bytes | None = None) -> None:
        self._aead = AESGCM(key)
        # A second key, for folder names only: a name must not be a function of the sealing key itself.
        self._name_key = name_key if name_key is not None else hashlib.sha256(b"names:" + key).digest()

    def folder_name(self, agent_id: str) -> str:
        """An agent's folder name under this key: a keyed hash, so the encrypted store's files never name the agent
        (a plain hash would let anyone confirm a guessed id)."""
        digest = hmac.new(self._name_key, agent_id.encode("utf-8", "surrogatepass"), hashlib.sha256)
        return f"a-{digest.hexdigest()[:32]}"

    def seal(self, data: bytes, aad: bytes) -> bytes:
        """MAGIC + nonce + AES-GCM(data)."""
        nonce = os.urandom(_NONCE_BYTES)
        return MAGIC + nonce + self._aead.encrypt(nonce, data, aad)

    def open(self, blob: bytes, aad: bytes) -> bytes | None:
        """The plaintext, or None when the blob is not sealed, was sealed under another key, or was altered."""
        if not blob.startswith(MAGIC):
            return None
        nonce = blob[len(MAGIC) : len(MAGIC) + _NONCE_BYTES]
        try:
            return self._aead.decrypt(nonce, blob[len(MAGIC) + _NONCE_BYTES :], aad)
        except InvalidTag:
            return None


#: HKDF info of the folder-name key (distinct from the sealing key's).
_NAMES_INFO = b"osaurus-memory vector folder names v1"


def sealer_for(store_key: bytes | None) -> FileSealer | None:
    """The vector-file sealer of a store key (None for a plaintext store)."""
    if store_key is None:
        return None
    derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_INFO).derive(store_key)
    names = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_NAMES_INFO).derive(store_key)
    return FileSealer(derived, names)


def _aad(path: Path) -> bytes:
    return f"{path.parent.name}/{path.name}".encode()


def write_file(path: Path, data: bytes, sealer: FileSealer | None) -> None:
    """Write `data` (sealed when a sealer is given) atomically: tmp file in the same folder, then rename."""
    blob = data if sealer is None else sealer.seal(data, _aad(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(blob)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def read_file(path: Path, sealer: FileSealer | None) -> bytes | None:
    """The file's bytes, or None when missing or not in this sealer's form (sealed vs plain, other key)."""
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    if sealer is None:
        return None if blob.startswith(MAGIC) else blob
    return sealer.open(blob, _aad(path))


__all__ = ["MAGIC", "FileSealer", "read_file", "sealer_for", "write_file"]
