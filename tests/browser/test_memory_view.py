"""The Memory view in a real browser (Debian's chromium via Playwright) against memoryd and the gateway.

memoryd (with the fake embedding inferd) runs in-process on 127.0.0.1:0 and is seeded over gRPC (Import); the
gateway app is served by uvicorn on 127.0.0.1:0 in a thread. The browser adds an override, finds a pinned fact,
sees its secret redacted, disables and forgets it, runs consolidation and reads the report; every step is checked
against memoryd over gRPC as well as on the page.

Set OSAURUS_VIEW_SCREENSHOTS=<dir> to save the two screenshots the README shows (docs/memory-view-*.png).
"""

from __future__ import annotations

import json
import logging
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest

from gateway.config import Settings
from gateway.embedded import EmbeddedGateway
from gateway.view.guard import TOKEN_MAX_AGE_S, ViewGuard
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as mpb
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.memoryd_server import MemorydHandle, running_memoryd

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
SECRET = "sk-9f8e7d6c5b4a39281706f5e4d3c2b1a0"
SECRET_FACT = f"The ledger project's OpenAI key is {SECRET} and lives in the vault"
OVERRIDE = "I prefer tabs over spaces"
DAY_MS = 86_400_000


@dataclass
class Stack:
    """memoryd, its stubs, and the gateway's base URL."""

    memoryd: MemorydHandle
    url: str
    secret_fact_id: str


def _records(now_ms: int) -> list[dict[str, Any]]:
    """Two agents' memory in the export format: pinned facts (one holding a secret), episodes, turns, facts."""
    header = {"type": "header", "format": "osaurus-memory-export", "version": 1, "agent_id": None,
              "exported_at": "2026-12-01T00:00:00Z", "embedding_model": None}  # fmt: skip
    out: list[dict[str, Any]] = [header]
    for agent, name in (("default", "Default"), ("research", "Research assistant")):
        out.append({"type": "agent", "agent_id": agent, "display_name": name, "memory_enabled": 1,
                    "search_memory_enabled": 0, "created_at_ms": now_ms - 30 * DAY_MS,
                    "updated_at_ms": now_ms - 30 * DAY_MS})  # fmt: skip
    episodes = [
        ("default", "c-tea", "Compared green tea varieties and settled on a morning sencha.", "tea,morning", 0.7, 9),
        ("default", "c-ledger", "Set up the ledger project and discussed where its API key is stored.", "ledger", 0.6, 3),
        ("default", "c-repo", "Planned the move of the atlas services into the monorepo.", "atlas,monorepo", 0.55, 1),
        ("research", "c-papers", "Summarised three papers on retrieval-augmented generation.", "papers,rag", 0.5, 2),
    ]  # fmt: skip
    for agent, conversation, summary, topics, salience, days_ago in episodes:
        when_ms = now_ms - days_ago * DAY_MS
        out.append({"type": "episode", "agent_id": agent, "conversation_id": conversation, "summary": summary,
                    "topics_csv": topics, "entities_csv": "", "decisions": "", "action_items": "",
                    "salience": salience, "token_count": 20, "conversation_at_ms": when_ms, "status": "active",
                    "created_at_ms": when_ms})  # fmt: skip
    turns = [
        (9001, 0, "user", f"For the ledger project, my OpenAI key is {SECRET}; keep it in the vault."),
        (9002, 1, "assistant", "Understood, I will remember that it lives in the vault."),
    ]
    for row_id, chunk, role, text in turns:
        out.append({"type": "transcript", "id": row_id, "agent_id": "default", "conversation_id": "c-ledger",
                    "chunk_index": chunk, "role": role, "content": text, "token_count": 20,
                    "created_at_ms": now_ms - 3 * DAY_MS})  # fmt: skip
    pinned = [
        ("default", "Prefers green tea over coffee in the morning", 0.92, 7, ""),
        ("default", "Works in a monorepo called atlas", 0.78, 4, ""),
        ("default", SECRET_FACT, 0.64, 2, "9001"),
        ("default", "Has a dog named Miso", 0.41, 1, ""),
        ("default", "Cycles to work on Tuesdays", 0.23, 0, ""),
        ("research", "Reads papers on retrieval before lunch", 0.7, 3, ""),
    ]
    for agent, content, salience, uses, sources in pinned:
        out.append({"type": "pinned_fact", "agent_id": agent, "content": content, "salience": salience,
                    "use_count": uses, "status": "active", "source_turn_ids": sources,
                    "created_at_ms": now_ms - 5 * DAY_MS, "updated_at_ms": now_ms - 5 * DAY_MS})  # fmt: skip
    for text in ("The user lives in Lisbon", "The user plays the cello"):
        out.append({"type": "identity_fact", "agent_id": "default", "content": text, "status": "active",
                    "created_at_ms": now_ms - 10 * DAY_MS, "updated_at_ms": now_ms - 10 * DAY_MS})  # fmt: skip
    return out


