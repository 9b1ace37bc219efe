"""memoryd vertical slice on a real server: BufferTurn → SearchMemory, bad input, agents, identity, stats, config."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest
from google.protobuf import field_mask_pb2
from grpc_health.v1 import health_pb2, health_pb2_grpc

from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.memoryd_server import (
    MemorydHandle,
    buffer,
    enable_recall,
    rpc_error,
    running_memoryd,
    search,
)

HONEY = "Our rooftop beehive produced eleven kilograms of linden honey this summer."


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with running_memoryd(tmp_path) as handle:
        yield handle


def _assert_serving(handle: MemorydHandle) -> None:
    reply = health_pb2_grpc.HealthStub(handle.channel).Check(health_pb2.HealthCheckRequest(), timeout=5)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING


def test_buffer_turn_then_search_transcript_finds_it(memoryd: MemorydHandle, tmp_path: Path) -> None:
    enable_recall(memoryd.memory, "agent-1")
    stored = buffer(memoryd.memory, "agent-1", "conv-1", HONEY, "Eleven kilograms is a great harvest.")
    assert stored.signal_id > 0
    assert len(stored.transcript_ids) == 2
    assert stored.distillation_scheduled is False  # no writer wired in this test
    found = search(memoryd.memory, "agent-1", "how much honey did the beehive produce?")
    assert found.method in {"fts", "hybrid"}
    assert found.hits, "the buffered turn must be found"
    top = found.hits[0]
    assert top.text == HONEY
    assert top.item.kind == mpb.ITEM_KIND_TRANSCRIPT_TURN
    assert top.item.id == str(stored.transcript_ids[0])
    assert top.role == mpb.ROLE_USER
    assert top.conversation_id == "conv-1"
    assert (tmp_path / "memory" / "memory.sqlite").exists()


def test_search_folds_accents_and_neutralises_fts_syntax(memoryd: MemorydHandle) -> None:
    enable_recall(memoryd.memory, "a")
    buffer(memoryd.memory, "a", "c", "Nous avons visité le café près de la Défense.")
    assert search(memoryd.memory, "a", "cafe defense").hits
    # FTS5 operators, quotes and column filters in user text are literal terms, never syntax errors.
    for hostile in ['cafe" OR content:*', "NEAR(cafe defense)", "content : cafe", "^cafe AND -x", '"""']:
        reply = search(memoryd.memory, "a", hostile)
        assert reply.method in {"fts", "hybrid", "like"}
    # Only punctuation: no token survives, so the LIKE fallback runs and finds nothing, without error.
    assert search(memoryd.memory, "a", "?!%_").method == "like"


def test_search_never_crosses_agents(memoryd: MemorydHandle) -> None:
    for agent in ("alice", "bob"):
        enable_recall(memoryd.memory, agent)
    buffer(memoryd.memory, "alice", "c", "The launch code word is periwinkle.")
    buffer(memoryd.memory, "bob", "c", "Bob likes tomatoes.")
    assert not search(memoryd.memory, "bob", "periwinkle launch code").hits
    assert search(memoryd.memory, "alice", "periwinkle").hits


def test_search_requires_memory_recall(memoryd: MemorydHandle) -> None:
    buffer(memoryd.memory, "quiet", "c", HONEY)
    error = rpc_error(lambda: search(memoryd.memory, "quiet", "honey"))
    assert error.code == grpc.StatusCode.PERMISSION_DENIED
    assert error.reason == "MEMORY_RECALL_DISABLED"


