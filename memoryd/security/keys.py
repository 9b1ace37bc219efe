"""Store keys: generated key files under $OSAURUS_HOME/keys (0600) or passphrases through scrypt, and the posture.

Layout of the keys folder (0700):
  file-<stamp>.key        64 hex characters, a random 32-byte key (mode key_file)
  pass-<stamp>.kdf.json   scrypt salt and cost; the key is derived from the passphrase, never stored (passphrase)
  posture.json            {"mode": "plaintext|key_file|passphrase", "key_id": "..."}: what new stores use
  retired/                keys replaced by a rotation, kept so quarantined or backed-up stores still open
Nothing here is ever deleted, and no key material is ever logged.
"""

from __future__ import annotations

import json
import os
import secrets
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

MODE_PLAINTEXT = "plaintext"
MODE_KEY_FILE = "key_file"
MODE_PASSPHRASE = "passphrase"
MODES = (MODE_PLAINTEXT, MODE_KEY_FILE, MODE_PASSPHRASE)
KEY_BYTES = 32
#: scrypt cost: about 0.1 s and 32 MiB per derivation on this class of machine (OWASP's n=2^15 minimum).
SCRYPT_N = 2**15
SCRYPT_R = 8
SCRYPT_P = 1
MIN_PASSPHRASE_CHARS = 8
#: Where a passphrase came from (Diagnose reports which sources were tried).
SOURCE_REQUEST = "request"
SOURCE_MEMORY = "memory"
SOURCE_FILE = "file"
_KEY_SUFFIX = ".key"
_KDF_SUFFIX = ".kdf.json"


class KeyFileError(ValueError):
    """A key or KDF file is unreadable or malformed (its path is named; its content never is)."""


@dataclass(frozen=True)
class StoreKey:
    """A usable 32-byte store key and where it came from."""

    key_id: str
    mode: str
    key: bytes = field(repr=False)


@dataclass(frozen=True)
class Posture:
    """The chosen protection for new stores and the active key (empty for plaintext)."""

    mode: str = MODE_PLAINTEXT
    key_id: str = ""


def derive_passphrase_key(
    passphrase: str, salt: bytes, n: int = SCRYPT_N, r: int = SCRYPT_R, p: int = SCRYPT_P
) -> bytes:
    """scrypt(passphrase, salt) → 32 bytes."""
    return Scrypt(salt=salt, length=KEY_BYTES, n=n, r=r, p=p).derive(passphrase.encode("utf-8"))


