"""Opt-in encryption through a real memoryd: no plaintext on disk, round trips, wrong/missing key → degraded."""

from __future__ import annotations

import hashlib
import secrets
import stat
from pathlib import Path

import numpy as np
import pytest

from memoryd.security.quarantine import StorePaths
from memoryd.storage.keyed import connect_raw
from memoryd.vectors.codec import normalise
from memoryd.vectors.sealing import MAGIC
from servicekit.errors import FailedPreconditionError, ServiceError
from tests.fakes.fake_inferd import fake_vector, running_fake_inferd
from tests.support.memoryd_server import rpc_error
from tests.support.security_rig import (
    SQLITE_HEADER,
    SecuredMemoryd,
    key_files,
    memoryd_at,
    quarantined,
    store_files,
)

TABLES = ("transcript", "pinned_facts", "agents", "embeddings")


def _secret() -> str:
    return f"zq{secrets.token_hex(6)}"


def _seed(m: SecuredMemoryd, secrets_: list[str]) -> None:
    for word in secrets_:
        m.turn("alpha", f"my locker code is {word} and it is private")
    db = m.app.store.db
    with db.write():
        db.execute(
            "INSERT INTO pinned_facts (agent_id, content, salience, tags_csv, created_at_ms, updated_at_ms) "
            "VALUES ('alpha', ?, 0.7, '', 1, 1)",
            (f"alpha's pinned secret is {secrets_[0]}",),
        )


def _snapshot(m: SecuredMemoryd) -> dict[str, list[tuple[object, ...]]]:
    return {t: m.q(f"SELECT * FROM {t} ORDER BY 1, 2") for t in TABLES}


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _console_hits(m: SecuredMemoryd, word: str) -> int:
    return len(m.client.search(word, limit=20))


def test_encrypted_store_and_vector_files_hold_no_plaintext(tmp_path: Path) -> None:
    home, words = tmp_path / "home", [_secret() for _ in range(5)]
    with running_fake_inferd() as (inferd, _state), memoryd_at(home, inferd_addr=inferd.target) as m:
        _seed(m, words)
        assert m.app.indexer.run_once() > 0
        m.app.vectors.flush()
        texts = [row[0] for row in m.q("SELECT content FROM transcript WHERE agent_id = 'alpha'")]
        # The faiss index stores vectors as fp16 (memoryd.vectors.agent_index).
        vector_bytes = [normalise(fake_vector(t)).astype(np.float16).tobytes() for t in texts]
        before = store_files(home)
        faiss_before = b"".join(data for path, data in before.items() if path.name == "index.faiss")
        # The checks below can fail: in plaintext both the words and the raw vectors are on disk.
        assert any(w.encode() in data for data in before.values() for w in words)
        assert any(v in faiss_before for v in vector_bytes)

        assert m.client.set_encryption("key_file") == "key_file"
        m.turn("alpha", f"written after encryption {words[1]}")  # lands in the (encrypted) WAL
        m.app.vectors.flush()
        assert m.client.diagnose().is_encrypted
        assert _console_hits(m, words[1]) >= 2  # still readable through memoryd
        live = store_files(home)
    after_close = store_files(home)
    for files in (live, after_close):
        database = files[home / "memory" / "memory.sqlite"]
        assert not database.startswith(SQLITE_HEADER)
        vector_files = [p for p in files if p.name in ("index.faiss", "manifest.json")]
        assert vector_files, "the faiss index and its manifest exist"
        for path in vector_files:
            assert files[path].startswith(MAGIC), path
        for path, data in files.items():
            for word in [*words, "locker", "alpha's pinned"]:
                assert word.encode() not in data, (path.name, word)
            for vector in vector_bytes:
                assert vector not in data, path.name
    (key,) = key_files(home)
    assert stat.S_IMODE(key.stat().st_mode) == 0o600
    assert stat.S_IMODE((home / "keys").stat().st_mode) == 0o700