@pytest.mark.parametrize(
    ("label", "request_kwargs", "reason", "field"),
    [
        ("empty agent id", {"agent_id": ""}, "INVALID_AGENT_ID", "agent_id"),
        ("300-char agent id", {"agent_id": "a" * 300}, "INVALID_AGENT_ID", "agent_id"),
        ("agent id with whitespace", {"agent_id": "a b"}, "INVALID_AGENT_ID", "agent_id"),
        ("missing conversation", {"conversation_id": ""}, "INVALID_CONVERSATION_ID", "conversation_id"),
        ("missing user message", {"user_message": ""}, "MISSING_FIELD", "user_message"),
        ("user message too long", {"user_message": "x" * 50_001}, "FIELD_TOO_LONG", "user_message"),
        ("assistant too long", {"assistant_message": "x" * 50_001}, "FIELD_TOO_LONG", "assistant_message"),
    ],
)
def test_buffer_turn_bad_input(
    memoryd: MemorydHandle, label: str, request_kwargs: dict[str, str], reason: str, field: str
) -> None:
    fields = {"agent_id": "a", "conversation_id": "c", "user_message": "hello", **request_kwargs}
    error = rpc_error(lambda: memoryd.memory.BufferTurn(mpb.BufferTurnRequest(**fields), timeout=10))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT, label
    assert error.reason == reason, label
    assert error.domain == "memory.osaurus.dev"
    assert [v.field for v in error.field_violations] == [field], label
    _assert_serving(memoryd)


def test_ten_megabyte_message_is_resource_exhausted(memoryd: MemorydHandle) -> None:
    huge = "x" * (10 * 1024 * 1024)
    error = rpc_error(lambda: buffer(memoryd.memory, "a", "c", huge))
    assert error.code == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.reason == "MESSAGE_TOO_LARGE"
    _assert_serving(memoryd)
    assert buffer(memoryd.memory, "a", "c", "still works").signal_id > 0


@pytest.mark.parametrize(
    ("scope", "query", "limit", "reason"),
    [
        (42, "q", 0, "INVALID_ENUM"),
        (mpb.SCOPE_UNSPECIFIED, "q", 0, "MISSING_FIELD"),
        (mpb.SCOPE_TRANSCRIPT, "", 0, "MISSING_FIELD"),
        (mpb.SCOPE_TRANSCRIPT, "   ", 0, "MISSING_FIELD"),
        (mpb.SCOPE_TRANSCRIPT, "q" * 2001, 0, "FIELD_TOO_LONG"),
        (mpb.SCOPE_TRANSCRIPT, "q", 101, "LIMIT_OUT_OF_RANGE"),
    ],
)
def test_search_bad_input(memoryd: MemorydHandle, scope: int, query: str, limit: int, reason: str) -> None:
    request = mpb.SearchMemoryRequest(agent_id="a", scope=scope, query=query, limit=limit)
    error = rpc_error(lambda: memoryd.memory.SearchMemory(request, timeout=10))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == reason
    assert error.field_violations
    _assert_serving(memoryd)


def test_memory_disabled_globally_and_per_agent(memoryd: MemorydHandle) -> None:
    memoryd.memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id="off", memory_enabled=False), timeout=10)
    error = rpc_error(lambda: buffer(memoryd.memory, "off", "c", "hi"))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MEMORY_DISABLED")
    assert buffer(memoryd.memory, "on", "c", "hi").signal_id > 0
    memoryd.console.UpdateConfig(
        cpb.UpdateConfigRequest(
            config=cpb.MemoryConfig(enabled=False), update_mask=field_mask_pb2.FieldMask(paths=["enabled"])
        ),
        timeout=10,
    )
    error = rpc_error(lambda: buffer(memoryd.memory, "on", "c", "hi"))
    assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "MEMORY_DISABLED")


