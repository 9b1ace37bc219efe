"""One batch of buffered turns in four statements: the ids answered are the rows written, chunks continue."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.domain import AgentChanges, BufferedTurn, TurnInput
from memoryd.storage.store import Store, open_store
from memoryd.storage.transcript import AgentMemoryDisabledError, _Job, write_turns


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


def _job(agent: str, conversation: str, user: str, assistant: str, checked: bool = True) -> _Job:
    return _Job(TurnInput(agent, conversation, user, assistant, 7), is_toggle_checked=checked)


def test_a_mixed_batch_maps_every_outcome_to_its_own_rows(store: Store) -> None:
    store.agents.upsert("off", AgentChanges(memory_enabled=False))
    store.turns.buffer(TurnInput("a", "c1", "earlier", "earlier reply", 1))  # c1 already has chunks 0 and 1
    jobs = [
        _job("a", "c1", "u1", "s1"),
        _job("a", "c1", "u2", ""),
        _job("b", "c2", "u3", "s3"),
        _job("off", "c3", "refused", "refused"),
        _job("a", "c1", "u4", "s4"),
        _job("off", "c3", "unchecked", "", checked=False),
    ]
    with store.db.write():
        outcomes = write_turns(store.turns._connection(), jobs)
    assert isinstance(outcomes[3], AgentMemoryDisabledError)
    stored = [o for o in outcomes if isinstance(o, BufferedTurn)]
    assert len(stored) == 5
    rows = {
        r[0]: r[1:]
        for r in store.db.query(
            "SELECT id, agent_id, conversation_id, chunk_index, role, content FROM transcript"
        )
    }
    signals = {
        r[0]: r[1:]
        for r in store.db.query(
            "SELECT id, agent_id, conversation_id, user_message, assistant_message FROM pending_signals"
        )
    }
    expected = {
        0: [("a", "c1", 2, "user", "u1"), ("a", "c1", 3, "assistant", "s1")],
        1: [("a", "c1", 4, "user", "u2")],
        2: [("b", "c2", 0, "user", "u3"), ("b", "c2", 1, "assistant", "s3")],
        4: [("a", "c1", 5, "user", "u4"), ("a", "c1", 6, "assistant", "s4")],
        5: [("off", "c3", 0, "user", "unchecked")],
    }
    for index, rows_expected in expected.items():
        outcome = outcomes[index]
        assert isinstance(outcome, BufferedTurn)
        assert [rows[row_id] for row_id in outcome.transcript_ids] == rows_expected
        job = jobs[index].turn
        assert signals[outcome.signal_id] == (
            job.agent_id,
            job.conversation_id,
            job.user_message,
            job.assistant_message,
        )
    assert store.db.scalar("SELECT count(*) FROM transcript WHERE content = 'refused'") == 0
    assert store.db.scalar("SELECT count(*) FROM pending_signals") == 6  # 1 earlier + 5 in the batch
    assert store.db.scalar("SELECT memory_enabled FROM agents WHERE agent_id = 'b'") == 1  # created enabled


def test_a_batch_of_only_refused_turns_writes_nothing(store: Store) -> None:
    store.agents.upsert("off", AgentChanges(memory_enabled=False))
    with store.db.write():
        outcomes = write_turns(
            store.turns._connection(), [_job("off", "c", "x", "y"), _job("off", "d", "z", "")]
        )
    assert all(isinstance(o, AgentMemoryDisabledError) for o in outcomes)
    assert store.db.scalar("SELECT count(*) FROM transcript") == 0
    assert store.db.scalar("SELECT count(*) FROM pending_signals") == 0


def test_buffered_rows_are_searchable_through_the_fts_mirror(store: Store) -> None:
    with store.db.write():
        write_turns(
            store.turns._connection(),
            [_job("a", "c", "postgres trigram index", "use gin"), _job("a", "c", "another", "")],
        )
    hits = store.db.query("SELECT rowid FROM fts_transcript WHERE fts_transcript MATCH 'trigram'")
    assert len(hits) == 1
