"""bench_assemble's headline: AssembleContext over gRPC against a real memoryd process per backend (issues 6, 21).

SQLite: `python -m memoryd` on the store bench_assemble.measure seeded (and timed in-process) under `<home>/sqlite`.
PostgreSQL: a local PostgreSQL 18 with pgvector (tests/support/postgres.py), the same rows written by the same code
(assemble_corpus.seed, through an in-process memoryd app opened with the same database URL), then `python -m memoryd
--database-url`. The PostgreSQL seed gives its vectors to the embeddings table only (a throw-away faiss registry takes
the Indexer's copies), so memoryd's PgVectorRegistry fills the agent's pgvector partition from that table and builds
its HNSW indexes once, on the first search, as it does for any agent whose partition is missing: growing the HNSW
graph row by row during the seed would take far longer and is not what is being measured.

Both processes run at once. After warm-up calls (the first search loads faiss / fills pgvector) the bench waits until
both memoryd processes and PostgreSQL's backends are idle (background index builds, autovacuum after the bulk load),
then sends the same query set to both, interleaved (alternating which goes first), so a busy moment of the shared
machine hits both alike. Every query text is unique: each call misses the 10 s assembly cache (checked on the
reply) and each process embeds each query itself with the real MiniLM (inferd has no embedding cache). The
known-entity list and per-agent keyword statistics stay as the running service caches them.
"""

from __future__ import annotations

import hashlib
import os
import random
import statistics
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from bench import pg_server_settings
from bench.assemble_corpus import (
    AGENT,
    QUERY_MODEL,
    SEED,
    Seeded,
    make_corpus,
    make_queries,
    seed,
    write_config,
)
from bench.assemble_vectors import FAKE, MINILM, vectors_mode
from bench.backends import POSTGRES, SQLITE, label
from bench.memoryd_process import memoryd_process, wait_until_idle
from bench.report import BenchResult
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc

SQLITE_ISSUE, POSTGRES_ISSUE = 6, 21
TARGETS = {SQLITE: "p95 ≤ 25 ms", POSTGRES: "p95 ≤ 40 ms"}
#: Warm-up queries per intended section, before and again after the wait for idle processes (not measured).
WARM_PER_SECTION = 2
CALL_TIMEOUT_S = 30.0
#: Rounds of the measured query set (OSAURUS_BENCH_ASSEMBLE_ROUNDS): each round sends its own unique queries to every
#: backend, interleaved; the headline is the median of the rounds' p50 / p95, their min–max beside it (the served path
#: varies by ±3 ms p50 / ±6 ms p95 from one run of the same code to the next, so one round shows no change).
DEFAULT_ROUNDS = 5
MAINTENANCE_WORK_MEM = "1GB"


