"""Ingest on a real SQLite file: synchronous distillation, idempotent re-ingest that replaces derived facts,
skip_extraction, memory toggles."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memoryd.domain import AgentChanges
from memoryd.write.store_protocol import IngestTurn
from servicekit.errors import FailedPreconditionError
from tests.fakes.fake_writer_inferd import digest, request_text
from tests.support.writer_stack import WriterStack, make_writer_stack

TURNS = [
    IngestTurn("Hi, my name is Alice and I work at Acme Corp on the billing team.", "Hello Alice!"),
    IngestTurn("I prefer Postgres over MySQL for new services.", "Got it."),
    IngestTurn("No assistant reply here", ""),
]


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[WriterStack]:
    s = make_writer_stack(tmp_path)
    yield s
    s.close()


def test_ingest_distils_synchronously(stack: WriterStack) -> None:
    stack.inferd.push(
        digest(
            "Alice introduced herself.",
            pinned=[("User prefers Postgres", 0.8)],
            identity=["User's name is Alice"],
        )
    )
    when = int(datetime(2023, 3, 4, tzinfo=UTC).timestamp() * 1000)
    result = stack.writer.ingest("agent-1", "s1", TURNS, session_time_ms=when)
    assert result.turns_ingested == 3 and result.distillation == "distilled" and result.episode_id > 0
    transcript = stack.q("SELECT chunk_index, role, created_at_ms FROM transcript ORDER BY chunk_index")
    assert transcript == [
        (0, "user", when),
        (1, "assistant", when),
        (2, "user", when),
        (3, "assistant", when),
        (4, "user", when),
    ]
    assert stack.q("SELECT conversation_at_ms FROM episodes") == [(when,)]
    assert stack.q("SELECT status FROM pending_signals") == [("processed",)] * 3
    assert "Date: 2023-03-04" in request_text(stack.inferd.generate_requests[0])
    assert stack.q("SELECT count(*) FROM agents WHERE agent_id = 'agent-1'") == [(1,)]


def test_reingest_replaces_transcript_signals_episode_and_derived_facts(stack: WriterStack) -> None:
    stack.inferd.push(
        digest("Alice prefers Postgres over MySQL for new services."),
        digest("Alice works at Acme Corp on the billing team."),
    )
    first = stack.writer.ingest("agent-1", "s1", TURNS)
    second = stack.writer.ingest("agent-1", "s1", TURNS[:2])
    assert second.distillation == "distilled" and second.episode_id != first.episode_id
    assert stack.q("SELECT id, summary FROM episodes") == [
        (second.episode_id, "Alice works at Acme Corp on the billing team.")
    ]
    pinned = stack.q("SELECT content, source_episode_id FROM pinned_facts")
    identity = stack.q("SELECT content, source_episode_id FROM identity_facts")
    assert pinned and identity
    assert {episode for _, episode in pinned + identity} == {second.episode_id}
    assert any("Alice" in content for content, _ in identity)
    assert stack.q("SELECT count(*) FROM transcript") == [(4,)]
    assert stack.q("SELECT count(*) FROM pending_signals") == [(2,)]


def test_reingest_same_content_leaves_exactly_one_of_each(stack: WriterStack) -> None:
    reply = digest("Alice prefers Postgres over MySQL for new services.")
    stack.inferd.push(reply, reply, reply)
    for _ in range(3):
        assert stack.writer.ingest("agent-1", "s1", TURNS).distillation == "distilled"
    assert stack.q("SELECT count(*) FROM episodes") == [(1,)]
    pinned = stack.q("SELECT content, source_count FROM pinned_facts")
    identity = stack.q("SELECT content, source_count FROM identity_facts")
    assert pinned and identity
    assert all(count == 1 for _, count in pinned + identity)
    assert len({c for c, _ in pinned}) == len(pinned) and len({c for c, _ in identity}) == len(identity)


def test_reingest_keeps_a_fact_another_conversation_also_supports(stack: WriterStack) -> None:
    stack.inferd.set_default(digest("Alice prefers Postgres over MySQL for new services."))
    stack.writer.ingest("agent-1", "s1", TURNS)
    stack.writer.ingest("agent-1", "s2", TURNS)
    postgres = "SELECT source_count FROM pinned_facts WHERE content LIKE '%Postgres%'"
    assert stack.q(postgres) == [(2,)]
    gardening = [
        IngestTurn("A different chat about gardening: tomatoes, basil and watering schedules.", "Ok.")
    ]
    stack.inferd.set_default(digest("The chat was about gardening, tomatoes and basil."))
    stack.writer.ingest("agent-1", "s1", gardening)  # s1 no longer yields the fact
    assert stack.q(postgres) == [(1,)]


def test_reingest_does_not_touch_other_conversations_or_agents(stack: WriterStack) -> None:
    stack.inferd.set_default(digest(pinned=[("User prefers Postgres", 0.8)]))
    stack.writer.ingest("agent-1", "s1", TURNS)
    stack.writer.ingest("agent-2", "s1", TURNS)
    stack.writer.ingest(
        "agent-1",
        "s2",
        [
            IngestTurn(
                "A different chat about gardening: tomatoes, basil and watering schedules.", "Water early."
            )
        ],
    )
    stack.writer.ingest("agent-1", "s1", TURNS)
    assert stack.q("SELECT agent_id, conversation_id FROM episodes ORDER BY agent_id, conversation_id") == [
        ("agent-1", "s1"),
        ("agent-1", "s2"),
        ("agent-2", "s1"),
    ]
    assert stack.q("SELECT agent_id, count(*) FROM transcript GROUP BY agent_id") == [
        ("agent-1", 7),
        ("agent-2", 5),
    ]


def test_skip_extraction_only_replaces_transcript(stack: WriterStack) -> None:
    stack.inferd.push(digest("Alice prefers Postgres over MySQL."))
    stack.writer.ingest("agent-1", "s1", TURNS)
    result = stack.writer.ingest("agent-1", "s1", TURNS[:1], skip_extraction=True)
    assert (result.turns_ingested, result.distillation, result.episode_id) == (1, "", 0)
    assert stack.inferd.generate_calls == 1
    assert stack.q("SELECT count(*) FROM transcript") == [(2,)]
    # the memory pipeline is untouched
    assert stack.q("SELECT summary FROM episodes") == [("Alice prefers Postgres over MySQL.",)]
    assert stack.q("SELECT count(*) FROM pending_signals") == [(3,)]


def test_ingest_outcome_tokens_pass_through(stack: WriterStack) -> None:
    assert stack.writer.ingest("agent-1", "tiny", [IngestTurn("hi", "yo")]).distillation == (
        "skipped:low_novelty:4chars"
    )
    stack.settings.set(core_model="")
    assert stack.writer.ingest("agent-1", "s1", TURNS).distillation == "skipped:core_model_unset"
    stack.settings.set(core_model="fake-core")
    stack.inferd.push("garbage", "garbage")
    # An unusable reply is no failure: the extractive result stands (the model is never trusted for facts).
    assert stack.writer.ingest("agent-1", "s1", TURNS).distillation == "distilled"
    assert stack.q("SELECT summary_source FROM episodes") == [("extractive",)]


def test_ingest_cancels_an_armed_debounce(stack: WriterStack) -> None:
    stack.buffer("agent-1", "s1", "live turn that will be replaced by the ingest below", "ok")
    assert ("agent-1", "s1") in stack.writer.debouncer.armed()
    stack.writer.ingest("agent-1", "s1", TURNS)
    assert ("agent-1", "s1") not in stack.writer.debouncer.armed()


def test_memory_disabled_rejects_ingest(stack: WriterStack) -> None:
    stack.settings.set(enabled=False)
    with pytest.raises(FailedPreconditionError) as info:
        stack.writer.ingest("agent-1", "s1", TURNS)
    assert info.value.reason == "MEMORY_DISABLED"
    stack.settings.set(enabled=True)
    stack.store.agents.upsert("agent-2", AgentChanges(memory_enabled=False))
    with pytest.raises(FailedPreconditionError):
        stack.writer.ingest("agent-2", "s1", TURNS)
    assert stack.q("SELECT count(*) FROM transcript") == [(0,)]


def test_thousand_turn_skip_extraction_is_one_transaction(stack: WriterStack) -> None:
    turns = [IngestTurn(f"user message {i}", f"assistant message {i}") for i in range(1000)]
    result = stack.writer.ingest("agent-1", "big", turns, skip_extraction=True)
    assert result.turns_ingested == 1000
    assert stack.q("SELECT count(*), min(chunk_index), max(chunk_index) FROM transcript") == [(2000, 0, 1999)]
    hits = stack.q("SELECT count(*) FROM fts_transcript WHERE fts_transcript MATCH 'message'")
    assert hits == [(2000,)]
