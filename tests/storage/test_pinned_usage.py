"""The pinned-usage bump of every assembly (issue #21, pgread3): on PostgreSQL one autocommitted statement instead
of BEGIN / UPDATE / COMMIT. Counts stay exact under concurrent bumps, only the named facts of the agent change, the
change is committed when the call returns (another connection sees it), and inside an open write it is part of
that transaction. A bump leaves the store's generation (what read-side caches key on) alone, real writes move it
(pgread4). Both backends."""

from __future__ import annotations

import threading

import pytest

from memoryd.storage.store import Store

AGENT = "agent-usage"
THREADS = 4
BUMPS = 25


def _fact(store: Store, agent: str, text: str) -> int:
    with store.db.write():
        return store.db.insert(
            "INSERT INTO pinned_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES (?, ?, 1, 1)",
            (agent, text),
        )


def _usage(store: Store, fact_id: int) -> tuple[int, int]:
    row = store.db.query("SELECT use_count, last_used_at_ms FROM pinned_facts WHERE id = ?", (fact_id,))[0]
    return int(row[0]), int(row[1])


def test_concurrent_bumps_are_counted_exactly_and_touch_only_the_named_facts(store: Store) -> None:
    bumped = [_fact(store, AGENT, f"fact {i}") for i in range(3)]
    untouched = _fact(store, AGENT, "never placed")
    elsewhere = _fact(store, "someone else", "another agent's fact")
    generation, commits = store.db.generation, store.db.commits
    errors: list[BaseException] = []

    def bump(worker: int) -> None:
        try:
            for n in range(BUMPS):
                # The other agent's id is named too: it must not move.
                store.reads.bump_pinned_usage(AGENT, [*bumped, elsewhere], 10_000 + worker * 100 + n)
        except BaseException as error:  # reported below, never swallowed
            errors.append(error)

    threads = [threading.Thread(target=bump, args=(w,)) for w in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    stamps = {10_000 + w * 100 + BUMPS - 1 for w in range(THREADS)}
    for fact_id in bumped:
        count, last_used = _usage(store, fact_id)
        assert count == THREADS * BUMPS
        assert last_used in stamps or 10_000 <= last_used < 10_000 + THREADS * 100
    assert _usage(store, untouched) == (0, 0)
    assert _usage(store, elsewhere) == (0, 0)
    # Bookkeeping: read-side caches keyed on the generation keep; the pacer still sees the activity.
    assert store.db.generation == generation
    assert store.db.commits == commits + THREADS * BUMPS
    assert not store.db.pw.in_transaction()


def test_a_bump_is_committed_on_return_and_is_part_of_an_open_write(store: Store) -> None:
    fact_id = _fact(store, AGENT, "placed")
    store.reads.bump_pinned_usage(AGENT, [fact_id], 5_000)
    seen: list[tuple[int, int]] = []
    other = threading.Thread(target=lambda: seen.append(_usage(store, fact_id)))  # its own connection
    other.start()
    other.join()
    assert seen == [(1, 5_000)]

    def bump_in_a_failed_write() -> None:
        with store.db.write():
            store.reads.bump_pinned_usage(AGENT, [fact_id], 6_000)
            raise RuntimeError("roll the write back")

    with pytest.raises(RuntimeError):
        bump_in_a_failed_write()
    assert _usage(store, fact_id) == (1, 5_000)
    store.reads.bump_pinned_usage(AGENT, [], 7_000)  # nothing placed: nothing written
    assert _usage(store, fact_id) == (1, 5_000)


def test_a_bump_leaves_the_generation_alone_and_real_writes_still_move_it(store: Store) -> None:
    fact_id = _fact(store, AGENT, "placed")
    generation, commits = store.db.generation, store.db.commits
    store.reads.bump_pinned_usage(AGENT, [fact_id], 7_000)
    assert (store.db.generation, store.db.commits) == (generation, commits + 1)
    assert _usage(store, fact_id) == (1, 7_000)

    other = _fact(store, AGENT, "a new fact")  # an insert
    assert store.db.generation == generation + 1
    with store.db.write():  # a content change
        store.db.execute("UPDATE pinned_facts SET content = ? WHERE id = ?", ("changed", other))
    assert store.db.generation == generation + 2
    store.db.write_one(
        "UPDATE pinned_facts SET status = 'superseded' WHERE id = ?", (other,)
    )  # a status change (supersede)
    assert store.db.generation == generation + 3
    assert store.db.commits == commits + 4

    # A bump inside a content write is part of it: the write moves the generation once.
    with store.db.write():
        store.db.execute("UPDATE pinned_facts SET content = ? WHERE id = ?", ("changed again", other))
        store.reads.bump_pinned_usage(AGENT, [fact_id], 8_000)
    assert store.db.generation == generation + 4
    assert _usage(store, fact_id) == (2, 8_000)