def _seed(console: cpb_grpc.MemoryConsoleServiceStub) -> str:
    """Import the records over gRPC; the id of the pinned fact that holds the secret."""
    lines = [json.dumps(r) for r in _records(int(time.time() * 1000))]
    console.Import(iter(cpb.ImportRequest(line=line) for line in lines), timeout=60)
    hits = console.Search(
        cpb.SearchRequest(query="ledger vault", scope=cpb.CONSOLE_SCOPE_PINNED, agent_id="default"),
        timeout=10,
    ).hits
    assert len(hits) == 1, "the seeded secret fact should be the only pinned ledger fact"
    return str(hits[0].item.id)


@contextmanager
def _gateway(memoryd_target: str, inferd_target: str) -> Iterator[str]:
    """The gateway app (gateway.app.create_app, which includes the view's router) served by uvicorn in a thread."""
    settings = Settings(
        listen="127.0.0.1:0",
        memoryd_addr=memoryd_target,
        inferd_addr=inferd_target,
        plugin_host_addr="127.0.0.1:1",
    )
    with EmbeddedGateway(settings) as gateway:
        yield gateway.url


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stack]:
    home = tmp_path_factory.mktemp("memory-view")
    with ExitStack() as exits:
        inferd, _state = exits.enter_context(running_fake_inferd())
        memoryd = exits.enter_context(running_memoryd(home / "memoryd", inferd_addr=inferd.target))
        secret_id = _seed(memoryd.console)
        url = exits.enter_context(_gateway(memoryd.target, inferd.target))
        yield Stack(memoryd, url, secret_id)