def test_round_trips_both_ways_keep_every_row(tmp_path: Path) -> None:
    home, words = tmp_path / "home", [_secret() for _ in range(8)]
    passphrase_file = tmp_path / "passphrase"
    with memoryd_at(home) as m:
        _seed(m, words)
        original = _snapshot(m)
        m.client.set_encryption("key_file")
        assert not (home / "memory" / "memory.sqlite").read_bytes().startswith(SQLITE_HEADER)
        assert _snapshot(m) == original
    with memoryd_at(home) as m:  # restart: the opener finds the key file by itself
        report = m.client.diagnose()
        assert report.store_state == "healthy" and report.is_encrypted
        assert _snapshot(m) == original
        assert m.client.set_encryption("plaintext") == "plaintext"
        assert (home / "memory" / "memory.sqlite").read_bytes().startswith(SQLITE_HEADER)
        assert _snapshot(m) == original and _console_hits(m, words[3]) == 1
        assert m.client.set_encryption("passphrase", "correct horse battery") == "passphrase"
        passphrase_file.write_text("correct horse battery\n")
    with memoryd_at(home, passphrase_file=passphrase_file) as m:
        assert m.client.diagnose().is_encrypted and _snapshot(m) == original
        assert m.client.rotate_key() == "key_file"  # passphrase → new key file; the old KDF file is retired
        m.turn("alpha", "one more turn")
        original["transcript"] = m.q("SELECT * FROM transcript ORDER BY 1, 2")
    with memoryd_at(home) as m:  # no passphrase needed any more
        assert m.client.diagnose().store_state == "healthy" and _snapshot(m) == original
    assert list((home / "keys" / "retired").iterdir()), "replaced keys are kept, never deleted"


def test_wrong_key_degrades_quarantines_and_retry_recovers(tmp_path: Path) -> None:
    home, words = tmp_path / "home", [_secret() for _ in range(3)]
    with memoryd_at(home) as m:
        _seed(m, words)
        original = _snapshot(m)
        m.client.set_encryption("key_file")
    (key,) = key_files(home)
    good = key.read_bytes()
    digest = _sha(home / "memory" / "memory.sqlite")
    key.write_text(secrets.token_hex(32) + "\n")  # the wrong key
    with memoryd_at(home) as m:
        report = m.client.diagnose()
        assert report.store_state == "degraded" and report.degraded_reason.startswith("locked")
        assert report.recovery_actions == ("retry", "reset")
        assert not (home / "memory" / "memory.sqlite").exists()
        (moved,) = quarantined(home)
        assert _sha(moved) == digest  # moved, byte for byte: nothing deleted
        assert m.client.list_agents() == [] and _console_hits(m, words[0]) == 0  # reads return nothing
        for refused in (rpc_error(lambda: m.turn("alpha", "this must not be stored")), _refusal(m)):
            assert isinstance(refused, FailedPreconditionError) and refused.reason == "STORE_DEGRADED"
        assert m.client.recover_store("retry").store_state == "degraded"  # still the wrong key
        key.write_bytes(good)
        recovered = m.client.recover_store("retry")
        assert recovered.store_state == "healthy" and recovered.degraded_reason == ""
        assert _snapshot(m) == original and _console_hits(m, words[0]) >= 1
        m.turn("alpha", "writes work again")
        assert m.client.diagnose().store_state == "healthy"
    assert not (home / "memory" / "degraded.json").exists() and quarantined(home) == []


def _refusal(m: SecuredMemoryd) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        m.client.clear_all(confirm=True)
    return caught.value


def test_restart_stays_degraded_and_recovers_once_the_key_is_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoryd_at(home) as m:
        _seed(m, [_secret()])
        m.client.set_encryption("key_file")
    (key,) = key_files(home)
    lost = tmp_path / "lost.key"
    key.rename(lost)  # the key file went missing
    for _ in range(2):  # a restart must not start an empty store in its place
        with memoryd_at(home) as m:
            report = m.client.diagnose()
            assert report.store_state == "degraded" and "no key is available" in report.degraded_reason
    lost.rename(key)
    with memoryd_at(home) as m:
        assert (
            m.client.diagnose().store_state == "healthy" and m.q("SELECT count(*) FROM transcript")[0][0] == 1
        )