def percentile(values: Sequence[float], q: float) -> float:
    """Nearest-rank percentile."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered) + 0.5) - 1))] if ordered else 0.0


def count_label(n: int) -> str:
    """100000 → "100k", 2500 → "2.5k", 500 → "500"."""
    return f"{n / 1000:g}k" if n >= 1000 else str(n)


def corpus_label(sizes: dict[str, int]) -> str:
    """The real corpus size, e.g. "100k turns, 10k facts, 5k episodes"."""
    return (
        f"{count_label(sizes['transcript'])} turns, {count_label(sizes['pinned'])} facts,"
        f" {count_label(sizes['episodes'])} episodes"
    )


@dataclass
class ServiceRun:
    """What the service part measured, per backend."""

    backends: tuple[str, ...]
    sizes: dict[str, int]
    #: The PostgreSQL seed (SQLite's is bench_assemble.measure's), and the store fingerprints compared.
    seeded: dict[str, Seeded] = field(default_factory=dict)
    fingerprints: dict[str, tuple[int, ...]] = field(default_factory=dict)
    ms: dict[str, list[float]] = field(default_factory=dict)
    #: The same calls per round (run.ms is their concatenation).
    rounds: dict[str, list[list[float]]] = field(default_factory=dict)
    sections: dict[str, dict[str, int]] = field(default_factory=dict)
    fts_only: dict[str, int] = field(default_factory=dict)
    cached: dict[str, int] = field(default_factory=dict)
    #: The first warm-up call of each process, and the whole first warm-up round (the first searches load or build
    #: the vector index: a call may return after its read budget while the build goes on and holds up the next), ms.
    first_ms: dict[str, float] = field(default_factory=dict)
    warm_ms: dict[str, float] = field(default_factory=dict)
    settle_s: float = 0.0
    settled: bool = True
    load: tuple[float, float] = (0.0, 0.0)
    seconds: float = 0.0
    #: The corpus-vector mode the seeds ran in (bench/assemble_vectors.py).
    vectors_mode: str = MINILM


def fingerprint(store: Any) -> tuple[int, ...]:
    """Row counts, content lengths and last ids of the seeded tables, and the stored vectors: equal on two stores
    holding the same rows."""
    out: list[int] = []
    for table, column in (("transcript", "content"), ("pinned_facts", "content"), ("episodes", "summary")):
        row = store.db.query(
            f"SELECT count(*), coalesce(sum(length({column})), 0), coalesce(max(id), 0) FROM {table}"
        )
        out += [int(v) for v in row[0]]
    out.append(int(store.db.scalar("SELECT count(*) FROM embeddings WHERE model = ?", (QUERY_MODEL,))))
    # The vectors themselves (the same bytes on both backends: to_blob's float32), in a fixed order.
    digest = hashlib.sha256()
    for kind, row_id, vector in store.db.query(
        "SELECT kind, row_id, vector FROM embeddings WHERE model = ? ORDER BY kind, row_id", (QUERY_MODEL,)
    ):
        digest.update(f"{kind}:{row_id}:".encode())
        digest.update(bytes(vector))
    out.append(int.from_bytes(digest.digest()[:6], "big"))
    return tuple(out)


def _fingerprint_at(location: Path | str) -> tuple[int, ...]:
    from memoryd.storage.store import open_store

    store = open_store(location)
    try:
        return fingerprint(store)
    finally:
        store.close()


def seed_postgres(home: Path, inferd_target: str, database_url: str, scale: float, now_ms: int) -> Seeded:
    """The same rows and vectors as the SQLite store, written through an in-process memoryd app on `database_url`."""
    from inferd.client import InferenceClient
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings
    from memoryd.vectors.registry import VectorRegistry

    home.mkdir(parents=True, exist_ok=True)
    write_config(home)
    app = build_app(
        ServiceSettings(
            listen="127.0.0.1:0",
            home=home,
            inferd_addr=inferd_target,
            database_url=database_url,
            background_indexing=False,
        )
    )
    client = InferenceClient(inferd_target, deadline_s=300.0)
    try:
        # The Indexer's vector copies go to a scratch faiss registry; memoryd fills pgvector from the table.
        scratch = VectorRegistry(home / "seed-vectors", app.store.embeddings)
        return seed(app, client, scratch, scale, now_ms)[1]
    finally:
        client.close()
        app.close()


@contextmanager
def _postgres(backends: Sequence[str]) -> Iterator[Any]:
    if POSTGRES not in backends:
        yield None
        return
    import psycopg

    from tests.support.postgres import running_postgres

    with running_postgres() as started:
        # Room for the 100k-vector HNSW graph, so memoryd's refill builds it in memory (pg_twin sets the same for
        # bench_pg_search's build); an operator's setting, not memoryd's.
        with psycopg.connect(started.dsn_for("postgres"), autocommit=True) as conn:
            conn.execute(f"ALTER SYSTEM SET maintenance_work_mem = '{MAINTENANCE_WORK_MEM}'")
            conn.execute("SELECT pg_reload_conf()")
        # The server as a deployment would run it (OSAURUS_BENCH_PG_SERVER, bench/pg_server_settings.py).
        with pg_server_settings.restarted_with(started, pg_server_settings.server_settings()) as pg:
            yield pg


def rounds_setting() -> int:
    """Rounds of the measured query set (OSAURUS_BENCH_ASSEMBLE_ROUNDS, default DEFAULT_ROUNDS, at least 1)."""
    return max(1, int(os.environ.get("OSAURUS_BENCH_ASSEMBLE_ROUNDS", str(DEFAULT_ROUNDS))))


@dataclass(frozen=True)
class Spread:
    """Per-round p50 and p95 (ms) of one backend, and the headline: their medians, with min–max."""

    p50s: tuple[float, ...]
    p95s: tuple[float, ...]

    @classmethod
    def of(cls, rounds: Sequence[Sequence[float]]) -> Spread:
        kept = [r for r in rounds if r]
        return cls(tuple(statistics.median(r) for r in kept), tuple(percentile(r, 0.95) for r in kept))

    @property
    def p50(self) -> float:
        return statistics.median(self.p50s) if self.p50s else 0.0

    @property
    def p95(self) -> float:
        return statistics.median(self.p95s) if self.p95s else 0.0

    def text(self) -> str:
        """ "24.1 ms / 33.0 ms (rounds 22.9–25.0 / 31.2–36.4)", the median of the rounds first."""
        if len(self.p50s) < 2:
            return f"{self.p50:.1f} ms / {self.p95:.1f} ms"
        return (
            f"{self.p50:.1f} ms / {self.p95:.1f} ms (rounds {min(self.p50s):.1f}–{max(self.p50s):.1f} /"
            f" {min(self.p95s):.1f}–{max(self.p95s):.1f})"
        )


def run_services(
    home: Path,
    inferd_target: str,
    backends: Sequence[str],
    scale: float,
    per_section: int,
    now_ms: int,
    rounds: int = 1,
) -> ServiceRun:
    """Seed PostgreSQL (SQLite is seeded already when selected), start a memoryd per backend, time AssembleContext."""
    started = time.perf_counter()
    with _postgres(backends) as pg:
        run = ServiceRun(tuple(backends), {}, vectors_mode=vectors_mode())
        homes: dict[str, tuple[Path, str]] = {}
        if SQLITE in backends:
            homes[SQLITE] = (home / "sqlite", "")
            run.fingerprints[SQLITE] = _fingerprint_at(home / "sqlite" / "memory" / "memory.sqlite")
        if pg is not None:
            run.seeded[POSTGRES] = seed_postgres(home / "postgresql", inferd_target, pg.dsn, scale, now_ms)
            homes[POSTGRES] = (home / "postgresql", pg.dsn)
            run.fingerprints[POSTGRES] = _fingerprint_at(pg.dsn)
        corpus = make_corpus(random.Random(SEED))
        run.sizes = {
            "transcript": int(100_000 * scale),
            "pinned": int(10_000 * scale),
            "episodes": int(5_000 * scale),
        }
        warm = [q for _, q in make_queries(corpus, random.Random(SEED + 3), WARM_PER_SECTION * 2)]
        # One draw for all rounds: every text unique across them (each call a cache miss); round r takes every
        # rounds-th query from r, so the rounds hold alike mixes of intended sections.
        drawn = [q for _, q in make_queries(corpus, random.Random(SEED + 2), per_section * rounds)]
        queries = [drawn[r::rounds] for r in range(rounds)]
        _measure(run, homes, inferd_target, [pg.server_pid] if pg is not None else [], warm, queries)
    run.seconds = time.perf_counter() - started
    return run


def _measure(
    run: ServiceRun,
    homes: dict[str, tuple[Path, str]],
    inferd_target: str,
    extra_pids: list[int],
    warm: list[str],
    queries: list[list[str]],
) -> None:
    with ExitStack() as stack:
        processes = {
            b: stack.enter_context(memoryd_process(h, inferd_target, url)) for b, (h, url) in homes.items()
        }
        channels = {b: stack.enter_context(grpc.insecure_channel(p.target)) for b, p in processes.items()}
        stubs = {b: pb_grpc.MemoryServiceStub(c) for b, c in channels.items()}
        pids = [p.pid for p in processes.values()] + extra_pids
        half = len(warm) // 2
        for i, q in enumerate(warm[:half]):  # the first search loads / builds each vector index
            for b in stubs:
                ms, _ = _call(stubs[b], q, timeout_s=900.0)
                run.warm_ms[b] = run.warm_ms.get(b, 0.0) + ms
                if i == 0:
                    run.first_ms[b] = ms
        run.settle_s, run.settled = wait_until_idle(pids)
        for q in warm[half:]:
            for b in stubs:
                _call(stubs[b], q, timeout_s=120.0)
        waited, quiet = wait_until_idle(pids, timeout_s=300.0)
        run.settle_s += waited
        run.settled = run.settled and quiet
        order = list(stubs)
        load_before = os.getloadavg()[0]
        i = 0
        for round_queries in queries:
            for b in order:
                run.rounds.setdefault(b, []).append([])
            for q in round_queries:
                for b in order if i % 2 == 0 else order[::-1]:
                    ms, reply = _call(stubs[b], q, timeout_s=CALL_TIMEOUT_S)
                    run.ms.setdefault(b, []).append(ms)
                    run.rounds[b][-1].append(ms)
                    section = pb.Section.Name(reply.section).removeprefix("SECTION_").lower()
                    chosen = run.sections.setdefault(b, {})
                    chosen[section] = chosen.get(section, 0) + 1
                    run.fts_only[b] = run.fts_only.get(b, 0) + ("fts_only" in reply.reason)
                    run.cached[b] = run.cached.get(b, 0) + reply.cached
                i += 1
        run.load = (load_before, os.getloadavg()[0])


def _call(stub: pb_grpc.MemoryServiceStub, query: str, *, timeout_s: float) -> tuple[float, Any]:
    started = time.perf_counter()
    reply = stub.AssembleContext(pb.AssembleContextRequest(agent_id=AGENT, query=query), timeout=timeout_s)
    return (time.perf_counter() - started) * 1000, reply


def _row(run: ServiceRun, backend: str) -> str:
    values = run.ms[backend]
    spread = Spread.of(run.rounds.get(backend, [values]))
    sections = ", ".join(f"{k} {v}" for k, v in sorted(run.sections[backend].items()))
    return (
        f"| {backend} | {len(values)} | {spread.p50:.1f} | {spread.p95:.1f} |"
        f" {min(spread.p50s, default=0.0):.1f}–{max(spread.p50s, default=0.0):.1f} /"
        f" {min(spread.p95s, default=0.0):.1f}–{max(spread.p95s, default=0.0):.1f} |"
        f" {statistics.median(values):.1f} / {percentile(values, 0.95):.1f} |"
        f" {max(values):.1f} | {run.first_ms[backend] / 1000:.1f} s / {run.warm_ms[backend] / 1000:.1f} s |"
        f" {run.fts_only[backend]} |"
        f" {run.cached[backend]} | {sections} |"
    )


def round_lines(run: ServiceRun) -> list[str]:
    """A table of every round's p50 / p95 per backend (empty with one round)."""
    count = max((len(r) for r in run.rounds.values()), default=0)
    if count < 2:
        return []
    spreads = {b: Spread.of(run.rounds[b]) for b in run.backends if b in run.rounds}
    return [
        "| round | " + " | ".join(f"{b} p50 / p95 ms" for b in spreads) + " |",
        "| --- | " + " | ".join("---" for _ in spreads) + " |",
        *(
            f"| {r + 1} | "
            + " | ".join(f"{s.p50s[r]:.1f} / {s.p95s[r]:.1f}" for s in spreads.values())
            + " |"
            for r in range(count)
        ),
        "",
    ]


