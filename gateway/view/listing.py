"""The pinned-fact and episode lists of one agent, over memoryd's console ListItems (one page of each).

ListItems returns the rows already in the view's orders (pinned facts by salience, then use count; episodes newest
first), redacted in memoryd, with the totals; the gateway never sees a row's clear text. Before ListItems the view
enumerated rows from Export and fetched each preview with Inspect: 0.9-1.5 s at 5,000 facts (bench/bench_view_list.py).
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from gateway.view import convert
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb


@dataclass(frozen=True)
class Listing:
    """The first page of each list, how many rows each has in all, and where the next pages start."""

    pinned: list[convert.JSON]
    episodes: list[convert.JSON]
    pinned_total: int
    episodes_total: int
    pinned_next: str
    episodes_next: str


def row(item: cpb.ListedItem) -> convert.JSON:
    """One listed row as the page shows it."""
    shown = {
        **convert.ref(item.item),
        "preview": item.preview,
        "salience": item.salience,
        "use_count": item.use_count,
        "status": item.status,
        "redactions": list(item.redactions),
        "create_time": convert.iso(item.create_time),
        # The time the list is ordered by: the conversation's for an episode, the write's for a pinned fact.
        "time": convert.iso(item.occur_time if item.HasField("occur_time") else item.create_time),
    }
    if item.item.kind == mpb.ITEM_KIND_EPISODE:
        shown["topics"] = list(item.topics)
    return shown


async def first_pages(
    console: Any, agent_id: str, limit: int, timeout_s: float, include_disabled: bool = True
) -> Listing:
    """The top `limit` pinned facts and the `limit` newest episodes of one agent (disabled ones shown, marked)."""

    def page(kind: mpb.ItemKind) -> Any:
        request = cpb.ListItemsRequest(
            agent_id=agent_id, kind=kind, page_size=limit, include_disabled=include_disabled
        )
        return console.ListItems(request, timeout=timeout_s)

    pinned, episodes = await asyncio.gather(page(mpb.ITEM_KIND_PINNED_FACT), page(mpb.ITEM_KIND_EPISODE))
    return Listing(
        pinned=[row(i) for i in pinned.items],
        episodes=[row(i) for i in episodes.items],
        pinned_total=pinned.total_size,
        episodes_total=episodes.total_size,
        pinned_next=pinned.next_page_token,
        episodes_next=episodes.next_page_token,
    )
