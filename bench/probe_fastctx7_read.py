"""fastctx7's read-path probe (issue 17 item 4): what overlaps the query embedding, and whether doing less beside it
shortens the call. Read paths over bench_assemble's store (probe_place_cost's seeding), called on the same queries,
interleaved in one process (each arm first as often as the others), every call after ReadPath.invalidate.

The query embedding (memoryd → gRPC → inferd's numpy forward, ~8-10 ms of a ~20 ms call) is the evidence pass's
longest part, and on the 2-core machine everything memoryd runs beside it competes with inferd's forward for a core
and, in memoryd, with the embedding's reply for the GIL (probe_fastctx7_embed: the same RPC 9.5 → 22.4 ms p50 while
another thread of the calling process runs pure Python).

Arms (each its own Embedder, MemorySearch and reader; one line-token counter filled once and shared):
- `new`: as memoryd builds it;
- `kt0`: as new, keyword_thread_rows 0: every kind's evidence-pass keyword side on the evidence thread, one after
  the other (no keyword helper thread beside the embedding);
- `uuid4`: as new, the query embedding's request id made as before fastctx7 (uuid4 on the sending thread);
- `swiN`: as new, sys.setswitchinterval(N ms) for the call (the embedding's reply waits less for the GIL).

Printed: p50/p95 per placed section and arm with ratios, mean stages of each arm's slowest 10% and the others
(`embed`: the query embedding's round trip on its helper thread), and decisions (section, placed rows) compared call
by call with the first arm.

Results (machine shared; decisions = section and placed rows, call by call):
- Two-arm runs before the order fix below were biased: the first arm ran first on every query, and the second found
  SQLite's pages warm. uuid4,new gave new x0.88/x0.83 and new,uuid4 gave new x1.11/x1.10 (300 per arm, load 10-11):
  the order, not the arms. (probe_fastctx6's two-arm figures came from that same rotation.)
- uuid4 vs new with the order fixed, 300 per arm, load 10.9: new all p50/p95 x1.00/x0.98, placed x0.98/x0.96,
  decisions identical 300/300: the request-id change does not show on the whole call at this load (the Embed RPC
  alone: x0.88/x0.83, probe_fastctx7_embed).
- 3 arms (rotation balanced), 200 per arm, load 7.8-9.0: kt0 all x1.14/x1.13 (placed x0.96/x1.15): no keyword
  thread is slower, not kept; swi1 all x0.95/x1.07 (placed x0.85/x0.97): noise at this load, as fastctx6 found at
  load 12-15. Decisions identical 199/200 and 198/200.
- Tried and not kept (the arm is gone with the change): the thread starting the vector side waiting
  (threading.Event, at most the switch interval) until its helper runs. Measured first: from the submit to the
  helper's start 0.09 ms at the median but 5.9 ms at p95 (150 calls, load 9): the woken helper waits for the GIL the
  calling thread keeps. With the wait, two runs with the biased order, one each way, load 7-10: x0.94/x1.03 (wait
  second) and x1.10/x0.92 (wait first), decisions identical 200/200 and 300/300: no direction beyond the order's;
  balanced, 300 per arm, load 13.4: x0.97/x0.99 (placed x0.98/x1.01), decisions identical 296/300. Not kept.

Run: `python -m bench.probe_fastctx7_read [--home DIR] [--queries N] [--arms new,kt0]` (seed DIR first with
`python -m bench.probe_place_cost --home DIR --queries 1`). A probe: prints its tables, writes no figures under
bench/results; nothing here is tuned on.
"""

from __future__ import annotations

import argparse
import os
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from bench import probe_fastctx6 as fc6
from bench import probe_place_cost as place
from bench.assemble_corpus import AGENT, QUERY_MODEL, SEED, make_corpus, make_queries
from bench.bench_assemble import inferd_process
from inferd.client import Embeddings, InferenceClient
from memoryd.read.line_token_filler import LineTokenFiller
from memoryd.retrieval.line_tokens import LineTokenCounter
from memoryd.retrieval.tokens import InferdTokenCounter
from servicekit.gc_tuning import settle_heap
from servicekit.interceptors import request_id_var


