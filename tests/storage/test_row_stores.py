"""Every row store of memoryd.storage on both backends (a real SQLite file, a real PostgreSQL schema): the same
calls give the same answers. Agents, BufferTurn's batches and request ids, the writer's snapshots and commits,
Ingest's replacement, identity and narratives, listing pages, vectors, statistics, health counts, the read path's
queries, and the consolidation steps' statements."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from memoryd.distill_records import (
    DistillationWrite,
    FactBump,
    IngestTurn,
    LogEntry,
    NewEpisode,
    NewFact,
    NewIdentityFact,
    StaleSnapshotError,
)
from memoryd.domain import KIND_EPISODE, KIND_PINNED, KIND_TRANSCRIPT, AgentChanges, TurnInput
from memoryd.storage.distillation import SqliteWriterStore
from memoryd.storage.maintenance import evictable_facts, turns_learned_before
from memoryd.storage.store import Store
from memoryd.storage.transcript import INSERT_BATCH, AgentMemoryDisabledError, RequestIdReusedError

AGENT = "agent-α"


def _writer(store: Store) -> SqliteWriterStore:
    return SqliteWriterStore(store.db, store.tables, store.agents)


def _episode(conversation: str, summary: str = "planned the trip", at_ms: int = 1_000) -> NewEpisode:
    return NewEpisode(
        AGENT, conversation, summary, ("travel",), ("Lisbon",), ("take the train",), (), 0.6, 9, "m", at_ms
    )


def _commit(store: Store, conversation: str, signals: tuple[int, ...], **fields: object) -> tuple[int, ...]:
    write = DistillationWrite(
        _episode(conversation),
        signals,
        tuple(fields.get("facts", ())),  # type: ignore[arg-type]
        tuple(fields.get("bumps", ())),  # type: ignore[arg-type]
        tuple(fields.get("identity", ())),  # type: ignore[arg-type]
        (),
        LogEntry(AGENT, "success", "ok", duration_ms=12),
    )
    result = _writer(store).commit_distillation(write)
    return (result.episode_id, *(int(i) for i in result.fact_ids))


def test_agents_upsert_list_count_and_delete_with_their_rows(store: Store) -> None:
    record, created = store.agents.upsert(AGENT, AgentChanges(display_name="Home", memory_enabled=False))
    assert created and record.display_name == "Home" and record.memory_enabled is False
    again, created = store.agents.upsert(AGENT, AgentChanges(memory_enabled=True))
    assert not created and again.memory_enabled is True and again.display_name == "Home"
    store.agents.upsert("b", AgentChanges())
    assert [a.agent_id for a in store.agents.list_page("", 10)] == sorted([AGENT, "b"])
    assert [a.agent_id for a in store.agents.list_page(sorted([AGENT, "b"])[0], 10)] == sorted([AGENT, "b"])[
        1:
    ]
    stored = store.turns.buffer(TurnInput(AGENT, "c", "hello", "hi", 1))
    _commit(store, "c", (stored.signal_id,), facts=(NewFact("The user likes tea.", 0.7),))
    got = store.agents.get(AGENT)
    assert got is not None and got.memory_entry_count == 2  # one episode, one pinned fact
    assert store.agents.is_memory_enabled("nobody") is True
    deleted = store.agents.delete(AGENT)
    assert deleted is not None and deleted >= 6  # transcript 2, signal 1, episode 1, fact 1, the agent
    assert store.agents.get(AGENT) is None and store.agents.delete(AGENT) is None
    assert store.db.scalar("SELECT count(*) FROM transcript") == 0
    assert store.agents.all_ids() == ["b"]


def test_buffered_turns_get_consecutive_chunks_and_their_own_ids(store: Store) -> None:
    first = store.turns.buffer(TurnInput(AGENT, "c", "one", "two", 1))
    second = store.turns.buffer(TurnInput(AGENT, "c", "three", "", 2))
    other = store.turns.buffer(TurnInput(AGENT, "d", "four", "five", 3))
    rows = store.db.query(
        "SELECT id, conversation_id, chunk_index, role, content FROM transcript ORDER BY id"
    )
    by_id = {r[0]: r[1:] for r in rows}
    assert [by_id[i] for i in first.transcript_ids] == [("c", 0, "user", "one"), ("c", 1, "assistant", "two")]
    assert [by_id[i] for i in second.transcript_ids] == [("c", 2, "user", "three")]
    assert [by_id[i][1] for i in other.transcript_ids] == [0, 1]
    signals = store.db.query(
        "SELECT id, user_message, assistant_message, status FROM pending_signals ORDER BY id"
    )
    assert signals == [
        (first.signal_id, "one", "two", "pending"),
        (second.signal_id, "three", "", "pending"),
        (other.signal_id, "four", "five", "pending"),
    ]


def test_concurrent_turns_share_batches_and_every_id_maps_to_its_own_text(store: Store) -> None:
    results: dict[int, tuple[int, ...]] = {}
    errors: list[BaseException] = []

    def send(worker: int) -> None:
        try:
            for i in range(15):
                stored = store.turns.buffer(
                    TurnInput(AGENT, f"c{worker}", f"w{worker} t{i}", f"r{worker} {i}", i)
                )
                results[worker * 100 + i] = stored.transcript_ids
        except BaseException as error:
            errors.append(error)

    threads = [threading.Thread(target=send, args=(w,)) for w in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not errors
    texts = dict(store.db.query("SELECT id, content FROM transcript"))
    for key, ids in results.items():
        worker, i = divmod(key, 100)
        assert [texts[j] for j in ids] == [f"w{worker} t{i}", f"r{worker} {i}"]
    chunks = store.db.query(
        "SELECT conversation_id, count(*), min(chunk_index), max(chunk_index) FROM transcript "
        "GROUP BY conversation_id ORDER BY conversation_id"
    )
    assert chunks == [(f"c{w}", 30, 0, 29) for w in range(4)]


def test_request_ids_replay_the_first_result_and_refuse_another_turn(store: Store) -> None:
    turn = TurnInput(AGENT, "c", "remember the milk", "ok", 1, request_id="r-1")
    first = store.turns.buffer(turn)
    replay = store.turns.buffer(turn)
    assert replay.replayed and (replay.signal_id, replay.transcript_ids) == (
        first.signal_id,
        first.transcript_ids,
    )
    with pytest.raises(RequestIdReusedError):
        store.turns.buffer(TurnInput(AGENT, "c", "something else", "ok", 2, request_id="r-1"))
    assert store.db.scalar("SELECT count(*) FROM transcript") == 2


def test_a_disabled_agent_stores_nothing(store: Store) -> None:
    store.agents.upsert(AGENT, AgentChanges(memory_enabled=False))
    with pytest.raises(AgentMemoryDisabledError):
        store.turns.buffer_if_enabled(TurnInput(AGENT, "c", "secret", "", 1))
    assert store.db.scalar("SELECT count(*) FROM transcript") == 0
    assert store.turns.buffer_if_enabled(TurnInput("b", "c", "fine", "", 1)).signal_id > 0


def test_the_writer_snapshots_commits_bumps_and_refuses_a_stale_snapshot(store: Store) -> None:
    writer = _writer(store)
    a = store.turns.buffer(TurnInput(AGENT, "c", "I live in Porto", "noted", 1))
    b = store.turns.buffer(TurnInput(AGENT, "c", "I drink green tea", "", 2))
    signals = writer.pending_signals(AGENT, "c")
    assert [s.id for s in signals] == [a.signal_id, b.signal_id]
    assert writer.pending_conversations() == [(AGENT, "c")] and writer.count_pending(AGENT, "c") == 2
    assert writer.transcript_ids_for(signals) == [a.transcript_ids, b.transcript_ids]
    episode_id, fact_id = _commit(
        store,
        "c",
        (a.signal_id, b.signal_id),
        facts=(NewFact("The user drinks green tea.", 0.5, ("tea",), slot="preference.drink"),),
        identity=(NewIdentityFact("The user lives in Porto.", (), "identity.home"),),
    )
    assert writer.count_pending(AGENT, "c") == 0
    facts = writer.active_facts(AGENT, 10)
    assert [(f.id, f.content, f.slot) for f in facts] == [
        (str(fact_id), "The user drinks green tea.", "preference.drink")
    ]
    assert [f.content for f in writer.identity_facts(AGENT, 10)] == ["The user lives in Porto."]
    assert [e.summary for e in writer.recent_episodes(AGENT, 5, 0)] == ["planned the trip"]
    c = store.turns.buffer(TurnInput(AGENT, "c2", "tea again", "", 3))
    _commit(store, "c2", (c.signal_id,), bumps=(FactBump(str(fact_id), 0.9),))
    salience, sources = store.db.query(
        "SELECT salience, source_count FROM pinned_facts WHERE id = ?", (fact_id,)
    )[0]
    assert (salience, sources) == (0.9, 2)  # max(0.5, 0.9), one more source
    with pytest.raises(StaleSnapshotError):
        _commit(store, "c2", (c.signal_id,))  # already processed
    assert store.db.scalar("SELECT count(*) FROM episodes") == 2
    assert episode_id > 0


def test_failures_count_attempts_then_dead_letter(store: Store) -> None:
    writer = _writer(store)
    signal = store.turns.buffer(TurnInput(AGENT, "c", "hello", "", 1)).signal_id
    log = LogEntry(AGENT, "error", "model timeout")
    assert writer.record_failure([signal], 2, log).attempts == 1
    dead = writer.record_failure([signal], 2, log)
    assert dead.attempts == 2 and dead.dead_lettered
    assert store.db.scalar("SELECT status FROM pending_signals WHERE id = ?", (signal,)) == "dead_letter"
    stats = store.stats.collect()
    assert stats.dead_letter_signals == 1 and stats.total_calls == 2 and stats.success_rate == 0.0


def test_ingest_replaces_a_conversation_and_what_it_derived(store: Store) -> None:
    writer = _writer(store)
    first = writer.replace_conversation(
        AGENT,
        "c",
        [IngestTurn("I moved to Braga", "ok"), IngestTurn("and I bike", "")],
        5_000,
        skip_extraction=False,
    )
    assert len(first.transcript_ids) == 3 and len(first.signal_ids) == 2
    _commit(store, "c", first.signal_ids, facts=(NewFact("The user bikes.", 0.6),))
    store.embeddings.put(KIND_TRANSCRIPT, AGENT, "m", 2, [(first.transcript_ids[0], b"\x00" * 8)])
    second = writer.replace_conversation(
        AGENT, "c", [IngestTurn("I moved to Faro", "")], 6_000, skip_extraction=False
    )
    removed = {(r.kind, r.id) for r in second.removed}
    assert {k for k, _ in removed} == {KIND_TRANSCRIPT, KIND_EPISODE, KIND_PINNED}
    assert store.db.query("SELECT content, chunk_index FROM transcript") == [("I moved to Faro", 0)]
    assert store.db.scalar("SELECT count(*) FROM pinned_facts") == 0
    assert store.db.scalar("SELECT count(*) FROM embeddings") == 0
    assert set(second.transcript_ids).isdisjoint(first.transcript_ids)


def test_a_long_ingest_keeps_every_row_in_order_across_its_insert_batches(store: Store) -> None:
    turns = [IngestTurn(f"turn {i} heron", "" if i % 3 else f"reply {i}") for i in range(INSERT_BATCH + 40)]
    result = _writer(store).replace_conversation(AGENT, "long", turns, 7_000, skip_extraction=True)
    rows = store.db.query("SELECT id, chunk_index, role, content FROM transcript ORDER BY id")
    expected = [(2 * i, "user", t.user) for i, t in enumerate(turns)]
    expected += [(2 * i + 1, "assistant", t.assistant) for i, t in enumerate(turns) if t.assistant]
    assert [r[1:] for r in rows] == sorted(expected)  # ids follow the conversation's order
    assert list(result.transcript_ids) == [r[0] for r in rows]
    assert len(rows) > INSERT_BATCH


def test_identity_overrides_and_per_agent_narratives(store: Store) -> None:
    override = store.identity.add_override("Call me Sam")
    assert [o.text for o in store.identity.get().overrides] == ["Call me Sam"]
    assert store.identity.remove_override(override.id) and not store.identity.remove_override(override.id)
    s = store.turns.buffer(TurnInput(AGENT, "c", "I live in Porto", "", 1)).signal_id
    _commit(store, "c", (s,), identity=(NewIdentityFact("The user lives in Porto.", (), "identity.home"),))
    narratives = store.consolidation.narratives
    assert narratives.active_facts()[0][:2] == (AGENT, "The user lives in Porto.")
    assert narratives.write(AGENT, "Lives in Porto.", 4, "extractive", "d1", 10) == 1
    assert narratives.write(AGENT, "Lives in Porto, Portugal.", 5, "extractive", "d2", 11) == 1
    stored = narratives.stored()[AGENT]
    assert (stored.content, stored.digest) == ("Lives in Porto, Portugal.", "d2")
    assert store.db.scalar("SELECT version FROM agent_narratives WHERE agent_id = ?", (AGENT,)) == 2
    assert store.identity.get(AGENT).content == "Lives in Porto, Portugal."


def test_listing_pages_by_keyset_without_repeats(store: Store) -> None:
    s = store.turns.buffer(TurnInput(AGENT, "c", "facts", "", 1)).signal_id
    facts = tuple(NewFact(f"fact number {i}", 0.1 * (i % 5)) for i in range(12))
    _commit(store, "c", (s,), facts=facts)
    seen: list[int] = []
    after = None
    while True:
        page = store.listing.page(AGENT, KIND_PINNED, 5, include_disabled=False, after=after)
        assert page.total == 12
        seen.extend(row.id for row in page.rows)
        if page.next_position is None:
            break
        after = page.next_position
    assert len(seen) == len(set(seen)) == 12
    saliences = [store.db.scalar("SELECT salience FROM pinned_facts WHERE id = ?", (i,)) for i in seen]
    assert saliences == sorted(saliences, reverse=True)


def test_vectors_are_stored_listed_found_missing_and_deleted_with_their_rows(store: Store) -> None:
    ids = store.turns.buffer(TurnInput(AGENT, "c", "one", "two", 1)).transcript_ids
    blob = bytes(range(8))
    assert store.embeddings.put(KIND_TRANSCRIPT, AGENT, "m", 2, [(ids[0], blob), (999_999, blob)]) == 1
    assert store.embeddings.put(KIND_TRANSCRIPT, AGENT, "m", 2, [(ids[0], blob[::-1])]) == 1  # replaced
    assert list(store.embeddings.iter_agent(AGENT, "m")) == [[(KIND_TRANSCRIPT, ids[0], blob[::-1])]]
    assert store.embeddings.count(AGENT, "m") == 1
    assert store.embeddings.missing("m", 10) == [(KIND_TRANSCRIPT, AGENT, ids[1])]
    assert store.health.stored_dimension(AGENT, "m") == 2
    with store.db.write():
        store.db.execute("DELETE FROM transcript WHERE id = ?", (ids[0],))  # the trigger deletes its vector
    assert store.embeddings.count(AGENT, "m") == 0
    store.embeddings.put(KIND_TRANSCRIPT, AGENT, "old-model", 2, [(ids[1], blob)])
    assert store.embeddings.delete_other_models("m") == 1


def test_read_queries_entities_decisions_usage_and_windows(store: Store) -> None:
    s = store.turns.buffer(TurnInput(AGENT, "c", "trip", "", 1_000)).signal_id
    episode_id, fact_id = _commit(store, "c", (s,), facts=(NewFact("Likes trains.", 0.5, ("trains",)),))
    assert set(store.reads.known_entities(AGENT, 2_000)) == {"Lisbon", "trains"}
    assert store.reads.episode_decisions(AGENT, [episode_id, 12345]) == {episode_id: ("take the train",)}
    store.reads.bump_pinned_usage(AGENT, [fact_id], 5_000)
    assert store.db.query("SELECT use_count, last_used_at_ms FROM pinned_facts") == [(1, 5_000)]
    assert store.reads.rows_in_window(KIND_EPISODE, AGENT, 0, 2_000, 10) == [episode_id]
    assert store.reads.rows_in_window(KIND_EPISODE, AGENT, 2_000, 3_000, 10) == []
    assert store.rows.fetch(KIND_PINNED, AGENT, [fact_id])[fact_id].text == "Likes trains."
    assert store.rows.fetch(KIND_PINNED, "someone else", [fact_id]) == {}


def test_rows_after_an_id_walk_every_agents_active_rows_in_id_order(store: Store) -> None:
    first = store.turns.buffer(TurnInput(AGENT, "c", "one", "two", 1_000))
    store.turns.buffer(TurnInput("b", "d", "three", "", 2_000))
    turns = store.rows.after(KIND_TRANSCRIPT, 0, 10)
    assert [(t.agent_id, t.text, t.role) for t in turns] == [
        (AGENT, "one", "user"),
        (AGENT, "two", "assistant"),
        ("b", "three", "user"),
    ]
    assert [t.id for t in store.rows.after(KIND_TRANSCRIPT, turns[0].id, 1)] == [turns[1].id]
    assert store.rows.after(KIND_TRANSCRIPT, turns[-1].id, 10) == []
    _, fact_id = _commit(store, "c", (first.signal_id,), facts=(NewFact("Likes trains.", 0.5),))
    assert [f.text for f in store.rows.after(KIND_PINNED, 0, 10)] == ["Likes trains."]
    store.db.execute("UPDATE pinned_facts SET status = 'disabled' WHERE id = ?", (fact_id,))
    assert store.rows.after(KIND_PINNED, 0, 10) == []  # as the read path sees them: active rows only
    assert [e.text for e in store.rows.after(KIND_EPISODE, 0, 10)] == ["planned the trip"]


def test_health_counts_and_size(store: Store) -> None:
    store.turns.buffer(TurnInput(AGENT, "c", "one", "two", 1))
    counts = {(c.table, c.agent_id): c.rows for c in store.health.table_counts()}
    assert counts[("transcript", "")] == 2 and counts[("transcript", AGENT)] == 2
    assert counts[("pinned_facts.disabled", "")] == 0
    assert store.health.vector_rows_per_agent() == {AGENT: 2}
    assert store.health.file_bytes() > 0


def test_maintenance_statements_decay_evict_and_prune(open_backend_store: Callable[[], Store]) -> None:
    store = open_backend_store()
    maintenance = store.consolidation.maintenance
    s = store.turns.buffer(TurnInput(AGENT, "c", "facts", "", 1)).signal_id
    _, fact_id = _commit(store, "c", (s,), facts=(NewFact("Idle fact.", 0.5),))
    with store.db.write():
        store.db.execute(
            "UPDATE pinned_facts SET last_decayed_at_ms = 1, last_used_at_ms = 1, created_at_ms = 1 WHERE id = ?",
            (fact_id,),
        )
    day = 86_400_000
    with store.consolidation.batch():
        changed = maintenance.decay_ids("pinned_facts", 0, fact_id + 1, 1 + 30 * day, 30 * day)
    assert changed == 1
    salience = store.db.scalar("SELECT salience FROM pinned_facts WHERE id = ?", (fact_id,))
    assert salience == pytest.approx(0.5 * 2.718281828**-1, rel=1e-6)
    with store.consolidation.batch():  # a very long idle time decays to ~0 instead of failing (exp underflow)
        maintenance.decay_ids("pinned_facts", 0, fact_id + 1, 10**15, 1.0)
    assert store.db.scalar("SELECT salience FROM pinned_facts WHERE id = ?", (fact_id,)) == pytest.approx(0.0)
    selection = evictable_facts(0.05, 2)
    assert maintenance.matching_ids(selection, 0, 10) == [fact_id]
    with store.consolidation.batch():
        assert maintenance.delete(selection, maintenance.still_matching(selection, [fact_id])[0][:1]) == {}
    assert store.db.scalar("SELECT count(*) FROM pinned_facts") == 0
    high = maintenance.transcript_high_id()
    assert high == store.db.scalar("SELECT max(id) FROM transcript")
    prune = turns_learned_before(high, 10**15)
    with store.consolidation.batch():
        maintenance.delete(prune, maintenance.matching_ids(prune, 0, 10))
    assert store.db.scalar("SELECT count(*) FROM transcript") == 0
    assert maintenance.transcript_high_id() == high  # ids are never handed out twice
    later = store.turns.buffer(TurnInput(AGENT, "c", "later", "", 2)).transcript_ids
    assert later[0] > high