def test_agents_crud_paging_and_uuid_canonicalisation(memoryd: MemorydHandle) -> None:
    lower = "3f2504e0-4f89-11d3-9a0c-0305e82c3301"
    created = memoryd.memory.UpsertAgent(
        mpb.UpsertAgentRequest(agent_id=lower, display_name="Ada"), timeout=10
    )
    assert created.created and created.agent.agent_id == lower.upper()
    assert created.agent.memory_enabled and not created.agent.search_memory_enabled
    again = memoryd.memory.UpsertAgent(
        mpb.UpsertAgentRequest(agent_id=lower.upper(), search_memory_enabled=True)
    )
    assert not again.created
    assert again.agent.display_name == "Ada"  # unset fields keep their values
    assert again.agent.search_memory_enabled
    buffer(memoryd.memory, lower, "c", "hello")  # recorded under the canonical id
    assert (
        memoryd.memory.GetAgent(mpb.GetAgentRequest(agent_id=lower), timeout=10).agent.agent_id
        == lower.upper()
    )
    for i in range(5):
        memoryd.memory.UpsertAgent(mpb.UpsertAgentRequest(agent_id=f"agent-{i}"), timeout=10)
    seen: list[str] = []
    token = ""
    while True:
        page = memoryd.memory.ListAgents(mpb.ListAgentsRequest(page_size=2, page_token=token), timeout=10)
        assert len(page.agents) <= 2
        seen += [a.agent_id for a in page.agents]
        token = page.next_page_token
        if not token:
            break
    assert seen == sorted(seen) and len(seen) == 6
    error = rpc_error(lambda: memoryd.memory.ListAgents(mpb.ListAgentsRequest(page_token="%%%"), timeout=10))
    assert error.reason == "INVALID_PAGE_TOKEN"
    deleted = memoryd.memory.DeleteAgent(mpb.DeleteAgentRequest(agent_id=lower), timeout=10)
    assert deleted.rows_deleted >= 3  # transcript row, signal, agent
    error = rpc_error(lambda: memoryd.memory.GetAgent(mpb.GetAgentRequest(agent_id=lower), timeout=10))
    assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "AGENT_NOT_FOUND")
    error = rpc_error(lambda: memoryd.memory.DeleteAgent(mpb.DeleteAgentRequest(agent_id=lower), timeout=10))
    assert error.code == grpc.StatusCode.NOT_FOUND


def test_identity_overrides(memoryd: MemorydHandle) -> None:
    added = memoryd.memory.AddOverride(
        mpb.AddOverrideRequest(text="Always reply in English"), timeout=10
    ).override
    memoryd.memory.AddOverride(mpb.AddOverrideRequest(text="My name is Terence"), timeout=10)
    identity = memoryd.memory.GetIdentity(mpb.GetIdentityRequest(), timeout=10).identity
    assert [o.text for o in identity.overrides] == ["Always reply in English", "My name is Terence"]
    after = memoryd.memory.RemoveOverride(mpb.RemoveOverrideRequest(id=added.id), timeout=10).identity
    assert [o.text for o in after.overrides] == ["My name is Terence"]
    error = rpc_error(
        lambda: memoryd.memory.RemoveOverride(mpb.RemoveOverrideRequest(id=added.id), timeout=10)
    )
    assert (error.code, error.reason) == (grpc.StatusCode.NOT_FOUND, "OVERRIDE_NOT_FOUND")
    error = rpc_error(lambda: memoryd.memory.AddOverride(mpb.AddOverrideRequest(text=""), timeout=10))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT


def test_stats_count_rows(memoryd: MemorydHandle) -> None:
    buffer(memoryd.memory, "s", "c", "one", "two")
    buffer(memoryd.memory, "s", "c", "three")
    stats = memoryd.memory.GetStats(mpb.GetStatsRequest(), timeout=10)
    (agent,) = [a for a in stats.agents if a.agent_id == "s"]
    assert (agent.transcript_turns, agent.pending_signals) == (3, 2)
    assert stats.pending_signals == 2
    assert stats.database_bytes > 0


def test_run_consolidation_reports_every_step_in_order(memoryd: MemorydHandle) -> None:
    report = memoryd.memory.RunConsolidation(mpb.RunConsolidationRequest(), timeout=30).report
    assert [step.name for step in report.steps] == [
        "decay",
        "merge",
        "promote",
        "evict",
        "prune",
        "purge",
        "identity",
    ]
    assert report.trigger == "manual"


# ------------------------------------------------------------------------------------------------------ config
def test_get_config_defaults_without_writing_a_file(memoryd: MemorydHandle, tmp_path: Path) -> None:
    config = memoryd.console.GetConfig(cpb.GetConfigRequest(), timeout=10).config
    assert config.enabled and config.memory_budget_tokens == 800 and config.summary_debounce_seconds == 60
    assert config.embedding_model == "all-minilm-l6-v2" and config.core_model == "smollm2-135m-instruct"
    assert config.relevance_gate_mode == cpb.RELEVANCE_GATE_MODE_HEURISTIC
    assert not (tmp_path / "config" / "memory.json").exists()


