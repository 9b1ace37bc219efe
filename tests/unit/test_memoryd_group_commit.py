"""Group commit of buffered turns: batching, per-turn outcomes, the in-transaction path, on real SQLite files."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from memoryd.domain import AgentChanges, TurnInput
from memoryd.storage.group_commit import GroupCommit
from memoryd.storage.store import Store, open_store
from memoryd.storage.transcript import AgentMemoryDisabledError


def _run_threads(count: int, target: object) -> None:
    threads = [threading.Thread(target=target, args=(i,)) for i in range(count)]  # type: ignore[arg-type]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert not any(thread.is_alive() for thread in threads)


def test_callers_queued_behind_a_commit_share_the_next_batch() -> None:
    batches: list[list[int]] = []
    first_started = threading.Event()
    release_first = threading.Event()

    def write(items: Sequence[int]) -> list[int | BaseException]:
        if not batches:
            first_started.set()
            release_first.wait(10)
        batches.append(list(items))
        return [item * 10 for item in items]

    group: GroupCommit[int, int] = GroupCommit(write, name="test-writer")
    results: dict[int, int] = {}
    first = threading.Thread(target=lambda: results.__setitem__(0, group.submit(0)))
    first.start()
    assert first_started.wait(10)

    def submit(index: int) -> None:
        results[index + 1] = group.submit(index + 1)

    followers = [threading.Thread(target=submit, args=(i,)) for i in range(5)]
    for thread in followers:
        thread.start()
    deadline = time.monotonic() + 10
    while len(group._queue) < 5 and time.monotonic() < deadline:  # all five queued behind the first commit
        time.sleep(0.005)
    release_first.set()
    for thread in [first, *followers]:
        thread.join(10)
    assert results == {i: i * 10 for i in range(6)}
    assert batches[0] == [0]
    assert sorted(batches[1]) == [1, 2, 3, 4, 5]  # one transaction for everyone who waited


def test_each_caller_gets_its_own_outcome_and_a_failed_batch_fails_only_its_callers() -> None:
    def write(items: Sequence[int]) -> list[int | BaseException]:
        if -1 in items:
            raise OSError("disk full")
        return [ValueError(str(item)) if item % 2 else item for item in items]

    group: GroupCommit[int, int] = GroupCommit(write, name="test-writer")
    assert group.submit(4) == 4
    with pytest.raises(ValueError, match="3"):
        group.submit(3)
    with pytest.raises(OSError, match="disk full"):
        group.submit(-1)
    assert group.submit(6) == 6  # the writer thread survived


def test_the_writer_thread_exits_when_idle_and_comes_back_on_demand() -> None:
    exits: list[str] = []
    group: GroupCommit[int, int] = GroupCommit(
        lambda items: list(items), name="test-idle-writer", idle_s=0.05, on_exit=lambda: exits.append("x")
    )
    assert group.submit(1) == 1
    deadline = time.monotonic() + 5
    while not exits and time.monotonic() < deadline:
        time.sleep(0.01)
    assert exits == ["x"]
    assert not any(t.name == "test-idle-writer" for t in threading.enumerate())
    assert group.submit(2) == 2


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


def test_concurrent_turns_of_one_conversation_get_contiguous_chunks_and_distinct_ids(store: Store) -> None:
    replies: dict[int, tuple[int, tuple[int, ...]]] = {}

    def buffer(index: int) -> None:
        for turn in range(10):
            stored = store.turns.buffer_if_enabled(
                TurnInput("agent", "conv", f"question {index}-{turn}", f"answer {index}-{turn}", 1)
            )
            replies[index * 100 + turn] = (stored.signal_id, stored.transcript_ids)

    _run_threads(8, buffer)
    assert len({signal for signal, _ in replies.values()}) == 80
    transcript_ids = [row_id for _, ids in replies.values() for row_id in ids]
    assert len(set(transcript_ids)) == 160
    rows = store.db.query("SELECT id, chunk_index, role, content FROM transcript ORDER BY chunk_index")
    assert [r[1] for r in rows] == list(range(160))
    by_id = {r[0]: r for r in rows}
    for _signal, (user_id, assistant_id) in replies.values():  # the ids answered are the rows written
        assert by_id[user_id][2] == "user" and by_id[assistant_id][2] == "assistant"
        assert by_id[user_id][3].replace("question", "answer") == by_id[assistant_id][3]
        assert by_id[assistant_id][1] == by_id[user_id][1] + 1
    assert store.db.scalar("SELECT count(*) FROM pending_signals WHERE status = 'pending'") == 80


def test_a_disabled_agent_in_a_batch_writes_nothing_and_does_not_sink_the_others(store: Store) -> None:
    store.agents.upsert("off", AgentChanges(memory_enabled=False))
    outcomes: dict[int, str] = {}

    def buffer(index: int) -> None:
        agent = "off" if index % 2 else f"on-{index}"
        try:
            store.turns.buffer_if_enabled(TurnInput(agent, "c", "hello there", "", 1))
            outcomes[index] = "stored"
        except AgentMemoryDisabledError:
            outcomes[index] = "refused"

    _run_threads(8, buffer)
    assert outcomes == {i: "refused" if i % 2 else "stored" for i in range(8)}
    assert store.db.scalar("SELECT count(*) FROM transcript WHERE agent_id = 'off'") == 0
    assert store.db.scalar("SELECT count(*) FROM pending_signals WHERE agent_id = 'off'") == 0
    assert store.db.scalar("SELECT count(*) FROM transcript") == 4
    # buffer() (no toggle check) still writes for a disabled agent, as it always did.
    assert store.turns.buffer(TurnInput("off", "c", "hello", "", 1)).transcript_ids


def test_a_turn_buffered_inside_a_callers_transaction_commits_or_rolls_back_with_it(store: Store) -> None:
    with store.db.write():
        stored = store.turns.buffer(TurnInput("a", "c", "kept", "reply", 1))
    assert len(stored.transcript_ids) == 2

    def fail_after_buffering() -> None:
        with store.db.write():
            store.turns.buffer(TurnInput("a", "c", "dropped", "", 1))
            raise RuntimeError("caller fails")

    with pytest.raises(RuntimeError):
        fail_after_buffering()
    assert [r[0] for r in store.db.query("SELECT content FROM transcript ORDER BY id")] == ["kept", "reply"]
    assert store.db.scalar("SELECT count(*) FROM pending_signals") == 1
    assert store.db.scalar("SELECT count(*) FROM agents WHERE agent_id = 'a'") == 1