def pinning_line(env: Mapping[str, str] | None = None) -> str:
    """Which cores the served processes were pinned to (OSAURUS_MEMORYD_CPUS / OSAURUS_INFERD_CPUS, passed on to the
    memoryd and inferd processes the bench starts; servicekit/cpu_affinity.py), or that they were not."""
    env = os.environ if env is None else env
    memoryd, inferd = env.get("OSAURUS_MEMORYD_CPUS", "").strip(), env.get("OSAURUS_INFERD_CPUS", "").strip()
    if not memoryd and not inferd:
        return "CPU pinning: none (OSAURUS_MEMORYD_CPUS / OSAURUS_INFERD_CPUS unset, the default)."
    return (
        f"CPU pinning (servicekit/cpu_affinity.py): memoryd processes on cores {memoryd or 'any'}, inferd on cores"
        f" {inferd or 'any'}; the in-process part below runs in the bench's own process, not pinned."
    )


#: What PostgreSQL's row says beside its figures (docs/postgres_search.md, tenth pass; not measured by this run).
PG_NOTE = (
    "PostgreSQL (pgread9): memoryd binds the query vector in halfvec's binary form (storage/pg_halfvec.py: the same"
    " values as the text form, ~0.6 ms less Python per cache-miss assembly; server CPU unchanged; in-process A/B at"
    " load 6-11, binary ÷ text p50 0.96-1.04, p95 0.83-1.23, inside the A/A spread of 0.98-1.01 / 0.76-1.40)."
)
#: The corpus vectors' effect on the vector searches, per mode (bench/pg_vectors_probe.py; benchvec's runs).
VECTORS_NOTE = {
    MINILM: (
        "This run's corpus rows carry the real MiniLM's vectors, as its queries do (benchvec): the earlier runs' rows"
        " were inferd's fake model's, and the transcript's HNSW walk cost more for queries from another space."
        " Measured on the first 21,504 / 35,840 turns (bench/pg_vectors_probe.py, 80 dev queries, memoryd's HNSW as"
        " built, ef_search = k = 100, EXPLAIN (ANALYZE, BUFFERS), load 5 / 3.7): MiniLM queries on MiniLM rows walk"
        " 2,372 / 2,513 buffers p50 in 1.79 / 2.54 ms with recall@13 against the exact order 0.862 / 0.835, on the"
        " fake rows 2,969 / 3,139 buffers in 2.50 / 2.92 ms with 0.446 / 0.345 (×0.80 buffers both times; at 100k"
        " rows pgread9 measured the fake rows' walk at 1.6-2.3× the same-space time); SQLite's faiss IVF (as shipped)"
        " scans 1,489 / 2,716 vectors against 1,372 / 2,150 on the fake rows, 0.18-0.25 ms p50 either way, recall@13"
        " 0.648 / 0.751 against 0.325 / 0.314."
    ),
    FAKE: (
        "This run's corpus rows carry inferd's fake model's vectors (OSAURUS_BENCH_ASSEMBLE_CORPUS_VECTORS=fake)"
        " while its queries are the real MiniLM's: for such queries the transcript's HNSW walk costs more than a"
        " deployment's (bench/pg_vectors_probe.py, 35,840 turns: 3,139 against 2,513 buffers, 2.92 against 2.54 ms"
        " p50, recall@13 0.345 against 0.835; pgread9 at 100k rows: 1.6-2.3× in time), which SQLite's faiss IVF"
        " does not see (2,150 against 2,716 vectors scanned, the same time); the default `minilm` mode measures what"
        " a deployment sees."
    ),
}