def test_update_config_rejects_out_of_range_with_one_violation_per_field(
    memoryd: MemorydHandle, tmp_path: Path
) -> None:
    bad = cpb.MemoryConfig(
        memory_budget_tokens=50, salience_floor=1.5, relevance_gate_mode=99, summary_debounce_seconds=5
    )
    error = rpc_error(lambda: memoryd.console.UpdateConfig(cpb.UpdateConfigRequest(config=bad), timeout=10))
    assert error.code == grpc.StatusCode.INVALID_ARGUMENT
    assert error.reason == "CONFIG_OUT_OF_RANGE"
    by_field = {v.field: v.reason for v in error.field_violations}
    assert by_field == {
        "config.memory_budget_tokens": "CONFIG_OUT_OF_RANGE",
        "config.salience_floor": "CONFIG_OUT_OF_RANGE",
        "config.summary_debounce_seconds": "CONFIG_OUT_OF_RANGE",
        "config.relevance_gate_mode": "INVALID_ENUM",
    }
    assert not (tmp_path / "config" / "memory.json").exists()  # nothing changed
    masked = cpb.UpdateConfigRequest(
        config=cpb.MemoryConfig(), update_mask=field_mask_pb2.FieldMask(paths=["extraction_mode"])
    )
    error = rpc_error(lambda: memoryd.console.UpdateConfig(masked, timeout=10))
    assert error.reason == "INVALID_ENUM"
    unknown = cpb.UpdateConfigRequest(update_mask=field_mask_pb2.FieldMask(paths=["bogus"]))
    assert rpc_error(lambda: memoryd.console.UpdateConfig(unknown, timeout=10)).reason == "UNKNOWN_FIELD"


def test_update_config_persists_atomically_pretty_sorted(memoryd: MemorydHandle, tmp_path: Path) -> None:
    request = cpb.UpdateConfigRequest(
        config=cpb.MemoryConfig(
            memory_budget_tokens=1200, salience_floor=0.0, extraction_mode=cpb.EXTRACTION_MODE_MANUAL
        ),
        update_mask=field_mask_pb2.FieldMask(
            paths=["memory_budget_tokens", "salience_floor", "extraction_mode"]
        ),
    )
    updated = memoryd.console.UpdateConfig(request, timeout=10).config
    assert updated.memory_budget_tokens == 1200 and updated.salience_floor == 0.0
    path = tmp_path / "config" / "memory.json"
    text = path.read_text()
    data = json.loads(text)
    assert list(data) == sorted(data)
    assert text.startswith("{\n  ")
    assert (
        data["memoryBudgetTokens"] == 1200
        and data["extractionMode"] == "manual"
        and data["salienceFloor"] == 0.0
    )
    assert set(data) == {
        "enabled",
        "embeddingBackend",
        "embeddingModel",
        "extractionMode",
        "relevanceGateMode",
        "memoryBudgetTokens",
        "summaryDebounceSeconds",
        "consolidationIntervalHours",
        "salienceFloor",
        "episodeRetentionDays",
        "coreModel",
    }
    assert [p.name for p in path.parent.iterdir()] == ["memory.json"]  # no temp file left behind


def test_hand_edited_out_of_range_values_are_clamped_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "config").mkdir()
    (tmp_path / "config" / "memory.json").write_text(
        json.dumps(
            {
                "memoryBudgetTokens": 99999,
                "salienceFloor": -3,
                "relevanceGateMode": "psychic",
                "enabled": False,
            }
        )
    )
    with caplog.at_level(logging.WARNING, logger="memoryd.config"), running_memoryd(tmp_path) as handle:
        config = handle.console.GetConfig(cpb.GetConfigRequest(), timeout=10).config
    assert config.memory_budget_tokens == 4000
    assert config.salience_floor == 0.0
    assert config.relevance_gate_mode == cpb.RELEVANCE_GATE_MODE_HEURISTIC
    assert config.enabled is False
    warnings = " ".join(r.getMessage() for r in caplog.records if r.levelno == logging.WARNING)
    assert (
        "memoryBudgetTokens" in warnings and "salienceFloor" in warnings and "relevanceGateMode" in warnings
    )
