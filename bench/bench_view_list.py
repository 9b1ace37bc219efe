"""Memory view lists at 5,000 pinned facts (issue 20): the view's GET /memory/view/api/rows over console ListItems,
against the enumeration it replaced (Export streamed up to the first non-row record, then one Inspect per shown
row for its redacted preview), in one run.

inferd (`--backend fake`), memoryd and the gateway run as subprocesses (bench_gateway's way); one agent holds
5,000 pinned facts and 200 episodes, imported with the console's Import. Each round times the old enumeration
(gRPC from this process: Export, then 100 Inspect calls, 8 at a time, as gateway/view/listing.py did) and the
view's route (HTTP, which makes two ListItems calls of 50 rows); medians over the rounds.
"""

from __future__ import annotations

import http.client
import json
import os
import statistics
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import grpc

from bench.bench_gateway import gateway_stack
from bench.report import BenchResult
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb

ISSUE = 20
FACTS = 5000
EPISODES = 200
SHOWN = 50
ROUNDS = int(os.environ.get("OSAURUS_BENCH_VIEW_ROUNDS", "9"))
AGENT = "big"


def _records(now_ms: int) -> list[dict[str, Any]]:
    header = {"type": "header", "format": "osaurus-memory-export", "version": 1, "agent_id": None,
              "exported_at": "2026-12-01T00:00:00Z", "embedding_model": None}  # fmt: skip
    out: list[dict[str, Any]] = [header]
    out.append({"type": "agent", "agent_id": AGENT, "display_name": AGENT, "memory_enabled": 1,
                "search_memory_enabled": 0, "created_at_ms": now_ms, "updated_at_ms": now_ms})  # fmt: skip
    for n in range(FACTS):
        out.append({"type": "pinned_fact", "agent_id": AGENT,
                    "content": f"Fact {n}: the user mentioned item {n} of their collection, mail x{n}@example.org",
                    "salience": (n % 97) / 97, "use_count": n % 13, "status": "active",
                    "created_at_ms": now_ms - n, "updated_at_ms": now_ms - n})  # fmt: skip
    for n in range(EPISODES):
        at_ms = now_ms - n * 1000
        out.append({"type": "episode", "agent_id": AGENT, "conversation_id": f"c{n}",
                    "summary": f"Episode {n} about topic {n % 7}", "topics_csv": f"t{n % 7},x", "entities_csv": "",
                    "decisions": "", "action_items": "", "salience": 0.5, "token_count": 10,
                    "conversation_at_ms": at_ms, "status": "active", "created_at_ms": at_ms})  # fmt: skip
    return out


def _old_enumeration(console: cpb_grpc.MemoryConsoleServiceStub, pool: ThreadPoolExecutor) -> int:
    """What the view did before ListItems: Export's row records (text dropped), top rows, Inspect each."""
    pinned: list[tuple[float, int, int]] = []
    episodes: list[tuple[int, int]] = []
    call = console.Export(cpb.ExportRequest(agent_id=AGENT), timeout=120)
    for response in call:
        record = json.loads(response.line)
        kind = record.get("type")
        if kind in ("identity_fact", "transcript", "pending_signal", "embedding", "end"):
            break
        if kind == "pinned_fact":
            pinned.append((float(record["salience"]), int(record["use_count"]), int(record["id"])))
        elif kind == "episode":
            episodes.append((int(record["conversation_at_ms"]), int(record["id"])))
    call.cancel()
    top = sorted(pinned, key=lambda k: (-k[0], -k[1], k[2]))[:SHOWN]
    newest = sorted(episodes, reverse=True)[:SHOWN]
    refs = [mpb.ItemRef(kind=mpb.ITEM_KIND_PINNED_FACT, id=str(k[2])) for k in top]
    refs += [mpb.ItemRef(kind=mpb.ITEM_KIND_EPISODE, id=str(k[1])) for k in newest]
    shown = list(pool.map(lambda ref: console.Inspect(cpb.InspectRequest(item=ref), timeout=30), refs))
    return len(shown)


def run() -> list[BenchResult]:
    """Start the stack, import the rows, time both ways round by round."""
    with tempfile.TemporaryDirectory(prefix="bench-view-") as tmp:
        home = Path(tmp)
        (home / "memoryd" / "config").mkdir(parents=True)
        # No embeddings: the rows need none to be listed, and importing 5,200 would embed each one first.
        config = {"coreModel": "", "embeddingBackend": "none"}
        (home / "memoryd" / "config" / "memory.json").write_text(json.dumps(config))
        with gateway_stack(home) as (memoryd_target, _inferd_target, gateway_address):
            old_ms, new_ms = _rounds(memoryd_target, gateway_address)
    old, new = statistics.median(old_ms), statistics.median(new_ms)
    detail = (
        f"{ROUNDS} rounds after one warm-up each way; one agent with {FACTS} pinned facts and {EPISODES} episodes; "
        f"{SHOWN} rows of each list shown. Old: Export + {2 * SHOWN} Inspect calls (8 in flight) over gRPC from the "
        "bench process, the gateway's part left out, so the old figure is a lower bound. New: the view's route "
        "over HTTP, two ListItems calls behind it.\n\n"
        "| path | p50 ms | min ms | max ms |\n| --- | --- | --- | --- |\n"
        f"| Export + Inspect (before) | {old:.1f} | {min(old_ms):.1f} | {max(old_ms):.1f} |\n"
        f"| GET /memory/view/api/rows over ListItems | {new:.1f} | {min(new_ms):.1f} | {max(new_ms):.1f} |\n\n"
        f"Load average when the run ended: {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores."
    )
    return [
        BenchResult(
            ISSUE,
            f"Memory view lists at {FACTS} facts p50: ListItems route vs Export + Inspect",
            f"{new:.1f} ms vs {old:.0f} ms",
            "—",
            detail,
        )
    ]


def _rounds(memoryd_target: str, gateway_address: str) -> tuple[list[float], list[float]]:
    host, port = gateway_address.rsplit(":", 1)
    conn = http.client.HTTPConnection(host, int(port), timeout=120)
    path = f"/memory/view/api/rows?agent_id={AGENT}&limit={SHOWN}"

    def view() -> None:
        conn.request("GET", path)
        response = conn.getresponse()
        body = json.loads(response.read())
        assert response.status == 200 and body["pinned_total"] == FACTS and len(body["pinned"]) == SHOWN, body

    old_ms: list[float] = []
    new_ms: list[float] = []
    with (
        grpc.insecure_channel(
            memoryd_target, options=[("grpc.max_send_message_length", 64 << 20)]
        ) as channel,
        ThreadPoolExecutor(8) as pool,
    ):
        console = cpb_grpc.MemoryConsoleServiceStub(channel)
        lines = [json.dumps(r) for r in _records(int(time.time() * 1000))]
        console.Import(iter(cpb.ImportRequest(line=line) for line in lines), timeout=600)
        assert _old_enumeration(console, pool) == 2 * SHOWN
        view()
        for _ in range(ROUNDS):
            started = time.perf_counter()
            _old_enumeration(console, pool)
            old_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            view()
            new_ms.append((time.perf_counter() - started) * 1000)
    conn.close()
    return old_ms, new_ms


if __name__ == "__main__":
    for result in run():
        print(f"{result.metric}: {result.value}")
        print(result.detail)