def test_reset_starts_empty_and_keeps_the_quarantined_store(tmp_path: Path) -> None:
    home, words = tmp_path / "home", [_secret() for _ in range(3)]
    with memoryd_at(home) as m:
        _seed(m, words)
        m.client.set_encryption("key_file")
    (key,) = key_files(home)
    old_key = bytes.fromhex(key.read_text().strip())
    digest = _sha(home / "memory" / "memory.sqlite")
    key.unlink()
    with memoryd_at(home) as m:
        assert m.client.diagnose().store_state == "degraded"
        with pytest.raises(FailedPreconditionError) as unconfirmed:
            m.client.recover_store("reset")
        assert unconfirmed.value.reason == "CONFIRMATION_REQUIRED"
        reset = m.client.recover_store("reset", confirm=True)
        assert reset.store_state == "healthy"
        assert m.client.list_agents() == [] and _console_hits(m, words[0]) == 0
        m.turn("beta", "a fresh start")
        assert m.client.diagnose().is_encrypted  # the posture (encrypted) is kept, under a new key file
    (moved,) = quarantined(home)
    assert _sha(moved) == digest
    with memoryd_at(home) as m:  # the reset store survives a restart; the old one stays in quarantine
        assert [a.agent_id for a in m.client.list_agents()] == ["beta"]
    conn = connect_raw(moved, old_key)  # with the old key back, the quarantined store is intact
    try:
        assert conn.execute("SELECT count(*) FROM transcript").fetchone()[0] == len(words)
    finally:
        conn.close()


def test_a_plaintext_store_opens_without_touching_keys(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoryd_at(home) as m:
        m.turn("alpha", "plain")
        m.client.set_encryption("key_file")
        m.client.set_encryption("plaintext")
    for path in key_files(home):
        path.write_text("not a key\n")  # unreadable keys do not matter: the header says plaintext
    with memoryd_at(home) as m:
        assert m.client.diagnose().store_state == "healthy"
        assert m.q("SELECT count(*) FROM transcript")[0][0] == 1
    paths = StorePaths(
        home / "memory" / "memory.sqlite", home / "memory" / "vectors", home / "keys", tmp_path
    )
    assert not paths.marker.exists() and quarantined(home) == []


def test_a_passphrase_store_waits_for_its_passphrase_file(tmp_path: Path) -> None:
    home, passphrase_file = tmp_path / "home", tmp_path / "passphrase"
    with memoryd_at(home) as m:
        _seed(m, [_secret()])
        original = _snapshot(m)
        assert m.client.set_encryption("passphrase", "correct horse battery") == "passphrase"
    with memoryd_at(home, passphrase_file=passphrase_file) as m:  # the file does not exist yet
        report = m.client.diagnose()
        assert report.store_state == "degraded" and "passphrase" in report.degraded_reason
        passphrase_file.write_text("wrong horse battery\n")
        assert m.client.recover_store("retry").store_state == "degraded"
        passphrase_file.write_text("correct horse battery\n")  # re-read on every retry
        assert m.client.recover_store("retry").store_state == "healthy"
        assert _snapshot(m) == original and m.client.diagnose().is_encrypted


def _folder_names(home: Path) -> list[str]:
    return sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_dir())


def test_encrypted_vector_folders_do_not_name_the_agent(tmp_path: Path) -> None:
    home = tmp_path / "home"
    agent = "alice-private-agent"
    with running_fake_inferd() as (inferd, _state), memoryd_at(home, inferd_addr=inferd.target) as m:
        m.turn(agent, "my locker code is 4711")
        assert m.app.indexer.run_once() > 0
        m.app.vectors.flush()
        assert any(
            "alice" in name for name in _folder_names(home)
        )  # plaintext: readable names, as documented
        m.client.set_encryption("key_file")
        assert not any("alice" in name for name in _folder_names(home))
        assert _console_hits(m, "locker") >= 1
        vectors_before = m.app.vectors.state(agent, m.app.config.get().embedding_model)
        assert (vectors_before.vectors, vectors_before.stale) == (1, False)  # the renamed index still loads
        m.turn(agent, "a second turn after encryption")
        assert m.app.indexer.run_once() > 0
        m.app.vectors.flush()
        assert not any("alice" in name for name in _folder_names(home))
        m.client.rotate_key()
        assert not any("alice" in name for name in _folder_names(home))
        assert m.app.vectors.state(agent, m.app.config.get().embedding_model).vectors == 2
        m.client.set_encryption("plaintext")
        assert any("alice" in name for name in _folder_names(home))
        assert m.app.vectors.state(agent, m.app.config.get().embedding_model).vectors == 2
