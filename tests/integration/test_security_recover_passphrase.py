"""A degraded passphrase store unlocked by RecoverStore's passphrase, and Diagnose telling encrypted from damaged.

In-process memoryd for the RPC semantics (validation, secrecy of the passphrase in logs and errors); a real
`python -m memoryd` with the real grpcurl and the real memoryctl for the end-to-end path.
"""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import pytest

from servicekit.errors import InvalidArgumentError
from tests.support.procs import REPO, child_env, spawn
from tests.support.security_rig import SQLITE_HEADER, memoryd_at, quarantined
from tests.support.tools import grpcurl_binary

PASSPHRASE = "correct horse battery staple"
WRONG = "incorrect donkey battery"


def _passphrase_store(home: Path) -> None:
    """A passphrase-encrypted store with one turn; the process that made it remembered the passphrase."""
    with memoryd_at(home) as m:
        m.turn("alpha", "the boat is moored at pier nine")
        assert m.client.set_encryption("passphrase", PASSPHRASE) == "passphrase"
    assert not (home / "memory" / "memory.sqlite").read_bytes().startswith(SQLITE_HEADER)


def test_retry_with_a_passphrase_unlocks_the_store_and_never_leaks_it(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    home = tmp_path / "home"
    _passphrase_store(home)
    caplog.set_level(logging.DEBUG)
    with memoryd_at(home) as m:  # no passphrase file: degraded
        report = m.client.diagnose()
        assert report.store_state == "degraded" and report.degraded_reason.startswith("locked")
        detail = report.degraded_store
        assert detail is not None and detail.file_kind == "encrypted" and detail.file_bytes > 0
        assert detail.key_attempts == () and detail.passphrase_keys_untried == 1
        assert detail.quarantine_folder == str(quarantined(home)[0].parent)

        with pytest.raises(InvalidArgumentError) as misplaced:
            m.client.recover_store("reset", confirm=True, passphrase=PASSPHRASE)
        assert misplaced.value.reason == "UNEXPECTED_FIELD" and PASSPHRASE not in str(misplaced.value)
        with pytest.raises(InvalidArgumentError) as too_long:
            m.client.recover_store("retry", passphrase="x" * 1025)
        assert too_long.value.reason == "FIELD_TOO_LONG"

        wrong = m.client.recover_store("retry", passphrase=WRONG)
        assert wrong.store_state == "degraded" and WRONG not in wrong.degraded_reason
        assert wrong.degraded_store is not None
        assert wrong.degraded_store.key_attempts == (("passphrase_request", 1),)
        assert wrong.degraded_store.passphrase_keys_untried == 0

        recovered = m.client.recover_store("retry", passphrase=PASSPHRASE)
        assert recovered.store_state == "healthy" and recovered.degraded_store is None
        assert m.q("SELECT content FROM transcript") == [("the boat is moored at pier nine",)]
        m.turn("alpha", "writes work again")
        assert m.client.diagnose().degraded_store is None
        # The passphrase is held in memory for this process: re-keying under a new one works without it again.
        assert m.client.rotate_key("another long passphrase") == "passphrase"
    logged = "\n".join(f"{r.getMessage()} {r.exc_text or ''}" for r in caplog.records)
    assert PASSPHRASE not in logged and WRONG not in logged
    assert not any(PASSPHRASE in p.read_text(errors="replace") for p in home.rglob("*.json"))


def test_the_passphrase_file_is_still_tried_after_a_wrong_request_passphrase(tmp_path: Path) -> None:
    home, phrase_file = tmp_path / "home", tmp_path / "passphrase.txt"
    _passphrase_store(home)
    phrase_file.write_text(WRONG + "\n")
    with memoryd_at(home, passphrase_file=phrase_file) as m:
        detail = m.client.diagnose().degraded_store
        assert detail is not None and detail.key_attempts == (("passphrase_file", 1),)
        phrase_file.write_text(PASSPHRASE + "\n")  # the user fixes the file, but also types a wrong one
        recovered = m.client.recover_store("retry", passphrase="a typo in the passphrase")
        assert recovered.store_state == "healthy"
        assert m.q("SELECT count(*) FROM transcript") == [(1,)]


def test_diagnose_tells_a_damaged_plaintext_store_from_an_encrypted_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoryd_at(home) as m:
        m.turn("alpha", "plain words")
    database = home / "memory" / "memory.sqlite"
    damaged = bytearray(database.read_bytes())
    damaged[16:100] = b"\xff" * 84  # header kept, page size and schema area destroyed
    database.write_bytes(bytes(damaged))
    for suffix in ("-wal", "-shm"):
        Path(f"{database}{suffix}").unlink(missing_ok=True)
    with memoryd_at(home) as m:
        report = m.client.diagnose()
        assert report.store_state == "degraded"
        detail = report.degraded_store
        assert detail is not None and detail.file_kind == "plaintext" and detail.key_attempts == ()

    home2 = tmp_path / "home2"
    with memoryd_at(home2) as m:
        m.turn("alpha", "secret words")
        m.client.set_encryption("key_file")
    (key,) = sorted((home2 / "keys").glob("*.key"))
    key.write_text(os.urandom(32).hex() + "\n")  # the wrong key
    with memoryd_at(home2) as m:
        detail = m.client.diagnose().degraded_store
        assert detail is not None and detail.file_kind == "encrypted"
        assert detail.key_attempts == (("key_file", 1),) and detail.passphrase_keys_untried == 0


def _memoryctl(home: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memoryd.ctl.cli", *args],
        cwd=REPO,
        env=child_env(home),
        input=stdin,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def test_real_memoryd_unlocked_by_grpcurl_and_by_memoryctl(tmp_path: Path) -> None:
    home = tmp_path / "home"
    _passphrase_store(home)
    service = spawn("memoryd", home, ["--home", str(home), "--inferd", "127.0.0.1:1"])
    try:
        diagnose = _memoryctl(home, "--addr", service.target, "diagnose")
        assert diagnose.returncode == 10, diagnose.stderr
        assert (
            "degraded file:" in diagnose.stdout and "encrypted (no plaintext SQLite header" in diagnose.stdout
        )
        assert "1 passphrase key(s), no passphrase" in diagnose.stdout

        call = [grpcurl_binary(), "-plaintext", "-max-time", "60", "-d", "@", service.target]
        method = "osaurus.memory.v1.MemoryConsoleService/RecoverStore"
        wrong = subprocess.run(
            [*call, method],
            input=json.dumps({"action": "RECOVERY_ACTION_RETRY", "passphrase": WRONG}),
            capture_output=True,
            text=True,
            timeout=90,
            check=True,
        )
        answer = json.loads(wrong.stdout)
        assert answer["storeState"] == "STORE_STATE_DEGRADED" and WRONG not in wrong.stdout
        assert answer["degradedStore"]["fileKind"] == "STORE_FILE_KIND_ENCRYPTED"
        assert answer["degradedStore"]["keyAttempts"] == [
            {"source": "KEY_SOURCE_PASSPHRASE_REQUEST", "keysTried": 1}
        ]

        # memoryctl reads the passphrase from stdin (never argv) and exits 0 once healthy.
        unlocked = _memoryctl(
            home, "--addr", service.target, "recover", "retry", "--passphrase-stdin", stdin=PASSPHRASE + "\n"
        )
        assert unlocked.returncode == 0 and unlocked.stdout.startswith("healthy"), unlocked.stdout
        rows = _memoryctl(home, "--addr", service.target, "--json", "diagnose")
        report = json.loads(rows.stdout)
        assert report["store_state"] == "healthy" and report["degraded_store"] is None
    finally:
        assert service.stop() == 0
    log = service.log()
    assert PASSPHRASE not in log and WRONG not in log
    assert quarantined(home) == []
