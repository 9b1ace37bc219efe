"""Key files, passphrase KDF, candidate order, content sniffing, vector-file sealing and the live file swap."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from memoryd.security.keys import MODE_KEY_FILE, MODE_PASSPHRASE, KeyStore, derive_passphrase_key
from memoryd.security.opener import classify, file_kind
from memoryd.storage.conversion import StoreBusyError, convert_live, wait_quiet
from memoryd.storage.keyed import connect_raw
from memoryd.storage.store import open_store
from memoryd.vectors.sealing import MAGIC, read_file, sealer_for, write_file


def test_key_files_are_private_and_the_active_key_comes_first(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "keys")
    first, second = keys.new_key_file(), keys.new_key_file()
    assert stat.S_IMODE((tmp_path / "keys").stat().st_mode) == 0o700
    for key in (first, second):
        path = tmp_path / "keys" / f"{key.key_id}.key"
        assert stat.S_IMODE(path.stat().st_mode) == 0o600 and len(key.key) == 32
    assert [k.key_id for k in keys.candidates()] == [second.key_id, first.key_id]  # newest first
    keys.set_posture(MODE_KEY_FILE, first.key_id)
    assert next(k.key_id for k in keys.candidates()) == first.key_id  # the active one first
    keys.retire(first.key_id)
    assert (tmp_path / "keys" / "retired" / f"{first.key_id}.key").exists()
    assert {k.key_id for k in keys.candidates()} == {first.key_id, second.key_id}  # retired still tried
    assert keys.active() is None  # the posture's key moved away


def test_passphrase_keys_are_derived_never_stored(tmp_path: Path) -> None:
    keys = KeyStore(tmp_path / "keys")
    with pytest.raises(ValueError, match="at least 8"):
        keys.new_passphrase_key("short")
    made = keys.new_passphrase_key("correct horse battery")
    assert made.mode == MODE_PASSPHRASE
    stored = b"".join(p.read_bytes() for p in (tmp_path / "keys").iterdir())
    assert made.key.hex().encode() not in stored and b"correct horse" not in stored
    fresh = KeyStore(tmp_path / "keys", passphrase_file=tmp_path / "pass")
    assert list(fresh.candidates()) == []  # no passphrase: the KDF file yields nothing
    (tmp_path / "pass").write_text("wrong passphrase\n")
    assert [k.key for k in fresh.candidates()] != [made.key]
    (tmp_path / "pass").write_text("correct horse battery\n")  # re-read on every lookup
    assert [k.key for k in fresh.candidates()] == [made.key]
    assert derive_passphrase_key("x", b"salt" * 4) != derive_passphrase_key("y", b"salt" * 4)


def test_file_kind_and_error_classes(tmp_path: Path) -> None:
    path = tmp_path / "memory.sqlite"
    assert file_kind(path) == "missing"
    path.write_bytes(b"")
    assert file_kind(path) == "missing"
    open_store(path).close()
    assert file_kind(path) == "plaintext"
    path.write_bytes(b"\x01" * 4096)
    assert file_kind(path) == "encrypted"
    assert classify(RuntimeError("hmac check failed for pgno=1")) == "locked"
    assert classify(RuntimeError("database schema 9 is newer than this memoryd (3)")) == "migration"
    assert classify(RuntimeError("file is not a database")) == "corrupt"
    assert classify(RuntimeError("disk I/O error")) == "unknown"


def test_sealed_vector_files_only_open_with_their_key_in_their_folder(tmp_path: Path) -> None:
    sealer, other = sealer_for(b"k" * 32), sealer_for(b"j" * 32)
    folder = tmp_path / "alpha-123"
    folder.mkdir()
    write_file(folder / "index.faiss", b"vector bytes", sealer)
    blob = (folder / "index.faiss").read_bytes()
    assert blob.startswith(MAGIC) and b"vector bytes" not in blob
    assert read_file(folder / "index.faiss", sealer) == b"vector bytes"
    assert read_file(folder / "index.faiss", other) is None  # another key
    assert read_file(folder / "index.faiss", None) is None  # a plaintext reader never sees sealed bytes
    moved = tmp_path / "beta-456"
    moved.mkdir()
    (moved / "index.faiss").write_bytes(blob)
    assert read_file(moved / "index.faiss", sealer) is None  # bound to the agent's folder
    (folder / "index.faiss").write_bytes(blob[:-1] + bytes([blob[-1] ^ 1]))
    assert read_file(folder / "index.faiss", sealer) is None  # tampered
    write_file(folder / "plain", b"plain bytes", None)
    assert read_file(folder / "plain", sealer) is None and read_file(folder / "plain", None) == b"plain bytes"


def test_swap_waits_for_readers_and_gives_up_without_changing_anything(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    with store.db.write():
        store.db.execute("INSERT INTO agents (agent_id, created_at_ms, updated_at_ms) VALUES ('a', 1, 1)")
    holder = connect_raw(tmp_path / "memory.sqlite", None)  # a connection memoryd does not know about
    holder.execute("SELECT count(*) FROM agents").fetchone()
    with pytest.raises(StoreBusyError):
        wait_quiet(tmp_path / "memory.sqlite", None, timeout_s=0.3)
    key = b"q" * 32
    with pytest.raises(StoreBusyError):
        convert_live(store.db, tmp_path / ".converting", None, key, quiet_wait_s=0.3)
    assert file_kind(tmp_path / "memory.sqlite") == "plaintext" and not (tmp_path / ".converting").exists()
    assert store.db.scalar("SELECT count(*) FROM agents") == 1  # back online on the original file
    holder.close()
    conversion = convert_live(store.db, tmp_path / ".converting", None, key)
    assert conversion.rows >= 1 and file_kind(tmp_path / "memory.sqlite") == "encrypted"
    assert store.db.scalar("SELECT count(*) FROM agents") == 1 and store.db.is_encrypted
    store.close()
