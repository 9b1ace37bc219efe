"""Tenants through real gRPC: isolation of every read RPC, identity per tenant, tenant-bound tokens, the default
tenant unchanged, LRU close and reopen, bad tenant keys. A real memoryd on 127.0.0.1:0 with the fake embedding inferd
on a real port."""

from __future__ import annotations

import io
import json
import random
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import grpc
import pytest

from memoryd.app import App, start
from memoryd.client import MemoryClient
from memoryd.config import ServiceSettings
from memoryd.ctl.cli import main as memoryctl
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from servicekit.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    PermissionDeniedError,
    UnauthenticatedError,
)
from servicekit.tenancy import TENANT_METADATA_KEY
from servicekit.tenant_tokens import TenantToken
from servicekit.tls import TransportSecurity
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.memoryd_server import enable_recall, rpc_error, search
from tests.support.pg_stores import session_postgres
from tests.support.tenant_world import (
    AGENTS,
    CONVERSATION,
    make_world,
    metadata,
    probe_tenant,
    seed_world,
    tenant_app,
)

RUNTIME = "runtime-token-for-tests"
ADMIN = "admin-token-for-tests"
ALICE = "alice-token-for-tests"
ALICE_ADMIN = "alice-admin-token-for-tests"


@dataclass
class Served:
    """memoryd with tenants, its app and stubs on one channel."""

    app: App
    target: str
    memory: mpb_grpc.MemoryServiceStub
    console: cpb_grpc.MemoryConsoleServiceStub


def database_for(backend: str) -> str:
    """ "" for SQLite; for PostgreSQL a new database on the session's server (tenant schemas start empty)."""
    if backend == "sqlite":
        return ""
    from psycopg.conninfo import conninfo_to_dict

    dsn = session_postgres().create_database(f"tenants_{uuid.uuid4().hex[:12]}")
    parts = conninfo_to_dict(dsn)
    return f"postgresql://{parts['user']}@/{parts['dbname']}?host={quote(str(parts['host']), safe='')}"


@contextmanager
def serving(
    home: Path,
    *,
    max_open: int = 16,
    transport: TransportSecurity | None = None,
    token: str | None = None,
    database_url: str = "",
) -> Iterator[Served]:
    """memoryd (writer on, indexing on demand) in front of the fake inferd; a channel sending `token`."""
    with running_fake_inferd() as (inferd, _):
        settings = ServiceSettings(
            listen="127.0.0.1:0",
            home=home,
            inferd_addr=inferd.target,
            background_indexing=False,
            max_open_tenants=max_open,
            transport=transport or TransportSecurity(),
            database_url=database_url,
        )
        server, app = start(settings)
        channel = grpc.insecure_channel(server.target)
        if token is not None:
            channel = grpc.intercept_channel(channel, _Bearer(token))
        try:
            yield Served(
                app,
                server.target,
                mpb_grpc.MemoryServiceStub(channel),
                cpb_grpc.MemoryConsoleServiceStub(channel),
            )
        finally:
            channel.close()
            server.stop(grace_s=2)
            app.close()


