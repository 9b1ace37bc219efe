"""MemoryConsoleService.ListItems over a real memoryd on 127.0.0.1:0: orders, keyset pages, status filter, redaction,
totals, and bad input; rows seeded with Import (the export format) so salience, use counts and times are chosen."""

from __future__ import annotations

import base64
import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import pytest

from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from servicekit.errors import from_rpc_error
from tests.support.memoryd_server import MemorydHandle, running_memoryd

NOW_MS = 1_764_000_000_000
DAY_MS = 86_400_000
SECRET_MAIL = "ada.lovelace@example.org"


def _records() -> list[dict[str, Any]]:
    rng = random.Random(7)
    header = {"type": "header", "format": "osaurus-memory-export", "version": 1, "agent_id": None,
              "exported_at": "2026-12-01T00:00:00Z", "embedding_model": None}  # fmt: skip
    out: list[dict[str, Any]] = [header]
    for agent in ("lister", "other"):
        out.append({"type": "agent", "agent_id": agent, "display_name": agent, "memory_enabled": 1,
                    "search_memory_enabled": 0, "created_at_ms": NOW_MS, "updated_at_ms": NOW_MS})  # fmt: skip
    # Ties on salience and use count on purpose: the order must still be total (then by id).
    for n in range(37):
        status = "disabled" if n % 9 == 4 else "active"  # superseded ones are set after the import
        content = f"Fact number {n}" + (f", reachable at {SECRET_MAIL}" if n == 12 else "")
        out.append({"type": "pinned_fact", "agent_id": "lister", "content": content,
                    "salience": rng.choice([0.9, 0.7, 0.7, 0.5]), "use_count": rng.choice([0, 2, 2, 5]),
                    "status": status, "created_at_ms": NOW_MS - n, "updated_at_ms": NOW_MS - n})  # fmt: skip
    for n in range(23):
        when_ms = NOW_MS - rng.choice([1, 2, 2, 3]) * DAY_MS
        out.append({"type": "episode", "agent_id": "lister", "conversation_id": f"c{n}",
                    "summary": f"Episode {n}", "topics_csv": f"t{n % 3},garden", "entities_csv": "", "decisions": "",
                    "action_items": "", "salience": 0.5, "token_count": 5, "conversation_at_ms": when_ms,
                    "status": "disabled" if n == 3 else "active", "created_at_ms": when_ms})  # fmt: skip
    out.append({"type": "pinned_fact", "agent_id": "other", "content": "Not the lister's", "salience": 1.0,
                "use_count": 9, "status": "active", "created_at_ms": NOW_MS, "updated_at_ms": NOW_MS})  # fmt: skip
    return out


@pytest.fixture(scope="module")
def memoryd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemorydHandle]:
    with running_memoryd(Path(tmp_path_factory.mktemp("list-items"))) as handle:
        lines = [json.dumps(r) for r in _records()]
        handle.console.Import(iter(cpb.ImportRequest(line=line) for line in lines), timeout=60)
        db = handle.app.store.db
        with db.write():  # what the writer does to a fact replaced in its slot (Import takes active/disabled)
            for n in range(5, 37, 11):
                db.execute(
                    "UPDATE pinned_facts SET status = 'superseded' WHERE content = ?", (f"Fact number {n}",)
                )
        yield handle


def _all_pages(
    memoryd: MemorydHandle, kind: int, page_size: int, include_disabled: bool
) -> tuple[list[cpb.ListedItem], list[int]]:
    items: list[cpb.ListedItem] = []
    totals: list[int] = []
    token = ""
    while True:
        page = memoryd.console.ListItems(
            cpb.ListItemsRequest(agent_id="lister", kind=kind, page_size=page_size, page_token=token,  # type: ignore[arg-type]
                                 include_disabled=include_disabled),
            timeout=10,
        )  # fmt: skip
        assert len(page.items) <= page_size
        items.extend(page.items)
        totals.append(page.total_size)
        token = page.next_page_token
        if not token:
            return items, totals


def _stored(memoryd: MemorydHandle, sql: str) -> list[tuple[Any, ...]]:
    return memoryd.app.store.db.query(sql)


def test_pinned_facts_in_salience_then_use_order_across_pages(memoryd: MemorydHandle) -> None:
    rows = _stored(
        memoryd, "SELECT id, salience, use_count, status FROM pinned_facts WHERE agent_id = 'lister'"
    )
    expected = [r[0] for r in sorted(rows, key=lambda r: (-r[1], -r[2], r[0]))]
    items, totals = _all_pages(memoryd, mpb.ITEM_KIND_PINNED_FACT, 5, include_disabled=True)
    assert [int(i.item.id) for i in items] == expected
    assert set(totals) == {len(rows)} == {37}
    by_id = {r[0]: r for r in rows}
    for item in items:
        _, salience, use_count, status = by_id[int(item.item.id)]
        assert (item.salience, item.use_count, item.status) == (salience, use_count, status)
        assert item.item.kind == mpb.ITEM_KIND_PINNED_FACT and not item.HasField("occur_time")
    active = [r for r in expected if by_id[r][3] == "active"]
    only_active, totals = _all_pages(memoryd, mpb.ITEM_KIND_PINNED_FACT, 4, include_disabled=False)
    assert [int(i.item.id) for i in only_active] == active and set(totals) == {len(active)}
    assert {i.status for i in items} == {"active", "disabled", "superseded"}


