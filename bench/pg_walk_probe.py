"""pgread5's probe (issue #21): does a smaller HNSW walk (storage/pg_vectors.py WALK_ROWS) change what
AssembleContext decides and places on PostgreSQL, and what does it save?

bench_assemble's corpus (make_corpus / populate, OSAURUS_PROBE_SCALE of it) on SQLite, copied to PostgreSQL
(bench/pg_twin.py); queries from make_queries with seeds bench_assemble does not use. One read path per arm over the
same PostgreSQL rows, each with its own Embedder (each embeds every query itself with the real MiniLM), the arms
interleaved per query with the order rotated; each call a cache miss. Prints, per arm against the k = 100 arm:
sections and reasons that differ, blocks that differ and the block lines that differ, and p50 / p95 ms.
Not a committed figure: docs/postgres_search.md ("sixth pass") records its runs.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
import time
from collections import Counter
from pathlib import Path

from bench.assemble_corpus import AGENT, make_corpus, make_queries, populate
from bench.bench_assemble import INDEX_MODEL, QUERY_MODEL, RealQueryVectors, inferd_process, percentile
from bench.pg_twin import pg_twin
from inferd.client import InferenceClient
from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT
from memoryd.read.assemble import DEFAULT_READ_BUDGET_S, ReadPath, ReadPathSettings
from memoryd.read.memory_reader import StoreMemoryReader
from memoryd.read.search import MemorySearch
from memoryd.retrieval.gate import GateMode
from memoryd.retrieval.tokens import InferdTokenCounter
from memoryd.storage.pg_db import PgDatabase
from memoryd.storage.pg_vectors import PgVectorStore
from memoryd.vectors.embedding import Embedder
from memoryd.vectors.pg_registry import PgVectorRegistry
from tests.support.postgres import running_postgres

SEED = 606
ALL = (KIND_TRANSCRIPT, KIND_PINNED, KIND_EPISODE)
ARMS: dict[str, dict[str, int]] = {
    "k100": {},
    "k100_again": {},
    "transcript50": {KIND_TRANSCRIPT: 50},
    "all50": dict.fromkeys(ALL, 50),
    "transcript70": {KIND_TRANSCRIPT: 70},
}
#: OSAURUS_PROBE_ARMS (comma-separated names of ARMS, k100 always first) picks the arms; all by default.
CHOSEN = [a for a in os.environ.get("OSAURUS_PROBE_ARMS", "").split(",") if a in ARMS]


def _lines_differing(one: str, other: str) -> int:
    """Block lines in one block and not the other, either way."""
    return len(set(one.splitlines()) ^ set(other.splitlines()))


def main() -> None:
    per_section = int(os.environ.get("OSAURUS_PROBE_QUERIES", "20"))
    scale = float(os.environ.get("OSAURUS_PROBE_SCALE", "1.0"))
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    home = Path(tempfile.mkdtemp(prefix="pg-walk-probe-"))
    with running_postgres() as pg, inferd_process(home / "inferd") as target:
        (home / "config").mkdir(parents=True)
        (home / "config" / "memory.json").write_text(json.dumps({"embeddingModel": INDEX_MODEL}))
        app = build_app(
            ServiceSettings(listen="127.0.0.1:0", home=home, inferd_addr=target, background_indexing=False)
        )
        client = InferenceClient(target, deadline_s=300.0)
        counter = InferenceClient(target, deadline_s=5.0)
        started = time.perf_counter()
        corpus = make_corpus(random.Random(SEED))
        populate(app, corpus, random.Random(SEED), scale, int(time.time() * 1000))
        app.indexer.run_once()
        twin = pg_twin(app.store, pg.dsn, "probe", INDEX_MODEL, 384)
        print(f"seeded in {time.perf_counter() - started:.0f} s", flush=True)
        client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
        assert isinstance(twin.db, PgDatabase)
        now_ms = int(time.time() * 1000)
        paths: dict[str, ReadPath] = {}
        searches: list[MemorySearch] = []
        for arm, caps in ARMS.items():
            if CHOSEN and arm not in ["k100", *CHOSEN]:
                continue
            store = PgVectorStore(twin.db.percent_queries(), twin.db.schema, walk_rows=caps)
            registry = PgVectorRegistry(store, twin.store.embeddings)
            embedder = Embedder(RealQueryVectors(client), app.config, query_timeout_s=DEFAULT_READ_BUDGET_S)
            search = MemorySearch(twin.store, embedder=embedder, vectors=registry)
            searches.append(search)
            paths[arm] = ReadPath(
                StoreMemoryReader(twin.store, search, lambda: now_ms, embedder),
                lambda: ReadPathSettings(gate_mode=GateMode.HEURISTIC, budget_tokens=800),
                counter=InferdTokenCounter(counter, "fake-llm"),
                read_budget_s=DEFAULT_READ_BUDGET_S,
            )
        for q in [q for _, q in make_queries(corpus, random.Random(SEED + 51), 2)]:  # warm-up, not measured
            for arm, path in paths.items():
                path.assemble(AGENT, f"{q} [{arm}]")
        query_seed = SEED + int(os.environ.get("OSAURUS_PROBE_QUERY_SEED", "50"))
        queries = [q for _, q in make_queries(corpus, random.Random(query_seed), per_section)]
        arms = list(paths)
        times: dict[str, list[float]] = {a: [] for a in arms}
        out: dict[str, list[tuple[str, str, str]]] = {a: [] for a in arms}
        loads = [os.getloadavg()[0]]
        for i, q in enumerate(queries):
            order = arms[i % len(arms) :] + arms[: i % len(arms)]
            for arm in order:
                paths[arm].invalidate(AGENT)
                t0 = time.perf_counter()
                assembly = paths[arm].assemble(AGENT, q)
                times[arm].append((time.perf_counter() - t0) * 1000)
                out[arm].append((str(assembly.section), assembly.reason, assembly.block))
            loads.append(os.getloadavg()[0])
        base = out["k100"]
        sections = [s for s, _, _ in base]
        print(f"{len(queries)} queries, sections {Counter(str(s) for s in sections)}")
        print(f"load {min(loads):.1f}-{max(loads):.1f}")
        for arm in arms:
            got = out[arm]
            sec = sum(a[0] != b[0] for a, b in zip(got, base, strict=True))
            why = sum(a[1] != b[1] for a, b in zip(got, base, strict=True))
            blocks = sum(a[2] != b[2] for a, b in zip(got, base, strict=True))
            lines = sum(_lines_differing(a[2], b[2]) for a, b in zip(got, base, strict=True))
            total = sum(len(b[2].splitlines()) for b in base)
            t = times[arm]
            for a, b in zip(got, base, strict=True):
                if a[1] != b[1] or a[2] != b[2]:
                    print(
                        f"  {arm}: {b[0]}/{b[1]} -> {a[0]}/{a[1]}; lines differing {_lines_differing(a[2], b[2])}"
                    )
            print(
                f"{arm}: sections differ {sec}, reasons {why}, blocks {blocks}, block lines differing {lines} of"
                f" {total}; p50 {percentile(t, 0.5):.1f} p95 {percentile(t, 0.95):.1f} ms;"
                f" ratio p50 {percentile(t, 0.5) / percentile(times['k100'], 0.5):.2f}"
                f" p95 {percentile(t, 0.95) / percentile(times['k100'], 0.95):.2f}",
                flush=True,
            )
        for search in searches:
            search.close()
        client.close()
        counter.close()
        app.close()


if __name__ == "__main__":
    main()
