"""The example plugins' commands, unit-tested the way docs/plugins.md shows: with RecordingContext."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from types import ModuleType

import pytest

from plugin_host.sdk import MemoryHit, Message, Permission, PermissionDeniedError, Scope
from plugin_host.sdk.testing import RecordingContext, run_command

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _load(folder: str, module: str) -> Iterator[ModuleType]:
    sys.path.insert(0, str(EXAMPLES / folder))
    try:
        yield __import__(module)
    finally:
        sys.path.remove(str(EXAMPLES / folder))
        sys.modules.pop(module, None)


@pytest.fixture
def note_taker() -> Iterator[ModuleType]:
    yield from _load("note_taker", "note_taker")


@pytest.fixture
def daily_brief() -> Iterator[ModuleType]:
    yield from _load("daily_brief", "daily_brief")


def test_note_taker_uses_the_models_json_title(note_taker: ModuleType, tmp_path: Path) -> None:
    plugin = note_taker.NoteTaker()
    plugin.setup(tmp_path)
    ctx = RecordingContext(
        replies=[json.dumps({"title": "Plumber", "tags": ["Home", "Todo"]})], data_dir=tmp_path
    )

    added = run_command(plugin, ctx, "add", {"text": "Call the plumber", "tags": ["urgent"]})

    assert added == {"id": 1, "title": "Plumber", "tags": ["home", "todo", "urgent"]}
    assert ctx.completions[0][-1].content.endswith("Note: Call the plumber")
    other_agent = RecordingContext(agent_id="someone-else", data_dir=tmp_path)
    assert run_command(plugin, other_agent, "list") == {"notes": []}, "notes are per agent"


def test_note_taker_recall_explains_a_denied_search(note_taker: ModuleType, tmp_path: Path) -> None:
    plugin = note_taker.NoteTaker()
    plugin.setup(tmp_path)
    denied = RecordingContext(permissions=[Permission.INFERENCE])
    allowed = RecordingContext(
        permissions=[Permission.MEMORY_SEARCH],
        memory_recall=True,
        hits={Scope.PINNED: [MemoryHit("pinned_fact", "1", 0.87654, "Sam is the plumber")]},
    )

    assert run_command(plugin, denied, "recall", {"query": "plumber"}) == {
        "hits": [], "note": "memory search unavailable (PERMISSION_NOT_GRANTED)"
    }  # fmt: skip
    assert run_command(plugin, allowed, "recall", {"query": "plumber"}) == {
        "hits": [{"text": "Sam is the plumber", "score": 0.877}]
    }  # fmt: skip


def test_daily_brief_uses_recent_episodes_newest_first(daily_brief: ModuleType) -> None:
    old = MemoryHit("episode", "1", 0.5, "Kickoff", occurred_at=datetime(2026, 1, 2, tzinfo=UTC))
    new = MemoryHit("episode", "2", 0.4, "Ship date agreed", occurred_at=datetime(2026, 3, 4, tzinfo=UTC))
    ctx = RecordingContext(
        replies=lambda chat: "brief for: " + chat[-1].content,
        permissions=[Permission.INFERENCE, Permission.MEMORY_SEARCH],
        memory_recall=True,
        hits={Scope.EPISODES: [old, new]},
    )

    result = run_command(daily_brief.DailyBrief(), ctx, "brief", {"focus": "the launch"})

    assert result["episodes_used"] == 2 and result["memory_search"] == "ok"
    prompt = ctx.completions[0][-1].content
    assert prompt.index("[2026-03-04] Ship date agreed") < prompt.index("[2026-01-02] Kickoff")
    assert ctx.searches == [(Scope.EPISODES, "the launch")]
    assert isinstance(ctx.completions[0][0], Message) and ctx.completions[0][0].role == "system"


def test_daily_brief_without_recall_still_writes(daily_brief: ModuleType) -> None:
    ctx = RecordingContext(replies=["ok"], permissions=[Permission.INFERENCE, Permission.MEMORY_SEARCH])

    result = run_command(daily_brief.DailyBrief(), ctx, "brief")

    assert result["memory_search"] == "denied:MEMORY_RECALL_DISABLED"
    assert result["brief"] == "ok"
    with pytest.raises(PermissionDeniedError):
        ctx.search_memory(Scope.EPISODES, "x")
