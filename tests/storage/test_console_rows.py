"""The console's storage functions on both backends (a real SQLite file, a real PostgreSQL schema): import keeps
ids, skips identical rows, merges the identity; export reads every row back; console search and forget."""

from __future__ import annotations

from memoryd.domain import KIND_PINNED, TurnInput
from memoryd.storage import console_rows
from memoryd.storage.export_rows import exported_records, table_columns
from memoryd.storage.import_rows import import_agents, import_identity, import_row_batch
from memoryd.storage.store import Store


def _fact(row_id: int, agent: str, content: str, source_episode_id: int | None = None) -> dict[str, object]:
    return {
        "id": row_id,
        "agent_id": agent,
        "content": content,
        "source_episode_id": source_episode_id,
        "created_at_ms": 10,
        "updated_at_ms": 10,
    }


def _columns(store: Store, table: str) -> set[str]:
    return {c[0] for c in table_columns(store.db, table)}


def test_import_keeps_free_ids_renumbers_taken_ones_and_skips_identical_rows(store: Store) -> None:
    columns = _columns(store, "pinned_facts")
    first = import_row_batch(store.db, "pinned_fact", [_fact(7, "a", "likes tea")], columns, {})
    assert [(r.file_id, r.stored_id, r.is_new) for r in first] == [(7, 7, True)]

    again = import_row_batch(
        store.db,
        "pinned_fact",
        [_fact(7, "a", "likes tea"), _fact(7, "a", "plays chess", source_episode_id=3)],
        columns,
        {3: 30},
    )
    (same, renumbered) = again
    assert (same.stored_id, same.is_new) == (7, False)  # identical row: mapped onto the stored one
    assert renumbered.is_new and renumbered.stored_id != 7  # id 7 taken: a new id
    assert (
        store.db.scalar("SELECT source_episode_id FROM pinned_facts WHERE id = ?", (renumbered.stored_id,))
        == 30
    )
    assert store.db.scalar("SELECT count(*) FROM pinned_facts") == 2


def test_imported_transcript_rows_keep_id_and_title_are_indexed_and_skipped_when_identical(
    store: Store,
) -> None:
    # Import writes transcript rows through memoryd.storage.transcript, like BufferTurn and Ingest: the FTS
    # mirror sees them and BufferTurn numbers the conversation's next chunk after them.
    turn = {
        "id": 40,
        "agent_id": "a",
        "conversation_id": "c1",
        "chunk_index": 0,
        "role": "user",
        "content": "the lighthouse keeper",
        "token_count": 5,
        "title": "Trip",
        "created_at_ms": 10,
    }
    columns = _columns(store, "transcript")
    (first,) = import_row_batch(store.db, "transcript", [turn], columns, {})
    assert (first.stored_id, first.is_new) == (40, True)
    assert store.db.query("SELECT title, content FROM transcript WHERE id = 40") == [
        ("Trip", turn["content"])
    ]
    if store.dialect == "sqlite":  # the FTS5 mirror follows the insert
        assert (
            store.db.scalar("SELECT rowid FROM fts_transcript WHERE fts_transcript MATCH 'lighthouse'") == 40
        )
    # BufferTurn numbers the conversation's next chunk after the imported row, and ids continue above it.
    turn_ids = store.turns.buffer(TurnInput("a", "c1", "and the sea", "", 11)).transcript_ids
    assert turn_ids[0] > 40
    assert store.db.scalar("SELECT chunk_index FROM transcript WHERE id = ?", (turn_ids[0],)) == 1
    (again,) = import_row_batch(store.db, "transcript", [turn], columns, {})
    assert (again.stored_id, again.is_new) == (40, False)
    assert store.db.scalar("SELECT count(*) FROM transcript") == 2


def test_import_identity_adds_new_overrides_and_takes_content_only_when_none(store: Store) -> None:
    record = {"content": "a teacher", "overrides": [{"id": "o1", "text": "call me Sam"}]}
    assert import_identity(store.db, record) is True
    assert import_identity(store.db, record) is False  # same override, content already there
    assert import_identity(store.db, {"content": "a pilot", "overrides": []}) is False
    content, overrides = store.db.query("SELECT content, overrides FROM identity WHERE id = 1")[0]
    assert content == "a teacher" and overrides.count("call me Sam") == 1


def test_import_agents_creates_missing_agents_and_ensures_owners(store: Store) -> None:
    columns = _columns(store, "agents")
    record = {"agent_id": "a", "created_at_ms": 1, "updated_at_ms": 1}
    assert import_agents(store.db, [record], columns, ["a", "b"], 5) == (1, 0)
    assert import_agents(store.db, [record], columns, ["b"], 6) == (0, 1)
    assert [r[0] for r in store.db.query("SELECT agent_id FROM agents ORDER BY agent_id")] == ["a", "b"]


def test_export_reads_back_each_agents_rows_only(store: Store) -> None:
    columns = _columns(store, "pinned_facts")
    import_row_batch(
        store.db, "pinned_fact", [_fact(1, "a", "likes tea"), _fact(2, "b", "hates tea")], columns, {}
    )
    everything = list(exported_records(store.db, None))
    assert everything[0][0] == "identity"
    assert [v["content"] for t, v in everything if t == "pinned_fact"] == ["likes tea", "hates tea"]
    only_b = list(exported_records(store.db, "b"))
    assert [(t, v["id"]) for t, v in only_b] == [("pinned_fact", 2)]


def test_console_search_across_agents_or_in_one_and_forget(store: Store) -> None:
    columns = _columns(store, "pinned_facts")
    import_row_batch(
        store.db, "pinned_fact", [_fact(1, "a", "likes tea"), _fact(2, "b", "tea is hot")], columns, {}
    )
    found = store.console_rows.search("tea", ["tea"], [KIND_PINNED], None, False, 10)
    assert sorted(m.id for m in found) == [1, 2]
    in_b = store.console_rows.search("tea", ["tea"], [KIND_PINNED], "b", False, 10)
    assert [m.id for m in in_b] == [2]
    assert console_rows.set_status(store.db, KIND_PINNED, 2, "disabled") is True
    assert store.console_rows.search("tea", ["tea"], [KIND_PINNED], "b", False, 10) == []
    assert console_rows.delete_row(store.db, KIND_PINNED, 1) == ("a", 0)
    assert console_rows.fetch_row(store.db, KIND_PINNED, 1) is None
    assert store.console_rows.search("tea", ["tea"], [KIND_PINNED], None, True, 10)[0].id == 2