class OldIdClient:
    """An InferenceClient whose embed makes the request id as before fastctx7: uuid4 on the calling thread (it reads
    os.urandom, which lets go of the GIL), instead of the channel's new_request_id."""

    def __init__(self, inner: InferenceClient) -> None:
        self.inner = inner

    def embed(self, texts: Sequence[str], *, model: str = "", timeout_s: float | None = None) -> Embeddings:
        token = request_id_var.set(uuid.uuid4().hex[:16])
        try:
            return self.inner.embed(texts, model=model, timeout_s=timeout_s)
        finally:
            request_id_var.reset(token)


def make_arm(
    name: str, app: object, client: InferenceClient, lines: LineTokenCounter, now_ms: int
) -> place.Arm:
    """fastctx6's arm as memoryd builds it, with this arm's search settings."""
    arm = fc6.make_arm(
        "new" if name.startswith("swi") or name in ("kt0", "uuid4") else name, app, client, lines, now_ms
    )
    arm.name = name
    if name == "kt0":
        arm.search.settings = replace(arm.search.settings, keyword_thread_rows=0)
    if name == "uuid4":
        arm.real.client = OldIdClient(client)  # type: ignore[assignment]
    return arm


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--home", type=Path, default=Path("/tmp/probe-fastctx7"))
    parser.add_argument("--queries", type=int, default=30, help="per intended section")
    parser.add_argument("--arms", default="new,kt0")
    args = parser.parse_args()
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    home: Path = args.home
    store_home = home / "sqlite"
    if not (store_home / "seeded").exists():
        raise SystemExit(f"seed {home} first: python -m bench.probe_place_cost --home {home} --queries 1")
    (home / "inferd" / "inferd.port").unlink(missing_ok=True)
    with inferd_process(home / "inferd") as target:
        settings = ServiceSettings(
            listen="127.0.0.1:0", home=store_home, inferd_addr=target, background_indexing=False
        )
        app = build_app(settings)
        client = InferenceClient(target, deadline_s=300.0)
        counter_client = InferenceClient(target, deadline_s=5.0)
        lines = LineTokenCounter(InferdTokenCounter(counter_client, "fake-llm"))
        arms: list[place.Arm] = []
        try:
            now_ms = int((store_home / "now_ms").read_text())
            corpus = make_corpus(random.Random(SEED))
            app.vectors.build_approximate(AGENT, QUERY_MODEL)
            client.embed(["load the real model"], model=QUERY_MODEL, timeout_s=300.0)
            lines.calibration(lines.model)  # the first count loads the model (the filler never does)
            started = time.perf_counter()
            counted = LineTokenFiller(app.store, lines).run_once()
            print(f"filled {counted} line counts in {time.perf_counter() - started:.1f} s", flush=True)
            arms = [make_arm(name, app, client, lines, now_ms) for name in args.arms.split(",")]
            rng = random.Random(SEED + 17)
            for _, q in make_queries(corpus, rng, 3):  # warm every arm (not measured)
                for arm in arms:
                    fc6.call(arm, q, 0.005)
            for arm in arms:
                arm.calls.clear()
                arm.decisions.clear()
            queries = [q for _, q in make_queries(corpus, rng, args.queries)]
            settle_heap()
            load = os.getloadavg()[0]
            for i, query in enumerate(queries):
                # Each arm first on every len(arms)-th query. (probe_fastctx6's rotation, also reversed on odd
                # queries, put the first arm first on EVERY query when there are two: the second found SQLite's
                # pages for the query's words warm, ~10% at p50 in two runs of identical-but-for-request-ids arms.)
                for arm in arms[i % len(arms) :] + arms[: i % len(arms)]:
                    fc6.call(arm, query, 0.005)
            print(f"{len(queries)} queries per arm, load {load:.1f} -> {os.getloadavg()[0]:.1f}")
            for line in [*place.table(arms), *fc6.slowest(arms)]:
                print(line)
            for arm in arms[1:]:
                pairs = list(zip(arms[0].decisions, arm.decisions, strict=True))
                same = sum(a[:2] == b[:2] for a, b in pairs)
                print(f"{arms[0].name} vs {arm.name}: decisions identical {same}/{len(pairs)}")
        finally:
            for arm in arms:
                arm.reader.inner.close()
                arm.search.close()
            lines.close()
            client.close()
            counter_client.close()
            app.close()


if __name__ == "__main__":
    main()