class _Bearer(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[misc]
    def __init__(self, token: str) -> None:
        self._token = token

    def _add(self, details: grpc.ClientCallDetails) -> grpc.ClientCallDetails:
        metadata_ = [*(details.metadata or ()), ("authorization", f"Bearer {self._token}")]
        return details._replace(metadata=metadata_)  # type: ignore[attr-defined, no-any-return]

    def intercept_unary_unary(self, continuation, details, request):  # type: ignore[no-untyped-def]
        return continuation(self._add(details), request)

    def intercept_unary_stream(self, continuation, details, request):  # type: ignore[no-untyped-def]
        return continuation(self._add(details), request)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_tenants_with_the_same_agents_never_see_each_others_memory(tmp_path: Path, backend: str) -> None:
    tenants = ("default", "alice", "bob-2")
    world = make_world(tenants, seed=21)
    database_url = database_for(backend)
    with serving(tmp_path, database_url=database_url) as served:
        seed_world(served.app, served.memory, world, random.Random(21))
        for gate in ("off", "heuristic"):
            for tenant in tenants:
                with MemoryClient(served.target, tenant=tenant) as client:
                    client.update_config({"relevance_gate_mode": gate})
            for seed in world:
                out = probe_tenant(served.memory, served.console, seed, world)
                assert out.leaks == [], (seed.tenant, out.leaks[:5])
                # Positive control: every private word of the tenant comes back to it, so silence is not vacuous.
                assert out.own_words_seen() == seed.all_words, (
                    seed.tenant,
                    seed.all_words - out.own_words_seen(),
                )
                assert out.probes > 100
        for seed in world:
            md = metadata(seed.tenant)
            listed = {
                a.agent_id for a in served.memory.ListAgents(mpb.ListAgentsRequest(), metadata=md).agents
            }
            assert listed == {*AGENTS, seed.solo_agent}
            stats = served.memory.GetStats(mpb.GetStatsRequest(), metadata=md, timeout=10)
            counts = {s.agent_id: (s.pinned_facts, s.episodes, s.transcript_turns) for s in stats.agents}
            assert {a: counts[a] for a in AGENTS} == dict.fromkeys(AGENTS, (1, 1, 2))  # own rows only
            overrides = served.memory.GetIdentity(mpb.GetIdentityRequest(), metadata=md).identity.overrides
            assert [o.text.rsplit(" ", 1)[-1] for o in overrides] == [seed.override]  # identity per tenant
    if backend == "postgres":
        schemas = _schemas(database_url)
        assert {"public", "tenant_alice", "tenant_bob_h2"} <= schemas  # the default tenant keeps "public"
        assert not (tmp_path / "memory" / "memory.sqlite").exists()
        return
    # The default tenant is today's layout; the others live under tenants/<id>, each a whole home.
    assert (tmp_path / "memory" / "memory.sqlite").is_file()
    for tenant in ("alice", "bob-2"):
        assert (tmp_path / "tenants" / tenant / "memory" / "memory.sqlite").is_file()
        assert (tmp_path / "tenants" / tenant / "memory" / "vectors").is_dir()


def _schemas(database_url: str) -> set[str]:
    import psycopg

    with psycopg.connect(database_url) as conn:
        return {row[0] for row in conn.execute("SELECT schema_name FROM information_schema.schemata")}


def test_default_tenant_is_todays_single_user(tmp_path: Path) -> None:
    """No header and `default` are the same tenant, on today's files; nothing else is created."""
    with serving(tmp_path) as served:
        enable_recall(served.memory, "a")
        served.memory.BufferTurn(
            mpb.BufferTurnRequest(
                agent_id="a", conversation_id="c", user_message="the quokka lives on Rottnest"
            ),
            timeout=10,
        )
        named = served.memory.SearchMemory(
            mpb.SearchMemoryRequest(agent_id="a", scope=mpb.SCOPE_TRANSCRIPT, query="quokka"),
            metadata=((TENANT_METADATA_KEY, "default"),),
            timeout=10,
        )
        assert [h.text for h in named.hits] == ["the quokka lives on Rottnest"]
        assert len(search(served.memory, "a", "quokka").hits) == 1
        assert served.app.tenants is not None and served.app.tenants.open_tenants == []
    assert not (tmp_path / "tenants").exists()
    assert (tmp_path / "memory" / "memory.sqlite").is_file()


def test_bad_tenant_keys_are_invalid_argument(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        for bad in ("Alice", "../etc", "a" * 49, "-lead", "a b", "dot.ted", "_x"):
            error = rpc_error(
                lambda bad=bad: served.memory.ListAgents(
                    mpb.ListAgentsRequest(), metadata=((TENANT_METADATA_KEY, bad),), timeout=10
                )
            )
            assert isinstance(error, InvalidArgumentError) and error.reason == "INVALID_TENANT", bad
        two = ((TENANT_METADATA_KEY, "alice"), (TENANT_METADATA_KEY, "bob"))
        error = rpc_error(lambda: served.memory.ListAgents(mpb.ListAgentsRequest(), metadata=two, timeout=10))
        assert isinstance(error, InvalidArgumentError) and error.reason == "INVALID_TENANT"
    assert not (tmp_path / "tenants").exists()


def test_tenants_off_refuses_a_named_tenant(tmp_path: Path) -> None:
    with serving(tmp_path, max_open=0) as served:
        error = rpc_error(
            lambda: served.memory.ListAgents(mpb.ListAgentsRequest(), metadata=metadata("alice"), timeout=10)
        )
        assert isinstance(error, FailedPreconditionError) and error.reason == "TENANTS_DISABLED"
        assert served.memory.ListAgents(mpb.ListAgentsRequest(), timeout=10) is not None


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_least_recently_used_tenant_is_closed_and_reopened_with_its_data(
    tmp_path: Path, backend: str
) -> None:
    with serving(tmp_path, max_open=2, database_url=database_for(backend)) as served:
        registry = served.app.tenants
        assert registry is not None
        for tenant in ("t1", "t2"):
            served.memory.UpsertAgent(
                mpb.UpsertAgentRequest(agent_id="a", search_memory_enabled=True), metadata=metadata(tenant)
            )
            served.memory.BufferTurn(
                mpb.BufferTurnRequest(
                    agent_id="a",
                    conversation_id=CONVERSATION,
                    user_message=f"the {tenant} walrus sings opera",
                ),
                metadata=metadata(tenant),
                timeout=10,
            )
        with tenant_app(served.app, "t1") as t1_app:
            pending = t1_app.store.db.query("SELECT COUNT(*) FROM pending_signals")[0][0]
        assert pending >= 1  # the turn waits for its debounce
        served.memory.ListAgents(
            mpb.ListAgentsRequest(), metadata=metadata("t2"), timeout=10
        )  # t1 is LRU now
        served.memory.ListAgents(mpb.ListAgentsRequest(), metadata=metadata("t3"), timeout=10)
        assert registry.open_tenants == ["t2", "t3"] and registry.closes == 1
        hits = served.memory.SearchMemory(
            mpb.SearchMemoryRequest(agent_id="a", scope=mpb.SCOPE_TRANSCRIPT, query="walrus"),
            metadata=metadata("t1"),
            timeout=10,
        ).hits
        assert [h.text for h in hits] == ["the t1 walrus sings opera"]  # reopened, its own data only
        assert registry.opens == 4 and registry.open_tenants == ["t3", "t1"]
        with tenant_app(served.app, "t1") as t1_app:
            # The buffered turn's distillation signal survived the close, for the writer's resume path.
            assert t1_app.store.db.query("SELECT COUNT(*) FROM pending_signals")[0][0] == pending


def _bound_transport(*, admin: bool) -> TransportSecurity:
    return TransportSecurity(
        token=RUNTIME,
        admin_token=ADMIN if admin else None,
        tenant_tokens=(TenantToken("alice", ALICE), TenantToken("alice", ALICE_ADMIN, admin=True)),
    )


def test_a_bound_token_acts_on_its_tenant_only(tmp_path: Path) -> None:
    with serving(tmp_path, transport=_bound_transport(admin=False), token=RUNTIME) as served:
        for tenant in ("alice", "bob"):  # the unbound runtime token may name any tenant: today's behaviour
            served.memory.UpsertAgent(
                mpb.UpsertAgentRequest(agent_id=f"{tenant}-agent"), metadata=metadata(tenant)
            )
        with MemoryClient(served.target, token=ALICE) as alice:
            assert [a.agent_id for a in alice.list_agents()] == ["alice-agent"]  # no header: its tenant
        with MemoryClient(served.target, token=ALICE, tenant="alice") as alice:
            assert [a.agent_id for a in alice.list_agents()] == ["alice-agent"]
            assert list(alice.export())  # console methods too, for its tenant (no admin token configured)
        with MemoryClient(served.target, token=ALICE, tenant="bob") as intruder:
            for call in (
                intruder.list_agents,
                lambda: intruder.delete_agent("bob-agent"),
                lambda: list(intruder.export()),
            ):
                with pytest.raises(PermissionDeniedError) as denied:
                    call()
                assert denied.value.reason == "TENANT_NOT_ALLOWED"
        with (
            MemoryClient(served.target, token=ALICE, tenant="default") as intruder,
            pytest.raises(PermissionDeniedError),
        ):
            intruder.list_agents()
        with (
            MemoryClient(served.target, token="wrong", tenant="alice") as stranger,
            pytest.raises(UnauthenticatedError),
        ):
            stranger.list_agents()
        channel = grpc.insecure_channel(served.target)
        stub = mpb_grpc.MemoryServiceStub(channel)
        bad = (("authorization", f"Bearer {ALICE}"), (TENANT_METADATA_KEY, "Bob!"))
        error = rpc_error(lambda: stub.ListAgents(mpb.ListAgentsRequest(), metadata=bad, timeout=10))
        assert isinstance(error, InvalidArgumentError) and error.reason == "INVALID_TENANT"
        error = rpc_error(lambda: stub.ListAgents(mpb.ListAgentsRequest(), timeout=10))
        assert isinstance(error, UnauthenticatedError)
        channel.close()
        with MemoryClient(served.target, token=RUNTIME, tenant="bob") as operator:
            assert [a.agent_id for a in operator.list_agents()] == ["bob-agent"]  # untouched by the intruder


def test_bound_tokens_and_the_admin_console(tmp_path: Path) -> None:
    """With an admin token the console takes it or a token bound with `admin`, each on its own tenants."""
    with serving(tmp_path, transport=_bound_transport(admin=True), token=ADMIN) as served:
        served.memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id="bob-agent"), metadata=metadata("bob"))
        with MemoryClient(served.target, token=ALICE) as alice:
            with pytest.raises(PermissionDeniedError) as denied:
                list(alice.export())
            assert denied.value.reason == "ADMIN_TOKEN_REQUIRED"
        with MemoryClient(served.target, token=ALICE_ADMIN) as alice_admin:
            assert list(alice_admin.export()) is not None
        with MemoryClient(served.target, token=ALICE_ADMIN, tenant="bob") as intruder:
            with pytest.raises(PermissionDeniedError) as denied:
                list(intruder.export())
            assert denied.value.reason == "TENANT_NOT_ALLOWED"
        with MemoryClient(served.target, token=ADMIN, tenant="bob") as operator:
            assert any("bob-agent" in line for line in list(operator.export()))


def test_memoryctl_acts_on_the_named_tenant(tmp_path: Path) -> None:
    with serving(tmp_path) as served:
        served.memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id="acme-bot"), metadata=metadata("acme"))
        served.memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id="home-bot"))

        def agents(*flags: str) -> list[str]:
            out, err = io.StringIO(), io.StringIO()
            assert (
                memoryctl(["--addr", served.target, "--json", *flags, "agents", "ls"], stdout=out, stderr=err)
                == 0
            )
            return [a["agent_id"] for a in json.loads(out.getvalue())]

        assert agents("--tenant", "acme") == ["acme-bot"]
        assert agents() == ["home-bot"]
        err = io.StringIO()
        assert memoryctl(["--addr", served.target, "--tenant", "Bad!", "agents", "ls"], stderr=err) == 2
        assert "INVALID_TENANT" in err.getvalue()