def _write_private(path: Path, data: bytes) -> None:
    """Create `path` 0600 with `data`, durably (fsync file and folder); refuses to overwrite."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _stamp() -> str:
    return f"{time.time_ns():x}-{secrets.token_hex(2)}"


class KeyStore:
    """Key files, KDF parameters and the posture under one folder; passphrases are held in memory only."""

    def __init__(self, directory: Path, passphrase_file: Path | None = None) -> None:
        self.directory = directory
        self._passphrase_file = passphrase_file
        self._passphrase: str | None = None
        self._lock = threading.Lock()

    # ------------------------------------------------------------------------------------------ posture
    @property
    def _posture_path(self) -> Path:
        return self.directory / "posture.json"

    def posture(self) -> Posture:
        """The recorded posture; plaintext when none was chosen yet (or the file is unreadable)."""
        try:
            data = json.loads(self._posture_path.read_text(encoding="utf-8"))
            mode, key_id = str(data.get("mode", MODE_PLAINTEXT)), str(data.get("key_id", ""))
        except (OSError, ValueError, AttributeError):
            return Posture()
        return Posture(mode, key_id) if mode in MODES else Posture()

    def set_posture(self, mode: str, key_id: str = "") -> None:
        """Record the posture atomically (tmp + rename + fsync)."""
        self._ensure_dir()
        tmp = self.directory / f".posture.{secrets.token_hex(4)}"
        _write_private(tmp, json.dumps({"mode": mode, "key_id": key_id}).encode())
        os.replace(tmp, self._posture_path)
        _fsync_dir(self.directory)

    # ------------------------------------------------------------------------------------------ creation
    def _ensure_dir(self) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        os.chmod(self.directory, 0o700)

    def new_key_file(self) -> StoreKey:
        """Generate and durably store a random key (file 0600); not active until set_posture."""
        self._ensure_dir()
        key = secrets.token_bytes(KEY_BYTES)
        key_id = f"file-{_stamp()}"
        _write_private(self.directory / f"{key_id}{_KEY_SUFFIX}", (key.hex() + "\n").encode())
        return StoreKey(key_id, MODE_KEY_FILE, key)

    def new_passphrase_key(self, passphrase: str) -> StoreKey:
        """Derive a key from the passphrase with a fresh salt; the salt and cost are stored, the key is not."""
        if len(passphrase) < MIN_PASSPHRASE_CHARS:
            raise ValueError(f"a passphrase needs at least {MIN_PASSPHRASE_CHARS} characters")
        self._ensure_dir()
        salt = secrets.token_bytes(16)
        key = derive_passphrase_key(passphrase, salt)
        key_id = f"pass-{_stamp()}"
        params = {"kdf": "scrypt", "salt": salt.hex(), "n": SCRYPT_N, "r": SCRYPT_R, "p": SCRYPT_P}
        _write_private(self.directory / f"{key_id}{_KDF_SUFFIX}", json.dumps(params).encode())
        self.remember_passphrase(passphrase)
        return StoreKey(key_id, MODE_PASSPHRASE, key)

    def remember_passphrase(self, passphrase: str) -> None:
        """Keep the passphrase in memory for this process (reopening, rotation, recovery)."""
        with self._lock:
            self._passphrase = passphrase

    def passphrase(self) -> str | None:
        """The remembered passphrase, else the passphrase file's first line (re-read on every call)."""
        return self.passphrase_and_source()[0]

    def passphrase_and_source(self) -> tuple[str | None, str]:
        """(passphrase, SOURCE_MEMORY or SOURCE_FILE), or (None, "") when there is none."""
        with self._lock:
            if self._passphrase is not None:
                return self._passphrase, SOURCE_MEMORY
        if self._passphrase_file is None:
            return None, ""
        try:
            text = self._passphrase_file.read_text(encoding="utf-8")
        except OSError:
            return None, ""
        line = text.splitlines()[0] if text else ""
        return (line, SOURCE_FILE) if line else (None, "")

    # ------------------------------------------------------------------------------------------ lookup
    def _files(self, folder: Path) -> list[Path]:
        if not folder.is_dir():
            return []
        found = [p for p in folder.iterdir() if p.name.endswith((_KEY_SUFFIX, _KDF_SUFFIX))]
        return sorted(found, key=lambda p: p.name.split("-", 1)[-1], reverse=True)  # newest first

    def load(self, path: Path, passphrase: str | None = None) -> StoreKey | None:
        """The key a key file holds, or the passphrase key a KDF file yields with `passphrase` (default: the
        remembered one or the passphrase file's); None without a passphrase."""
        name = path.name
        try:
            if name.endswith(_KEY_SUFFIX):
                key = bytes.fromhex(path.read_text(encoding="ascii").strip())
                if len(key) != KEY_BYTES:
                    raise ValueError("wrong length")
                return StoreKey(name.removesuffix(_KEY_SUFFIX), MODE_KEY_FILE, key)
            if passphrase is None:
                passphrase = self.passphrase()
            if passphrase is None:
                return None
            params = json.loads(path.read_text(encoding="utf-8"))
            salt = bytes.fromhex(params["salt"])
            key = derive_passphrase_key(
                passphrase, salt, int(params["n"]), int(params["r"]), int(params["p"])
            )
            return StoreKey(name.removesuffix(_KDF_SUFFIX), MODE_PASSPHRASE, key)
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise KeyFileError(f"cannot use key file {path}: {type(error).__name__}") from error

    def candidate_files(self) -> list[Path]:
        """Key and KDF files to try on an encrypted file: the active one first, then the others, then retired."""
        active = self.posture().key_id
        files = self._files(self.directory) + self._files(self.directory / "retired")
        files.sort(key=lambda p: p.name.startswith(f"{active}.") if active else False, reverse=True)
        return files

    @staticmethod
    def is_passphrase_file(path: Path) -> bool:
        """Whether `path` is a passphrase key's KDF file (rather than a key file)."""
        return path.name.endswith(_KDF_SUFFIX)

    def candidates(self) -> Iterator[StoreKey]:
        """Keys to try on an encrypted file: the active one first, then the others, then retired ones."""
        for path in self.candidate_files():
            try:
                key = self.load(path)
            except KeyFileError:
                continue
            if key is not None:
                yield key

    def active(self) -> StoreKey | None:
        """The posture's key, when its file exists (and, for a passphrase key, the passphrase is known)."""
        posture = self.posture()
        if posture.mode == MODE_PLAINTEXT or not posture.key_id:
            return None
        suffix = _KEY_SUFFIX if posture.mode == MODE_KEY_FILE else _KDF_SUFFIX
        path = self.directory / f"{posture.key_id}{suffix}"
        if not path.exists():
            return None
        try:
            return self.load(path)
        except KeyFileError:
            return None

    def has_any(self) -> bool:
        """Whether any key or KDF file exists (active or retired)."""
        return bool(self._files(self.directory) or self._files(self.directory / "retired"))

    def retire(self, key_id: str) -> None:
        """Move a replaced key's file into retired/ (kept, never deleted)."""
        retired = self.directory / "retired"
        for suffix in (_KEY_SUFFIX, _KDF_SUFFIX):
            path = self.directory / f"{key_id}{suffix}"
            if path.exists():
                retired.mkdir(mode=0o700, exist_ok=True)
                os.replace(path, retired / path.name)
                _fsync_dir(self.directory)


__all__ = [
    "MIN_PASSPHRASE_CHARS",
    "MODES",
    "MODE_KEY_FILE",
    "MODE_PASSPHRASE",
    "MODE_PLAINTEXT",
    "SOURCE_FILE",
    "SOURCE_MEMORY",
    "SOURCE_REQUEST",
    "KeyFileError",
    "KeyStore",
    "Posture",
    "StoreKey",
    "derive_passphrase_key",
]
