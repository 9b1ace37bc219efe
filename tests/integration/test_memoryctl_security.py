"""memoryctl encrypt / decrypt / rekey / recover / export-plaintext / certs init against a real memoryd."""

from __future__ import annotations

import io
import secrets
import sqlite3
import stat
from pathlib import Path

from memoryd.ctl.cli import main
from tests.support.security_rig import SQLITE_HEADER, key_files, memoryd_at


def ctl(*args: str, stdin: str = "") -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(args), stdout=out, stderr=err, stdin=io.StringIO(stdin))
    return code, out.getvalue(), err.getvalue()


def test_encrypt_rekey_export_and_decrypt(tmp_path: Path) -> None:
    home = tmp_path / "home"
    database = home / "memory" / "memory.sqlite"
    with memoryd_at(home) as m:
        m.turn("alpha", "the spare key hangs behind the blue door")
        t = m.target
        assert ctl("--addr", t, "encrypt") == (0, "store encrypted (key_file)\n", "")
        assert not database.read_bytes().startswith(SQLITE_HEADER)
        _, out, _ = ctl("--addr", t, "diagnose")  # exit 10: rows without vectors (no inferd here)
        assert "encrypted:       yes" in out.splitlines()

        backup = tmp_path / "backup.sqlite"
        code, out, _ = ctl("export-plaintext", str(backup), "--home", str(home))
        assert code == 0 and "plaintext copy" in out
        assert backup.read_bytes().startswith(SQLITE_HEADER) and stat.S_IMODE(backup.stat().st_mode) == 0o600
        with sqlite3.connect(backup) as copy:
            assert copy.execute("SELECT content FROM transcript").fetchone()[0].startswith("the spare key")
        assert ctl("export-plaintext", str(backup), "--home", str(home))[0] == 2  # never overwrites

        code, out, _ = ctl("--addr", t, "rekey", "--passphrase-stdin", stdin="a long passphrase\n")
        assert (code, out) == (0, "store re-encrypted under a new key (passphrase)\n")
        too_short = ctl("--addr", t, "rekey", "--passphrase-stdin", stdin="short\n")
        assert too_short[0] == 4 and "PASSPHRASE_TOO_SHORT" in too_short[2]
        locked_out = tmp_path / "no-passphrase.sqlite"
        code, _, err = ctl("export-plaintext", str(locked_out), "--home", str(home))
        assert (
            code == 5 and "none of the 1 available keys" in err and not locked_out.exists()
        )  # retired key only
        second = tmp_path / "second.sqlite"
        code, _, _ = ctl(
            "export-plaintext",
            str(second),
            "--home",
            str(home),
            "--passphrase-stdin",
            stdin="a long passphrase\n",
        )
        assert code == 0 and second.read_bytes().startswith(SQLITE_HEADER)

        refused = ctl("--addr", t, "decrypt")
        assert refused[0] == 5 and "--yes" in refused[2]
        assert ctl("--addr", t, "decrypt", "--yes") == (0, "store decrypted (plaintext)\n", "")
        assert database.read_bytes().startswith(SQLITE_HEADER)
        assert m.q("SELECT count(*) FROM transcript")[0][0] == 1


def test_recover_retry_and_reset(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with memoryd_at(home) as m:
        m.turn("alpha", "remember the harbour")
        assert ctl("--addr", m.target, "encrypt")[0] == 0
    (key,) = key_files(home)
    good = key.read_bytes()
    key.write_text(secrets.token_hex(32) + "\n")
    with memoryd_at(home) as m:
        t = m.target
        code, out, _ = ctl("--addr", t, "diagnose")
        assert code == 10 and "degraded (locked:" in out
        code, out, _ = ctl("--addr", t, "recover", "retry")
        assert code == 10 and out.startswith("degraded: locked")
        key.write_bytes(good)
        assert ctl("--addr", t, "recover", "retry") == (0, "healthy\n", "")
    key.write_text(secrets.token_hex(32) + "\n")
    with memoryd_at(home) as m:
        t = m.target
        assert ctl("--addr", t, "recover", "reset")[0] == 5  # no --yes, no terminal
        assert ctl("--addr", t, "recover", "reset", "--yes") == (0, "healthy\n", "")
        assert m.q("SELECT count(*) FROM transcript")[0][0] == 0


def test_certs_init_prints_the_environment(tmp_path: Path) -> None:
    code, out, _ = ctl("certs", "init", "--dir", str(tmp_path / "certs"), "--host", "memory.local")
    assert code == 0 and f"export OSAURUS_TLS_CERT={tmp_path / 'certs' / 'server.pem'}" in out
    assert stat.S_IMODE((tmp_path / "certs" / "server.key").stat().st_mode) == 0o600
    assert ctl("certs")[0] == 2
