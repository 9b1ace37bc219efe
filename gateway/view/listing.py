"""The pinned-fact and episode lists of one agent: which rows to show from Export, what to show from Inspect.

memoryd has no "list rows" RPC, so the rows are enumerated from Export's episode and pinned_fact records (which come
before transcript and vectors, so the stream is cancelled there). Export is unredacted: this module keeps only each
row's id and numeric columns, drops the text at once, and takes every preview shown from Inspect, which redacts in
memoryd. The gateway never holds or forwards a row's clear text.
"""

from __future__ import annotations

import asyncio
import heapq
import json
from dataclasses import dataclass
from typing import Any

from gateway.view import convert
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb

#: Record types Export sends after pinned facts: reaching one means the rows we list are all seen.
_PAST_LISTED = frozenset({"identity_fact", "transcript", "pending_signal", "embedding", "end"})
#: A bound on rows read per listing, so one huge agent cannot make the page slow without saying so.
MAX_ROWS_SCANNED = 50_000
#: Inspect calls in flight at once per listing.
INSPECT_CONCURRENCY = 8


@dataclass(frozen=True)
class RowKey:
    """What Export tells us about one row, content dropped."""

    kind: str
    id: int
    salience: float
    use_count: int
    status: str
    time_ms: int


@dataclass(frozen=True)
class Listing:
    """The rows chosen for display, how many there are in all, and whether the scan stopped at its bound."""

    pinned: list[RowKey]
    episodes: list[RowKey]
    pinned_total: int
    episodes_total: int
    is_truncated: bool


def _key(kind: str, record: dict[str, Any]) -> RowKey:
    time_ms = record.get("conversation_at_ms") if kind == "episode" else record.get("created_at_ms")
    return RowKey(
        kind="pinned" if kind == "pinned_fact" else "episode",
        id=int(record.get("id") or 0),
        salience=float(record.get("salience") or 0.0),
        use_count=int(record.get("use_count") or 0),
        status=str(record.get("status") or "active"),
        time_ms=int(time_ms or record.get("created_at_ms") or 0),
    )


async def scan(console: Any, agent_id: str, limit: int, timeout_s: float) -> Listing:
    """The top `limit` pinned facts (by salience, then use) and the `limit` newest episodes of one agent."""
    call = console.Export(cpb.ExportRequest(agent_id=agent_id), timeout=timeout_s)
    pinned: list[tuple[float, int, int, RowKey]] = []
    episodes: list[tuple[int, int, RowKey]] = []
    totals = {"pinned_fact": 0, "episode": 0}
    scanned = 0
    is_truncated = False
    try:
        async for response in call:
            record = json.loads(response.line)
            kind = record.get("type")
            if kind in _PAST_LISTED:
                break
            if kind not in totals:
                continue
            scanned += 1
            if scanned > MAX_ROWS_SCANNED:
                is_truncated = True
                break
            totals[kind] += 1
            key = _key(kind, record)
            del record  # the clear text goes no further
            if kind == "pinned_fact":
                heapq.heappush(pinned, (key.salience, key.use_count, -key.id, key))
                if len(pinned) > limit:
                    heapq.heappop(pinned)
            else:
                heapq.heappush(episodes, (key.time_ms, key.id, key))
                if len(episodes) > limit:
                    heapq.heappop(episodes)
    finally:
        call.cancel()
    return Listing(
        pinned=[k for *_, k in sorted(pinned, reverse=True)],
        episodes=[k for *_, k in sorted(episodes, reverse=True)],
        pinned_total=totals["pinned_fact"],
        episodes_total=totals["episode"],
        is_truncated=is_truncated,
    )


async def shown(console: Any, keys: list[RowKey], timeout_s: float) -> list[convert.JSON]:
    """Each row as memoryd's Inspect shows it (redacted), with the numbers Export gave; rows gone since are left out."""
    gate = asyncio.Semaphore(INSPECT_CONCURRENCY)

    async def one(key: RowKey) -> convert.JSON | None:
        request = cpb.InspectRequest(item=mpb.ItemRef(kind=convert.KINDS[key.kind], id=str(key.id)))
        async with gate:
            try:
                found = await console.Inspect(request, timeout=timeout_s)
            except Exception as error:  # a row forgotten between the two calls is simply not shown
                if _is_not_found(error):
                    return None
                raise
        row = convert.inspection(found)
        row.update(
            salience=key.salience,
            use_count=key.use_count,
            status=key.status,
            time=convert.iso_ms(key.time_ms),
        )
        return row

    rows = await asyncio.gather(*(one(k) for k in keys))
    return [r for r in rows if r is not None]


def _is_not_found(error: BaseException) -> bool:
    code = getattr(error, "code", None)
    if not callable(code):
        return False
    return bool(getattr(code(), "name", "") == "NOT_FOUND")