def test_episodes_newest_first_and_previews_redacted(memoryd: MemorydHandle) -> None:
    rows = _stored(memoryd, "SELECT id, conversation_at_ms, status FROM episodes WHERE agent_id = 'lister'")
    expected = [r[0] for r in sorted(rows, key=lambda r: (-r[1], -r[0])) if r[2] == "active"]
    items, _ = _all_pages(memoryd, mpb.ITEM_KIND_EPISODE, 6, include_disabled=False)
    assert [int(i.item.id) for i in items] == expected and len(expected) == 22
    assert all(list(i.topics) == [f"t{int(i.preview.split()[1]) % 3}", "garden"] for i in items)
    occur_ms = {r[0]: r[1] for r in rows}
    assert all(i.occur_time.ToMilliseconds() == occur_ms[int(i.item.id)] for i in items)
    pinned, _ = _all_pages(memoryd, mpb.ITEM_KIND_PINNED_FACT, 500, include_disabled=True)
    (secret,) = [i for i in pinned if "Fact number 12," in i.preview]
    assert SECRET_MAIL not in secret.preview and "email" in secret.redactions
    assert all(SECRET_MAIL not in i.preview for i in pinned)


def test_page_does_not_shift_when_rows_arrive_between_pages(memoryd: MemorydHandle) -> None:
    first = memoryd.console.ListItems(
        cpb.ListItemsRequest(agent_id="lister", kind=mpb.ITEM_KIND_EPISODE, page_size=5), timeout=10
    )
    line = json.dumps({"type": "episode", "agent_id": "lister", "conversation_id": "late", "summary": "Newest",
                       "topics_csv": "", "entities_csv": "", "decisions": "", "action_items": "",
                       "salience": 0.5, "token_count": 1, "conversation_at_ms": NOW_MS, "status": "active",
                       "created_at_ms": NOW_MS})  # fmt: skip
    header = json.dumps(_records()[0])
    memoryd.console.Import(iter([cpb.ImportRequest(line=header), cpb.ImportRequest(line=line)]), timeout=30)
    second = memoryd.console.ListItems(
        cpb.ListItemsRequest(
            agent_id="lister", kind=mpb.ITEM_KIND_EPISODE, page_size=5, page_token=first.next_page_token
        ),
        timeout=10,
    )
    seen = {i.item.id for i in first.items}
    assert not seen & {i.item.id for i in second.items}
    assert second.total_size == first.total_size + 1  # the total is current; the position is not shifted


def _crafted(number: str) -> str:
    """A well-formed token of the lister's episode listing whose position holds `number` (JSON text)."""
    text = '{"q":["lister","episode",false],"p":[' + number + ",1]}"
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_bad_requests_name_the_field(memoryd: MemorydHandle) -> None:
    def error_of(request: cpb.ListItemsRequest) -> tuple[grpc.StatusCode, set[str]]:
        with pytest.raises(grpc.RpcError) as caught:
            memoryd.console.ListItems(request, timeout=10)
        error = from_rpc_error(caught.value)
        return error.code, {v.reason for v in error.field_violations}

    invalid = grpc.StatusCode.INVALID_ARGUMENT
    assert error_of(cpb.ListItemsRequest(kind=mpb.ITEM_KIND_EPISODE)) == (invalid, {"INVALID_AGENT_ID"})
    assert error_of(cpb.ListItemsRequest(agent_id="lister", kind=mpb.ITEM_KIND_TRANSCRIPT_TURN)) == (
        invalid, {"INVALID_KIND"}
    )  # fmt: skip
    assert error_of(cpb.ListItemsRequest(agent_id="lister", kind=mpb.ITEM_KIND_EPISODE, page_size=501)) == (
        invalid,
        {"INVALID_PAGE_SIZE"},
    )
    first = memoryd.console.ListItems(
        cpb.ListItemsRequest(agent_id="lister", kind=mpb.ITEM_KIND_PINNED_FACT, page_size=2), timeout=10
    )
    for other in (
        cpb.ListItemsRequest(agent_id="other", kind=mpb.ITEM_KIND_PINNED_FACT, page_token=first.next_page_token),
        cpb.ListItemsRequest(agent_id="lister", kind=mpb.ITEM_KIND_EPISODE, page_token=first.next_page_token),
        cpb.ListItemsRequest(
            agent_id="lister", kind=mpb.ITEM_KIND_PINNED_FACT, page_token=first.next_page_token,
            include_disabled=True,
        ),
        cpb.ListItemsRequest(agent_id="lister", kind=mpb.ITEM_KIND_PINNED_FACT, page_token="not-a-token"),
        cpb.ListItemsRequest(agent_id="lister", kind=mpb.ITEM_KIND_EPISODE, page_token=_crafted("1e400")),
        cpb.ListItemsRequest(agent_id="lister", kind=mpb.ITEM_KIND_EPISODE, page_token=_crafted("1e30")),
    ):  # fmt: skip
        assert error_of(other) == (invalid, {"INVALID_PAGE_TOKEN"})


def test_unknown_agent_is_not_found_and_an_agent_without_rows_is_empty(memoryd: MemorydHandle) -> None:
    page = memoryd.console.ListItems(
        cpb.ListItemsRequest(agent_id="other", kind=mpb.ITEM_KIND_EPISODE), timeout=10
    )
    assert (list(page.items), page.next_page_token, page.total_size) == ([], "", 0)
    with pytest.raises(grpc.RpcError) as caught:
        memoryd.console.ListItems(
            cpb.ListItemsRequest(agent_id="nobody", kind=mpb.ITEM_KIND_PINNED_FACT), timeout=10
        )
    error = from_rpc_error(caught.value)
    assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "AGENT_NOT_FOUND")
