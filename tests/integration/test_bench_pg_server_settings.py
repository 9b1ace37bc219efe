"""bench/pg_server_settings.py: a benchmark's test server restarted with deployment settings, stopped on exit.

A real server (tests/support/postgres.py): the restart must leave every deployment setting in force (shared_buffers
only takes effect at a restart), keep the database and its rows, and the context must stop the restarted
postmaster, which the pgserver wheel's own clean-up would not (it only knows the process it started).
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from bench import pg_server_settings
from tests.support.postgres import postgres_or_skip


def _shown(dsn: str, name: str) -> str:
    with psycopg.connect(dsn, autocommit=True) as conn:
        row = conn.execute(f"SHOW {name}").fetchone()
    assert row is not None
    return str(row[0])


def _alive(pid: int) -> bool:
    """Running: a process that exists and is not a zombie (a stopped postmaster may wait to be reaped)."""
    stat = Path(f"/proc/{pid}/stat")
    if not stat.exists():
        return False
    return stat.read_text().rsplit(")", 1)[1].split()[0] != "Z"


def test_deployment_settings_hold_after_the_restart_and_the_server_stops_on_exit() -> None:
    with postgres_or_skip() as pg:
        with psycopg.connect(pg.dsn, autocommit=True) as conn:
            conn.execute("CREATE TABLE kept (x int)")
            conn.execute("INSERT INTO kept VALUES (7)")
        assert _shown(pg.dsn, "shared_buffers") == "128MB"
        with pg_server_settings.restarted_with(pg, pg_server_settings.DEPLOYMENT_SETTINGS) as restarted:
            assert restarted.server_pid != pg.server_pid
            for name, value in pg_server_settings.DEPLOYMENT_SETTINGS:
                assert _shown(restarted.dsn, name) == value
            with psycopg.connect(restarted.dsn, autocommit=True) as conn:
                assert conn.execute("SELECT x FROM kept").fetchall() == [(7,)]
            postmaster = restarted.server_pid
            assert _alive(postmaster)
        assert not _alive(postmaster)


def test_defaults_leave_the_server_alone() -> None:
    with (
        postgres_or_skip() as pg,
        pg_server_settings.restarted_with(pg, pg_server_settings.settings_for("defaults")) as same,
    ):
        assert same == pg
        assert _shown(same.dsn, "shared_buffers") == "128MB"


def test_the_choice_is_read_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(pg_server_settings.ENV, raising=False)
    assert pg_server_settings.server_settings() == pg_server_settings.DEPLOYMENT_SETTINGS
    monkeypatch.setenv(pg_server_settings.ENV, "Defaults")
    assert pg_server_settings.server_settings() == ()
    assert "128MB" in pg_server_settings.describe(())
    monkeypatch.setenv(pg_server_settings.ENV, "tuned")
    with pytest.raises(ValueError, match="deployment or defaults"):
        pg_server_settings.chosen()