def _post(url: str, body: dict[str, Any], headers: dict[str, str]) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(
        url,
        data=json.dumps(body).encode(),
        method="POST",
        headers={"Content-Type": "application/json", **headers},
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:  # an unclosed error response leaks its socket
            return error.code, json.loads(error.read())


def _page_token(url: str) -> str:
    with urllib.request.urlopen(f"{url}/memory", timeout=10) as response:
        html = str(response.read().decode())
    marker = 'name="csrf-token" content="'
    return html.split(marker, 1)[1].split('"', 1)[0]


def _identity_texts(memoryd: MemorydHandle) -> list[str]:
    found = memoryd.memory.GetIdentity(mpb.GetIdentityRequest(), timeout=10).identity
    return [o.text for o in found.overrides]


def _inspect(memoryd: MemorydHandle, item_id: str) -> cpb.InspectResponse:
    ref = mpb.ItemRef(kind=mpb.ITEM_KIND_PINNED_FACT, id=item_id)
    found: cpb.InspectResponse = memoryd.console.Inspect(cpb.InspectRequest(item=ref), timeout=10)
    return found


# ------------------------------------------------------------------------------------ cross-site protection
def test_state_changes_need_same_origin_and_the_page_token(stack: Stack) -> None:
    api = f"{stack.url}/memory/view/api/overrides"
    token = _page_token(stack.url)
    # One character changed, so the tampered token differs from the real one whatever it ends with.
    tampered = token[:-1] + ("0" if token[-1] != "0" else "1")
    own_origin = stack.url
    cases = [
        ({}, "CSRF_TOKEN_MISSING"),
        ({"X-CSRF-Token": tampered}, "CSRF_TOKEN_INVALID"),
        ({"X-CSRF-Token": token, "Origin": "http://evil.example"}, "CROSS_SITE_REQUEST"),
        ({"X-CSRF-Token": token, "Sec-Fetch-Site": "cross-site", "Origin": own_origin}, "CROSS_SITE_REQUEST"),
        ({"X-CSRF-Token": token, "Sec-Fetch-Site": "same-site"}, "CROSS_SITE_REQUEST"),
    ]
    for headers, reason in cases:
        status, body = _post(api, {"text": "planted by another site"}, headers)
        assert (status, body["error"]["reason"]) == (403, reason), headers
    assert "planted by another site" not in _identity_texts(stack.memoryd)
    read = urllib.request.Request(
        f"{stack.url}/memory/view/api/overview", headers={"Sec-Fetch-Site": "cross-site"}
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(read, timeout=10)
    with refused.value as error:
        assert (error.code, json.loads(error.read())["error"]["reason"]) == (403, "CROSS_SITE_REQUEST")
    status, body = _post(
        api, {"text": "added with the page token"}, {"X-CSRF-Token": token, "Origin": own_origin}
    )
    assert status == 200 and body["text"] == "added with the page token"
    remove = urllib.request.Request(
        f"{api}/{body['id']}",
        method="DELETE",
        headers={"X-CSRF-Token": token, "Sec-Fetch-Site": "same-origin"},
    )
    with urllib.request.urlopen(remove, timeout=10) as response:
        assert response.status == 200
    assert "added with the page token" not in _identity_texts(stack.memoryd)


def test_the_danger_zone_needs_the_exact_phrase(stack: Stack) -> None:
    token = _page_token(stack.url)
    status, body = _post(
        f"{stack.url}/memory/view/api/clear", {"confirm_text": "yes"}, {"X-CSRF-Token": token}
    )
    assert (status, body["error"]["reason"]) == (400, "CONFIRMATION_REQUIRED")
    stats = stack.memoryd.memory.GetStats(mpb.GetStatsRequest(), timeout=10)
    assert sum(a.pinned_facts for a in stats.agents) > 0


def test_the_page_refuses_a_rebinding_host_and_cannot_be_framed(stack: Stack) -> None:
    request = urllib.request.Request(f"{stack.url}/memory", headers={"Host": "attacker.example:1337"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=10)
    refused.value.close()
    assert refused.value.code == 403
    with urllib.request.urlopen(f"{stack.url}/memory", timeout=10) as response:
        assert response.headers["X-Frame-Options"] == "DENY"
        assert "frame-ancestors 'none'" in response.headers["Content-Security-Policy"]


def _get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def test_bad_inputs_get_4xx_json_with_a_reason(stack: Stack) -> None:
    api = f"{stack.url}/memory/view/api"
    token = {"X-CSRF-Token": _page_token(stack.url)}
    answers = [
        _get(f"{api}/items/bogus/1"),
        _get(f"{api}/items/pinned/12abc"),
        _get(f"{api}/items/pinned/999999"),
        _get(f"{api}/rows?agent_id=nobody"),
        _get(f"{api}/rows"),
        _post(f"{api}/search", {"query": "tea", "limit": 500}, token),
        _post(f"{api}/search", {"query": ""}, token),
        _post(f"{api}/preview", {"agent_id": "default", "query": "tea", "max_tokens": 0}, token),
        _post(f"{api}/items/transcript/9002/disable", {}, token),
    ]
    statuses = [status for status, _ in answers]
    reasons = [body["error"]["reason"] for _, body in answers]
    assert statuses == [400, 400, 404, 404, 400, 400, 400, 400, 400], list(
        zip(statuses, reasons, strict=True)
    )
    assert reasons[2:4] == ["ITEM_NOT_FOUND", "AGENT_NOT_FOUND"]
    assert reasons[-1] == "NOT_DISABLEABLE"


def test_tokens_are_bound_to_the_process_key_and_expire() -> None:
    now_s = [1_800_000_000.0]
    guard = ViewGuard(clock_s=lambda: now_s[0])
    token = guard.mint()
    assert guard.token_refusal(token) is None
    assert guard.token_refusal(token.replace(".", "x", 1)) is not None
    other = ViewGuard(clock_s=lambda: now_s[0])  # another process: another key
    found = other.token_refusal(token)
    assert found is not None and found.reason == "CSRF_TOKEN_INVALID"
    now_s[0] += TOKEN_MAX_AGE_S + 1
    found = guard.token_refusal(token)
    assert found is not None and found.reason == "CSRF_TOKEN_EXPIRED"


# -------------------------------------------------------------------------------------------- the browser
def test_memory_view_in_chromium(stack: Stack, tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    if not CHROMIUM.exists():
        pytest.skip(
            "Debian's chromium is not installed at /usr/bin/chromium (scripts/install.sh installs it)"
        )
    from playwright.sync_api import expect, sync_playwright

    caplog.set_level(logging.INFO)  # the house rule: no memory content at INFO or above
    shots = (
        Path(os.environ["OSAURUS_VIEW_SCREENSHOTS"]) if os.environ.get("OSAURUS_VIEW_SCREENSHOTS") else None
    )
    fact = stack.secret_fact_id
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"),  # a fresh --user-data-dir for this run
            executable_path=str(CHROMIUM),
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1360, "height": 900},
        )
        # The page may load nothing from anywhere else: every request goes to the gateway itself.
        requests: list[str] = []
        context.on("request", lambda r: requests.append(r.url))
        page = context.new_page()
        # Two shared cores: give every wait room (the defaults are 5 s for expect, 30 s for actions).
        page.set_default_timeout(30_000)
        expect.set_options(timeout=20_000)
        page_errors: list[str] = []
        page.on("pageerror", lambda e: page_errors.append(str(e)))
        page.goto(f"{stack.url}/memory")
        expect(page.locator("body.ready")).to_be_attached(timeout=15_000)
        assert page_errors == []

        # Per-agent counts, statistics and the default agent's pinned facts with salience bars and use counts.
        expect(page.locator('#agent-table tr[data-agent="research"]')).to_contain_text("Research assistant")
        expect(page.locator("#stat-db")).not_to_have_text("–")
        expect(page.locator("#pinned-list > li")).to_have_count(5)
        first = page.locator("#pinned-list > li").first
        expect(first).to_contain_text("Prefers green tea")
        expect(first).to_contain_text("used 7×")
        bar_share = first.locator(".bar-fill").evaluate(
            "e => e.getBoundingClientRect().width / e.parentElement.getBoundingClientRect().width"
        )
        assert abs(bar_share - 0.92) < 0.02, bar_share
        expect(page.locator("#episode-list > li")).to_have_count(3)

        # Identity: add an override.
        page.fill("#override-text", OVERRIDE)
        page.click("#override-add")
        expect(page.locator("#override-list")).to_contain_text(OVERRIDE)
        assert OVERRIDE in _identity_texts(stack.memoryd)
        # ... and remove one.
        page.fill("#override-text", "Answer in French")
        page.click("#override-add")
        added = page.locator("#override-list > li", has_text="Answer in French")
        expect(added).to_have_count(1)
        added.locator("button.remove-override").click()
        expect(added).to_have_count(0)
        assert _identity_texts(stack.memoryd) == [OVERRIDE]

        # The pinned fact with the secret is listed, redacted.
        secret_row = page.locator(f'#pinned-list > li[data-id="{fact}"]')
        expect(secret_row).to_contain_text("ledger project")
        expect(secret_row).to_contain_text("[redacted")
        assert SECRET not in page.content()

        # Sync Now drains the pending turn and shows its outcome token.
        stack.memoryd.memory.BufferTurn(
            mpb.BufferTurnRequest(agent_id="default", conversation_id="c-sync", user_message="Hello there"),
            timeout=10,
        )
        page.click("#sync-now")
        outcome = page.locator("#sync-outcomes > li", has_text="default / c-sync")
        expect(outcome).to_be_visible(timeout=60_000)
        assert (outcome.locator("code").text_content() or "").strip()
        expect(page.locator("#stat-pending")).to_have_text("0")
        page.click('[data-dismiss="sync-panel"]')

        # Run Consolidation Now and read its report.
        page.click("#consolidate-now")
        expect(page.locator("#consolidation-panel")).to_be_visible(timeout=60_000)
        steps = page.locator("#consolidation-steps tbody tr")
        names = list(steps.evaluate_all("rows => rows.map(r => r.dataset.step)"))
        assert {"decay", "merge", "promote", "evict", "prune"} <= set(names), names
        expect(page.locator("#consolidation-summary")).to_contain_text("manual pass started")
        expect(page.locator("body[data-loading]")).to_have_count(0)
        if shots is not None:
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(shots / "memory-view-overview.png"), full_page=True)

        # Console: a scoped search finds the fact; Inspect shows it redacted, with its source turn.
        page.click('[data-dismiss="consolidation-panel"]')
        expect(page.locator("#consolidation-panel")).to_be_hidden()
        page.click("#tab-console")
        page.fill("#search-query", "ledger vault")
        page.select_option("#search-scope", "pinned")
        page.click("#search-go")
        hit = page.locator(f'#search-results > li[data-kind="pinned"][data-id="{fact}"]')
        expect(hit).to_be_visible()
        expect(page.locator("#search-results > li")).to_have_count(1)
        hit.locator("button.inspect").click()
        expect(page.locator("#inspect-ref")).to_contain_text(f"pinned {fact}")
        preview = page.locator("#inspect-preview")
        expect(preview).to_contain_text("[redacted")
        assert SECRET not in (preview.text_content() or "")
        expect(page.locator("#inspect-redactions")).to_contain_text("Redacted before display")
        source = page.locator('#inspect-sources > li[data-kind="transcript"][data-id="9001"]')
        expect(source).to_contain_text("ledger project")
        expect(source).to_contain_text("user")
        assert SECRET not in page.content()

        # Context preview, bounded, and diagnostics.
        page.fill("#preview-query", "what tea do I like in the morning?")
        page.fill("#preview-tokens", "120")
        page.click("#preview-go")
        expect(page.locator("#preview-meta")).to_contain_text("section pinned")
        expect(page.locator("#preview-meta")).to_contain_text("cap 120")
        expect(page.locator("#preview-block")).to_contain_text("green tea")
        page.click("#diagnose")
        expect(page.locator("#diagnostics-body")).to_contain_text("store healthy")
        if shots is not None:
            page.evaluate("window.scrollTo(0, 0)")
            page.screenshot(path=str(shots / "memory-view-console.png"), full_page=True)

        # Disable: out of recall (and of a default search), row kept; shown again with disabled rows.
        page.click("#inspect-disable")
        expect(page.locator("#inspect-ref")).to_contain_text("disabled")
        assert _inspect(stack.memoryd, fact).disabled
        expect(page.locator("#search-results > li")).to_have_count(1)
        expect(page.locator("#search-results")).to_contain_text("No matches.")
        page.check("#search-disabled")
        page.click("#search-go")
        expect(hit).to_have_class("disabled")
        expect(hit.locator(".badge.disabled")).to_have_text("disabled")
        hit.locator("button.enable").click()
        expect(hit.locator(".badge.disabled")).to_have_count(0)
        assert not _inspect(stack.memoryd, fact).disabled
        hit.locator("button.disable").click()
        expect(hit.locator(".badge.disabled")).to_have_text("disabled")
        assert _inspect(stack.memoryd, fact).disabled

        # Forget: two clicks, then the row is gone from memoryd and from the page.
        forget_button = page.locator("#inspect-forget")
        forget_button.click()
        expect(forget_button).to_have_text("Really forget?")
        assert _inspect(stack.memoryd, fact).disabled  # one click does nothing
        forget_button.click()
        expect(page.locator("#inspect-body")).to_be_hidden()
        with pytest.raises(grpc.RpcError) as gone:
            _inspect(stack.memoryd, fact)
        assert gone.value.code() == grpc.StatusCode.NOT_FOUND
        expect(hit).to_have_count(0)
        page.click("#tab-overview")
        expect(page.locator("#pinned-list > li")).to_have_count(4)

        # The danger zone stays shut until the phrase is typed exactly.
        page.fill("#clear-confirm", "clear all")
        expect(page.locator("#clear-all")).to_be_disabled()
        page.fill("#clear-confirm", "clear all memory")
        expect(page.locator("#clear-all")).to_be_enabled()
        page.click("#clear-all")
        expect(page.locator("#status")).to_contain_text("All memory cleared")
        expect(page.locator("#pinned-list")).to_contain_text("No pinned facts yet.")
        stats = stack.memoryd.memory.GetStats(mpb.GetStatsRequest(), timeout=10)
        assert sum(a.pinned_facts + a.episodes + a.transcript_turns for a in stats.agents) == 0
        assert _identity_texts(stack.memoryd) == []

        context.close()
    assert page_errors == []
    assert requests and all(u.startswith(stack.url) for u in requests), requests
    # No memory content in any log line (memoryd, gateway, uvicorn all log in this process).
    assert SECRET not in caplog.text and OVERRIDE not in caplog.text and "green tea" not in caplog.text
