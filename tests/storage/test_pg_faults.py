"""PostgreSQL's faults are storage faults like SQLite's (memoryd/storage/faults.py): a read-only server refuses a
write as STORAGE_READ_ONLY, an unreachable one is STORAGE_UNAVAILABLE, and through a real memoryd a server that went
away answers UNAVAILABLE with that reason (never INTERNAL), then the store reconnects when it is back."""

from __future__ import annotations

from pathlib import Path

import grpc
import peewee
import pytest

from memoryd.app import start
from memoryd.config import ServiceSettings
from memoryd.domain import AgentChanges
from memoryd.storage.faults import STORAGE_READ_ONLY, STORAGE_UNAVAILABLE, fault_reason
from memoryd.storage.pg_db import PgDatabase
from memoryd.storage.store import open_store
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from tests.support.memoryd_server import rpc_error
from tests.support.pg_stores import pg_store
from tests.support.postgres import import_pgserver, postgres_or_skip


def test_a_read_only_server_refuses_writes_as_storage_read_only() -> None:
    store = pg_store()
    assert isinstance(store.db, PgDatabase)
    # This thread's connection, as on a standby: every transaction read-only.
    store.db.execute("SET default_transaction_read_only = on")
    with pytest.raises(peewee.DatabaseError) as raised:
        store.agents.upsert("a", AgentChanges(display_name="x"))
    assert fault_reason(raised.value) == STORAGE_READ_ONLY
    fault = store.db.health.current
    assert fault is not None and fault.reason == STORAGE_READ_ONLY
    store.db.execute("SET default_transaction_read_only = off")
    store.agents.upsert("a", AgentChanges(display_name="x"))  # a committed write clears the fault
    assert store.db.health.current is None


def test_an_unreachable_server_is_storage_unavailable(tmp_path: Path) -> None:
    with pytest.raises(Exception) as raised:  # noqa: PT011 - the driver's own class is the point
        open_store(f"postgresql://memoryd@/memory?host={tmp_path}&connect_timeout=2")
    assert fault_reason(raised.value) == STORAGE_UNAVAILABLE


def test_memoryd_answers_unavailable_while_its_database_is_gone(tmp_path: Path) -> None:
    with postgres_or_skip() as pg:
        settings = ServiceSettings(
            listen="127.0.0.1:0",
            home=tmp_path,
            inferd_addr="127.0.0.1:1",
            background_indexing=False,
            database_url=pg.dsn,
        )
        running, app = start(settings)
        channel = grpc.insecure_channel(running.target)
        memory = mpb_grpc.MemoryServiceStub(channel)
        try:
            memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id="a", display_name="before"), timeout=10)
            with app.store.db.pw.connection().cursor() as cursor:  # type: ignore[attr-defined]
                cursor.execute(
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                    "WHERE datname = current_database() AND pid <> pg_backend_pid()"
                )
            app.store.db.close_all()  # type: ignore[attr-defined]  # and this one: every connection is gone
            with _server_stopped(pg.pgdata):
                error = rpc_error(
                    lambda: memory.UpsertAgent(
                        mpb.UpsertAgentRequest(agent_id="a", display_name="x"), timeout=10
                    )
                )
                assert (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, STORAGE_UNAVAILABLE)
            reply = memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id="a", display_name="after"), timeout=10)
            assert reply.agent.display_name == "after"  # reconnected by itself
        finally:
            channel.close()
            running.stop(grace_s=2)
            app.close()
            app.store.db.close_all()  # type: ignore[attr-defined]


class _server_stopped:  # noqa: N801 - used as a context manager
    """The test server stopped (pg_ctl stop -m fast) on enter and started again on exit, same data and socket."""

    def __init__(self, pgdata: Path) -> None:
        pgserver = import_pgserver()
        self._server = pgserver.postgres_server.PostgresServer._instances[pgdata.expanduser().resolve()]
        self._pg_ctl = pgserver._commands.pg_ctl
        self._pgdata = pgdata

    def __enter__(self) -> None:
        self._pg_ctl(
            ["-w", "-m", "fast", "stop"], pgdata=self._pgdata, user=self._server.system_user, timeout=60
        )

    def __exit__(self, *exc: object) -> None:
        self._server.ensure_postgres_running()
