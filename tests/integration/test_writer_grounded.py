"""Grounded distillation through the real writer (real SQLite file, scripted inferd on a real port): the model is
never trusted for facts, every derived row records its source turns, corrections supersede, secrets stay out."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.storage.stats import StatsStore
from memoryd.write.phrase import what_matters
from tests.fakes.fake_writer_inferd import digest
from tests.support.writer_stack import WriterStack, make_writer_stack

AGENT = "agent-g"


@pytest.fixture
def stack(tmp_path: Path) -> Iterator[WriterStack]:
    s = make_writer_stack(tmp_path)
    yield s
    s.close()


def _session(stack: WriterStack, conv: str, turns: list[tuple[str, str]], agent: str = AGENT) -> str:
    for user, assistant in turns:
        stack.buffer(agent, conv, user, assistant)
    return stack.writer.end_session(agent, conv, wait=True).outcome


def _active(stack: WriterStack, table: str, agent: str = AGENT) -> list[str]:
    return [
        r[0]
        for r in stack.q(f"SELECT content FROM {table} WHERE agent_id = ? AND status = 'active'", (agent,))
    ]


def _all_derived(stack: WriterStack) -> str:
    parts = [r[0] for r in stack.q("SELECT content FROM pinned_facts")]
    parts += [r[0] for r in stack.q("SELECT content FROM identity_facts")]
    parts += [
        " ".join(map(str, r))
        for r in stack.q("SELECT summary, decisions, action_items, entities_csv FROM episodes")
    ]
    return "\n".join(parts)


DATABASE_SESSION = [
    ("Hi! I'm a backend engineer and I'm choosing a database for our billing service.", "Happy to help."),
    ("We need strong transactions and the team already knows SQL well.", "PostgreSQL or MySQL both fit."),
    ("Decision made: we'll go with PostgreSQL for the billing service.", "Great choice for transactions."),
    ("I need to send the migration plan to my manager Dana by Friday.", "I can draft an outline."),
]

GARBAGE = digest(
    "Recent past sessions (for cross-session continuity): I'm a dog, and I'm a golden retriever. "
    "I'm 12 years old. I'm 12 years old. I'm 12 years old.",
    decisions=["Use MongoDB for everything"],
    entities=["Golden Retriever Inc", "MongoDB"],
    pinned=[("The user is a food blogger and a vegan.", 0.9), ("The user chose MongoDB.", 0.8)],
    identity=["The user is a 12-year-old dog."],
)


def test_garbage_from_the_model_never_becomes_memory(stack: WriterStack) -> None:
    stack.inferd.push(GARBAGE)
    assert _session(stack, "c1", DATABASE_SESSION) == "distilled"
    derived = _all_derived(stack).casefold()
    for invented in ("dog", "retriever", "mongodb", "vegan", "blogger", "12 years", "recent past sessions"):
        assert invented not in derived, invented
    summary, source = stack.q("SELECT summary, summary_source FROM episodes")[0]
    assert source == "extractive" and summary
    assert "postgresql" in derived
    details = stack.q("SELECT details FROM processing_log WHERE status = 'success'")[0][0]
    assert "dropped=" in details and "dropped=none" not in details
    stats = StatsStore(stack.store.db).collect()
    assert sum(stats.items_dropped.values()) >= 3


def test_every_derived_row_records_its_source_turns(stack: WriterStack) -> None:
    stack.inferd.push(GARBAGE)
    _session(stack, "c1", DATABASE_SESSION)
    transcript = {r[0]: (r[1], r[2]) for r in stack.q("SELECT id, role, content FROM transcript")}
    rows = stack.q("SELECT content, source_turn_ids FROM pinned_facts")
    assert rows
    for content, ids in rows:
        turns = [transcript[int(i)] for i in ids.split(",")]
        assert any(role == "user" for role, _ in turns)
        # The decision's provenance is the user turn that states it.
        if "PostgreSQL" in content:
            assert any("go with PostgreSQL" in text for _, text in turns)
    episode_ids = stack.q("SELECT source_turn_ids FROM episodes")[0][0]
    assert len(episode_ids.split(",")) == len(transcript)


def test_a_correction_supersedes_the_older_fact(stack: WriterStack) -> None:
    stack.inferd.set_default(digest("The user talked about where they live."))
    _session(stack, "c1", [("I live in Lisbon with my partner and our two cats.", "Lisbon is lovely.")] * 2)
    first = [c for c in _active(stack, "identity_facts") + _active(stack, "pinned_facts") if "Lisbon" in c]
    assert first, "the home city is learned"
    _session(
        stack, "c2", [("Big news: we moved, I live in Porto now since last month.", "Congratulations!")] * 2
    )
    active = _active(stack, "identity_facts") + _active(stack, "pinned_facts")
    assert any("Porto" in c for c in active)
    assert not any("Lisbon" in c for c in active)
    old = stack.q(
        "SELECT status, superseded_by FROM identity_facts WHERE content LIKE '%Lisbon%' "
        "UNION ALL SELECT status, superseded_by FROM pinned_facts WHERE content LIKE '%Lisbon%'"
    )
    assert old and all(status == "superseded" and by for status, by in old)
    assert StatsStore(stack.store.db).collect().superseded_facts >= 1


def test_secrets_never_reach_derived_memory(stack: WriterStack) -> None:
    key = "sk-live-4f9aQ2xZ8rT1mB7nK3pL6wE0yU5iO9sD"
    iban = "DE89 3704 0044 0532 0130 00"
    stack.inferd.push(
        digest(f"The user shared the API key {key} and the IBAN {iban}.", pinned=[(f"API key is {key}", 0.9)])
    )
    outcome = _session(
        stack,
        "c1",
        [
            (f"My API key is {key}, please keep it handy for the deploy script.", "I won't store secrets."),
            (f"And my IBAN is {iban}. I prefer invoices in euros.", "Noted."),
        ],
    )
    assert outcome == "distilled"
    derived = _all_derived(stack)
    assert key not in derived and "3704" not in derived
    # The transcript keeps the user's own words.
    assert any(key in r[0] for r in stack.q("SELECT content FROM transcript"))


def test_the_one_call_asks_only_for_phrasing(stack: WriterStack) -> None:
    stack.inferd.push(GARBAGE)
    _session(stack, "c1", DATABASE_SESSION)
    request = stack.inferd.generate_requests[-1]
    assert json.loads(request.json_schema)["required"] == ["summary"]
    prompt = "\n".join(m.content for m in request.messages)
    assert "Recent past sessions" not in prompt
    # Only the user's turns go into the call (greetings aside): the assistant's words are no evidence for the summary.
    assert all(what_matters(user) in prompt for user, _ in DATABASE_SESSION) and "Hi!" not in prompt
    assert not any(assistant in prompt for _, assistant in DATABASE_SESSION if len(assistant) > 12)


def test_re_ingest_of_the_correction_restores_the_older_fact(stack: WriterStack) -> None:
    from memoryd.write.store_protocol import IngestTurn

    stack.inferd.set_default(digest("The user talked about where they live."))
    _session(stack, "c1", [("I live in Lisbon with my partner and our two cats.", "Lisbon is lovely.")] * 2)
    _session(
        stack, "c2", [("Big news: we moved, I live in Porto now since last month.", "Congratulations!")] * 2
    )
    stack.writer.ingest(
        AGENT, "c2", [IngestTurn("We talked about gardening tools and seeds today.", "Nice.")] * 2
    )
    active = _active(stack, "identity_facts") + _active(stack, "pinned_facts")
    assert any("Lisbon" in c for c in active) and not any("Porto" in c for c in active)


def test_a_summary_saying_what_the_call_never_showed_is_replaced_by_the_extractive_one(
    stack: WriterStack,
) -> None:
    # Every word of it is in some turn (the assistant's), so verification proper passes it; the call showed the
    # model only the user's turns, and "great" and "choice" are in none of them.
    stack.inferd.push(digest("The user made a great choice for transactions with PostgreSQL."))
    _session(stack, "c1", DATABASE_SESSION)
    summary, source = stack.q("SELECT summary, summary_source FROM episodes")[0]
    assert source == "extractive" and "great choice" not in summary
    details = stack.q("SELECT details FROM processing_log WHERE status = 'success'")[0][0]
    assert "summary_beyond_prompt:1" in details
    # A summary in the user's words passes.
    stack.inferd.push(
        digest("The user, a backend engineer, will go with PostgreSQL for the billing service.")
    )
    _session(stack, "c2", DATABASE_SESSION)
    assert stack.q("SELECT summary_source FROM episodes WHERE conversation_id = 'c2'")[0][0] == "model"
