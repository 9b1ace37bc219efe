"""ReadPath end to end over an in-memory reader: sections, overrides, cache, invalidation, injection rules."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memoryd.read.assemble import ChatMessage, ReadPath, ReadPathSettings
from memoryd.retrieval.gate import GateMode
from memoryd.retrieval.items import IdentityFact, IdentitySnapshot, ItemKind, ItemRef, Section
from memoryd.retrieval.tokens import estimate_tokens
from tests.fakes.memory_reader import InMemoryReader

AGENT = "agent-1"


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0
        self.wall = datetime(2026, 6, 22, 9, 30, tzinfo=UTC)

    def monotonic(self) -> float:
        return self.t

    def now(self) -> datetime:
        return self.wall


@pytest.fixture
def reader() -> InMemoryReader:
    r = InMemoryReader(
        identity_snapshot=IdentitySnapshot(
            overrides=("My name is Terence",),
            narrative="Terence builds Swift apps for macOS and lives in Lisbon.",
            facts=(IdentityFact("5", "Works at Acme", 2),),
        ),
        entities={AGENT: ["Mochi", "Project Falcon"]},
    )
    r.add(AGENT, Section.PINNED, "Mochi is the user's cat and eats salmon", salience=0.9)
    r.add(AGENT, Section.PINNED, "Project Falcon ships in September", salience=0.7)
    r.add(
        AGENT,
        Section.EPISODES,
        "Discussed the Postgres migration",
        occurred_at_ms=1_750_000_000_000,
        decisions=("Use pg_dump",),
    )
    r.add(
        AGENT,
        Section.TRANSCRIPT,
        "The refund should go to my old card",
        role="user",
        occurred_at_ms=1_750_000_000_000,
    )
    r.add("other", Section.PINNED, "Mochi belongs to another agent")
    return r


class Settings:
    def __init__(self) -> None:
        self.value = ReadPathSettings()

    def __call__(self) -> ReadPathSettings:
        return self.value


@pytest.fixture
def settings() -> Settings:
    return Settings()


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def path(reader: InMemoryReader, settings: Settings, clock: FakeClock) -> ReadPath:
    # No gate model: the in-memory reader measures no retrieval evidence, so these tests exercise the read path's
    # plumbing with the trigger phrases deciding (the evidence gate is tested over real storage in
    # test_readpath_evidence.py).
    return ReadPath(reader, settings, clock=clock, use_default_gate_model=False)


def test_pinned_section_block(path: ReadPath, reader: InMemoryReader) -> None:
    a = path.assemble(AGENT, "How is Mochi doing?")
    assert a.section is Section.PINNED
    assert a.reason == "trigger:entity"
    assert a.block == (
        "[Memory]\nCurrent date: 22 June 2026\n\n"
        "## What I should always remember\n- My name is Terence\n\n"
        "## Things I remember\n- Mochi is the user's cat and eats salmon\n[/Memory]"
    )
    assert a.placed == (ItemRef(ItemKind.PINNED_FACT, "1"),)
    assert a.tokens == estimate_tokens(a.block)
    assert a.overrides_tokens == estimate_tokens("## What I should always remember\n- My name is Terence")
    assert (a.considered, a.dropped, a.cached) == (1, 0, False)
    assert reader.bumps == [(AGENT, ("1",), int(datetime(2026, 6, 22, 9, 30, tzinfo=UTC).timestamp() * 1000))]
    assert all(s[0] == AGENT for s in reader.searches)


def test_each_section_has_its_format(path: ReadPath) -> None:
    identity = path.assemble(AGENT, "What do you know about me?")
    assert identity.section is Section.IDENTITY
    assert (
        "## About you\nTerence builds Swift apps for macOS and lives in Lisbon.\n- Works at Acme"
        in identity.block
    )
    assert identity.placed == (ItemRef(ItemKind.IDENTITY_FACT, "5"),)
    episodes = path.assemble(AGENT, "What did we decide about the Postgres migration?")
    assert (
        "## What we discussed before\n- [2025-06-15] Discussed the Postgres migration (decision: Use pg_dump)"
        in (episodes.block)
    )
    transcript = path.assemble(AGENT, "What were my exact words about the refund?")
    assert (
        "## Earlier in our chats\n- [2025-06-15, user] The refund should go to my old card"
        in transcript.block
    )


def test_gate_none_still_carries_the_overrides(path: ReadPath, reader: InMemoryReader) -> None:
    a = path.assemble(AGENT, "How do I reverse a list in Python?")
    assert a.section is Section.NONE
    assert a.reason == "none:no_trigger"
    assert a.block == (
        "[Memory]\nCurrent date: 22 June 2026\n\n"
        "## What I should always remember\n- My name is Terence\n[/Memory]"
    )
    # The gate looks at what memory holds before deciding: one search per section, none repeated by the planner.
    assert [s[1] for s in reader.searches] == [Section.PINNED, Section.EPISODES, Section.TRANSCRIPT]
    reader.identity_snapshot = IdentitySnapshot()
    path.invalidate(AGENT)
    empty = path.assemble(AGENT, "How do I reverse a list in Python?")
    assert (empty.block, empty.tokens) == ("", 0)


def test_budget_is_respected(path: ReadPath, reader: InMemoryReader) -> None:
    for i in range(200):
        reader.add(AGENT, Section.PINNED, f"Mochi fact {i}: " + " ".join(f"w{i}x{j}" for j in range(8)))
    a = path.assemble(AGENT, "Tell me about Mochi", budget_tokens=120)
    frame_only = a.block.replace("## What I should always remember\n- My name is Terence\n\n", "")
    assert estimate_tokens(frame_only) <= 120
    assert a.considered == 6  # reference topK for 120 tokens (3), doubled
    assert a.dropped == a.considered - len(a.placed) > 0
    assert reader.bumps[-1][1] == tuple(ref.id for ref in a.placed)


def test_cache_hit_skips_gate_and_search_and_does_not_bump_again(
    path: ReadPath, reader: InMemoryReader, clock: FakeClock
) -> None:
    first = path.assemble(AGENT, "How is Mochi doing?")
    searches, bumps = len(reader.searches), len(reader.bumps)
    again = path.assemble(AGENT, "  how is MOCHI doing? ")
    assert again.cached is True
    assert again.block == first.block
    assert (len(reader.searches), len(reader.bumps)) == (searches, bumps)
    clock.t += 10.0
    assert path.assemble(AGENT, "How is Mochi doing?").cached is False
    assert len(reader.searches) == searches + 3  # the evidence pass: one search per section


def test_invalidation_after_a_memory_change(path: ReadPath, reader: InMemoryReader) -> None:
    path.assemble(AGENT, "How is Mochi doing?")
    reader.add(AGENT, Section.PINNED, "Mochi had a vet visit in May")
    assert path.assemble(AGENT, "How is Mochi doing?").cached is True
    path.invalidate(AGENT)
    fresh = path.assemble(AGENT, "How is Mochi doing?")
    assert fresh.cached is False
    assert "Mochi had a vet visit in May" in fresh.block


def test_known_entities_are_cached_and_invalidated(path: ReadPath, reader: InMemoryReader) -> None:
    path.assemble(AGENT, "How is Mochi doing?")
    path.assemble(AGENT, "Any news on Project Falcon?")
    assert reader.entity_calls == 1
    reader.entities[AGENT].append("Lena")
    assert path.assemble(AGENT, "Is Lena visiting?").section is Section.NONE
    path.invalidate(AGENT)
    assert path.assemble(AGENT, "Is Lena visiting?").section is Section.PINNED


def test_identity_is_read_once_until_the_agents_memory_changes(
    path: ReadPath, reader: InMemoryReader
) -> None:
    first = path.assemble(AGENT, "How is Mochi doing?")
    path.assemble(AGENT, "Any news on Project Falcon?")
    assert reader.identity_calls == 1
    reader.identity_snapshot = IdentitySnapshot(overrides=("Answer in French",))
    path.invalidate(AGENT)
    changed = path.assemble(AGENT, "How is Mochi doing?")
    assert reader.identity_calls == 2
    assert "Answer in French" in changed.block
    assert "Answer in French" not in first.block


def test_modes_and_disabled_memory(path: ReadPath, reader: InMemoryReader, settings: Settings) -> None:
    settings.value = ReadPathSettings(gate_mode=GateMode.OFF)
    off = path.assemble(AGENT, "Postgres migration")
    assert (off.section, off.reason) == (Section.EPISODES, "mode:off")
    settings.value = ReadPathSettings(is_enabled=False)
    assert path.assemble(AGENT, "How is Mochi?").reason == "memory_disabled"
    settings.value = ReadPathSettings()
    reader.disabled_agents.add(AGENT)
    disabled = path.assemble(AGENT, "How is Mochi?")
    assert (disabled.block, disabled.reason) == ("", "memory_disabled_for_agent")


SYSTEM = ChatMessage("system", "You are helpful.")


def test_inject_prepends_to_the_latest_user_message_only(path: ReadPath) -> None:
    messages = [
        SYSTEM,
        ChatMessage("user", "Hi"),
        ChatMessage("assistant", "Hello!"),
        ChatMessage("user", "How is Mochi doing?"),
        ChatMessage("tool", "tool output"),
    ]
    result = path.inject(AGENT, messages, model_context_tokens=32_768)
    assert result.is_injected is True
    assert result.target_index == 3
    assert result.section is Section.PINNED
    assert result.messages[0] == SYSTEM
    assert result.messages[1:3] == tuple(messages[1:3])
    assert result.messages[4] == messages[4]
    assert result.messages[3].content.startswith("[Memory]\nCurrent date: 22 June 2026\n")
    assert result.messages[3].content.endswith("[/Memory]\n\nHow is Mochi doing?")
    assert result.block_tokens == result.assembly.tokens if result.assembly else False


@pytest.mark.parametrize(
    ("messages", "context_tokens", "reason"),
    [
        ([ChatMessage("user", "How is Mochi?")], 2047, "context_too_small:2047"),
        ([ChatMessage("user", "How is Mochi?")], 1024, "context_too_small:1024"),
        ([ChatMessage("user", "How is Mochi?", is_multimodal=True)], 0, "multimodal"),
        (
            [ChatMessage("user", "How is Mochi?"), ChatMessage("user", "look", is_multimodal=True)],
            0,
            "multimodal",
        ),
        ([SYSTEM, ChatMessage("assistant", "Hi")], 0, "no_user_message"),
        ([ChatMessage("user", "   ")], 0, "empty_user_message"),
    ],
)
def test_inject_rules_leave_messages_untouched(
    path: ReadPath, reader: InMemoryReader, messages: list[ChatMessage], context_tokens: int, reason: str
) -> None:
    result = path.inject(AGENT, messages, model_context_tokens=context_tokens)
    assert (result.is_injected, result.reason) == (False, reason)
    assert result.messages == tuple(messages)
    assert reader.searches == []


def test_inject_with_unknown_or_large_context(path: ReadPath) -> None:
    # 8,192 (our default model) used to switch memory off silently; it now gets a budget of 10% of the window.
    for tokens in (0, 2048, 8192, 8193):
        assert path.inject(
            AGENT, [ChatMessage("user", "How is Mochi?")], model_context_tokens=tokens
        ).is_injected


@pytest.mark.parametrize(("context_tokens", "budget"), [(0, 800), (2048, 204), (8192, 800), (4096, 409)])
def test_budget_scales_with_the_window(path: ReadPath, context_tokens: int, budget: int) -> None:
    result = path.inject(AGENT, [ChatMessage("user", "How is Mochi?")], model_context_tokens=context_tokens)
    assert result.assembly is not None
    assert result.assembly.explanation.budget_tokens == budget
    assert result.block_tokens > 0


def test_inject_when_memory_is_disabled(path: ReadPath, reader: InMemoryReader, settings: Settings) -> None:
    reader.disabled_agents.add(AGENT)
    result = path.inject(AGENT, [ChatMessage("user", "How is Mochi?")])
    assert (result.is_injected, result.reason) == (False, "memory_disabled_for_agent")
    settings.value = ReadPathSettings(is_enabled=False)
    assert path.inject(AGENT, [ChatMessage("user", "How is Mochi?")]).reason == "memory_disabled"


def test_inject_nothing_when_block_is_empty(path: ReadPath, reader: InMemoryReader) -> None:
    reader.identity_snapshot = IdentitySnapshot()
    result = path.inject(AGENT, [ChatMessage("user", "Write a haiku about rain")])
    assert (result.is_injected, result.section, result.reason) == (False, Section.NONE, "none:no_trigger")


def test_settings_follow_memory_json() -> None:
    from memoryd.config import MemoryConfig
    from memoryd.read.assemble import settings_from_config

    config = MemoryConfig(enabled=False, relevance_gate_mode="llm", memory_budget_tokens=1200)
    assert settings_from_config(config) == ReadPathSettings(
        is_enabled=False, gate_mode=GateMode.LLM, budget_tokens=1200
    )


def test_preview_neither_bumps_usage_nor_touches_the_cache(path: ReadPath, reader: InMemoryReader) -> None:
    preview = path.assemble(AGENT, "How is Mochi doing?", is_preview=True)
    assert "Mochi is the user's cat" in preview.block
    assert reader.bumps == []
    real = path.assemble(AGENT, "How is Mochi doing?")
    assert real.cached is False
    assert len(reader.bumps) == 1
    assert path.assemble(AGENT, "How is Mochi doing?", is_preview=True).cached is False
    assert len(reader.bumps) == 1


def test_a_buffered_turn_drops_cached_blocks_but_not_entities_or_identity(
    path: ReadPath, reader: InMemoryReader
) -> None:
    """transcript_changed (what BufferTurn calls): the next assembly is fresh and sees the new turn, without reading
    the agent's entities and identity again (a turn changes neither)."""
    question = "What were my exact words about the refund?"
    first = path.assemble(AGENT, question)
    assert first.section is Section.TRANSCRIPT
    assert (reader.entity_calls, reader.identity_calls) == (1, 1)
    reader.add(AGENT, Section.TRANSCRIPT, "Actually send the refund to my new card", role="user")
    assert path.assemble(AGENT, question).cached is True
    path.transcript_changed(AGENT)
    fresh = path.assemble(AGENT, question)
    assert fresh.cached is False
    assert "Actually send the refund to my new card" in fresh.block
    assert (reader.entity_calls, reader.identity_calls) == (1, 1)
    path.invalidate(AGENT)  # a change to distilled memory reads them again
    path.assemble(AGENT, question)
    assert (reader.entity_calls, reader.identity_calls) == (2, 2)