def pg_note(mode: str) -> str:
    """PostgreSQL's note, with what the corpus vectors of `mode` do to the vector searches."""
    return f"{PG_NOTE} {VECTORS_NOTE[mode]}"


def vectors_sentence(run: ServiceRun) -> str:
    """Which corpus vectors the stores hold: the PostgreSQL seed's own account when it ran, else the mode."""
    seeded = run.seeded.get(POSTGRES)
    if seeded is not None and seeded.vectors.mode == run.vectors_mode:
        return seeded.vectors.text()
    if run.vectors_mode == FAKE:
        return "corpus vectors: `fake` mode, inferd's fake 384-d model stored under all-MiniLM-L6-v2's name"
    return "corpus vectors: `minilm` mode, the real all-MiniLM-L6-v2's, read from one cache by every seed"


def service_lines(run: ServiceRun) -> list[str]:
    """The markdown section of the service part."""
    seeds = "; ".join(
        f"{b} seed: bulk insert {s.insert_s:.1f} s, {s.indexed:,} vectors through the Indexer {s.index_s:.1f} s"
        for b, s in run.seeded.items()
    )
    same = len(set(run.fingerprints.values())) == 1
    lines = [
        "### AssembleContext over gRPC against a real memoryd process per backend (`bench/assemble_services.py`)",
        "",
        f"`python -m memoryd` per backend ({', '.join(run.backends)}), all running at once, each on its own store"
        f" holding the same rows ({run.sizes['transcript']:,} turns, {run.sizes['pinned']:,} pinned facts,"
        f" {run.sizes['episodes']:,} episodes for one agent, 1,000 facts of another), written by the same code"
        " (bench/assemble_corpus.py) and given vectors by memoryd's Indexer; "
        + vectors_sentence(run)
        + "; store fingerprints (row counts, content"
        f" lengths, last ids, vectors) {'identical' if same else 'DIFFERENT: ' + str(run.fingerprints)}."
        + (f" {seeds}{' (SQLite: below)' if SQLITE in run.backends else ''}." if seeds else "")
        + " SQLite: WAL, FTS5, per-agent faiss (the transcript through the approximate IVF index);"
        f" PostgreSQL 18 on this machine (tests/support/postgres.py: Unix socket, fsync off, which reads do not"
        f" touch; maintenance_work_mem {MAINTENANCE_WORK_MEM} so the HNSW graphs build in memory; server settings:"
        f" {pg_server_settings.describe(pg_server_settings.server_settings())}), tsvector/GIN, per-agent pgvector partition with HNSW per kind, filled from the embeddings table by"
        " memoryd on its first search. Settings from memory.json: heuristic gate, 800 tokens, token counts by inferd's"
        " fake LLM tokenizer; query embedding deadline 150 ms (the service default). After warm-up calls the bench"
        f" waited {run.settle_s:.0f} s for both memoryd processes and PostgreSQL to go idle"
        f"{'' if run.settled else ' (they did NOT go quiet within the limit)'}; then the same"
        f" {len(next(iter(run.ms.values())))} queries went to every backend in"
        f" {max((len(r) for r in run.rounds.values()), default=1)} rounds of unique queries, interleaved (alternating"
        " which goes first); the headline is the median of the rounds' p50 and p95, their min–max beside it. Every query text is unique, so each call misses the assembly cache and each process embeds the"
        " query itself with the real all-MiniLM-L6-v2 (inferd, its own process); the known-entity list and"
        " keyword statistics stay cached as in a running service.",
        "",
        "| backend | calls | p50 ms (median of rounds) | p95 ms (median of rounds) | rounds' p50 / p95 min–max |"
        " all calls p50 / p95 | max ms | first call / first warm-up round (index load/build) | full text only"
        " (query vector late) | cached | section chosen |",
        "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
        *(_row(run, b) for b in run.backends),
        "",
        *round_lines(run),
    ]
    if SQLITE in run.ms and POSTGRES in run.ms:
        sqlite, postgres = Spread.of(run.rounds[SQLITE]), Spread.of(run.rounds[POSTGRES])
        s95, p95, s50, p50 = sqlite.p95, postgres.p95, sqlite.p50, postgres.p50
        lines.append(
            f"PostgreSQL / SQLite in the same run: p50 {p50 / max(s50, 1e-9):.2f}, p95 {p95 / max(s95, 1e-9):.2f}."
        )
    lines.append(pinning_line())
    if POSTGRES in run.ms:
        lines.append(pg_note(run.vectors_mode))
    lines.append(
        f"1-minute load average of the {os.cpu_count()}-core machine (shared with other engineers' work) when the"
        f" timed calls started / ended: {run.load[0]:.1f} / {run.load[1]:.1f}; the service part took"
        f" {run.seconds:.0f} s (PostgreSQL's start and seed included)."
    )
    return lines


def service_results(run: ServiceRun, in_process: list[str]) -> list[BenchResult]:
    """One headline row per backend; the first carries the detail (this part, then the in-process one)."""
    detail = "\n".join([*service_lines(run), *(["", *in_process] if in_process else [])])
    metric = (
        "AssembleContext p50 / p95 over gRPC, cache miss, evidence gate, real MiniLM query embedding"
        f" ({corpus_label(run.sizes)})"
    )
    server = pg_server_settings.describe(pg_server_settings.server_settings())
    results = []
    for i, backend in enumerate(run.backends):
        spread = Spread.of(run.rounds.get(backend, [run.ms[backend]]))
        results.append(
            BenchResult(
                SQLITE_ISSUE if backend == SQLITE else POSTGRES_ISSUE,
                label(metric, backend) + ("" if backend == SQLITE else f"; server: {server}"),
                spread.text(),
                TARGETS[backend],
                detail if i == 0 else "",
            )
        )
    return results
