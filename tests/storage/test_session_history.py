"""A fact a session replaced within itself is stored superseded by its replacement, on both backends: the
replacement's row (a new pinned or identity fact, or an existing row the session repeated), with its source turns,
so the read path's corrections and stale turns know it; a re-ingest removes it with the rest of the session."""

from __future__ import annotations

import time

from memoryd.storage.distillation import SqliteWriterStore
from memoryd.storage.read_queries import corrections
from memoryd.storage.store import Store
from memoryd.write.store_protocol import (
    IngestTurn,
    NewFact,
    NewIdentityFact,
    ReplacedFact,
)
from tests.support.distillation_writes import commit_session

AGENT = "history"


def _write(
    writer: SqliteWriterStore,
    conversation: str,
    facts: tuple[NewFact, ...] = (),
    identity: tuple[NewIdentityFact, ...] = (),
    kept: tuple[tuple[ReplacedFact, str, bool], ...] = (),
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return commit_session(writer, AGENT, conversation, facts, identity, kept)


def _rows(store: Store, table: str) -> list[tuple[str, str, str, str]]:
    rows = store.db.query(
        f"SELECT content, status, COALESCE(superseded_by, 0), superseded_by_table FROM {table} "
        "WHERE agent_id = ? ORDER BY id",
        (AGENT,),
    )
    return [(str(c), str(s), str(b), str(t)) for c, s, b, t in rows]


def test_a_replaced_fact_is_stored_superseded_by_its_replacement(store: Store) -> None:
    try:
        writer = SqliteWriterStore(store.db, store.tables, store.agents)
        old = ReplacedFact("The beta ships on December 15.", 0.6, (1,), "plan.beta", "plan")
        (new,), _ = _write(
            writer, "c1", facts=(NewFact("The beta moved to December 18.", 0.6, (), (3,), "plan.beta", "plan",
                                         replaced=(old,)),)
        )  # fmt: skip
        assert _rows(store, "pinned_facts") == [
            ("The beta moved to December 18.", "active", "0", ""),
            ("The beta ships on December 15.", "superseded", new, ""),
        ]
        assert [f.content for f in writer.active_facts(AGENT, 10)] == ["The beta moved to December 18."]
        assert corrections(store.db, AGENT) == [
            ("The beta ships on December 15.", "The beta moved to December 18.")
        ]
        source = store.db.query("SELECT source_turn_ids FROM pinned_facts WHERE status = 'superseded'", ())
        assert [str(ids) for (ids,) in source] == ["1"]
        # A re-ingest of the session removes both rows; nothing it replaced comes back as active.
        writer.replace_conversation(
            AGENT, "c1", [IngestTurn("hello", "hi")], int(time.time() * 1000), skip_extraction=False
        )
        assert _rows(store, "pinned_facts") == []
    finally:
        store.close()


def test_an_identity_fact_replaced_by_a_pinned_one_names_the_pinned_table(store: Store) -> None:
    try:
        writer = SqliteWriterStore(store.db, store.tables, store.agents)
        old = ReplacedFact(
            "The user lives in Paris.", 0.9, (0,), "identity.home", "identity", is_identity=True
        )
        (new,), _ = _write(
            writer,
            "c1",
            facts=(NewFact("The user moved to Lyon.", 0.8, slot="identity.home", replaced=(old,)),),
        )
        assert _rows(store, "identity_facts") == [
            ("The user lives in Paris.", "superseded", new, "pinned_facts")
        ]
        assert writer.identity_facts(AGENT, 10) == []
        assert corrections(store.db, AGENT) == [("The user lives in Paris.", "The user moved to Lyon.")]
    finally:
        store.close()


def test_a_value_memory_held_keeps_the_session_s_replaced_fact_under_it(store: Store) -> None:
    try:
        writer = SqliteWriterStore(store.db, store.tables, store.agents)
        _, (held,) = _write(
            writer, "c1", identity=(NewIdentityFact("The user lives in Lyon.", (), "identity.home"),)
        )
        old = ReplacedFact(
            "The user lives in Paris.", 0.9, (4,), "identity.home", "identity", is_identity=True
        )
        _write(writer, "c2", kept=((old, held, True),))
        assert _rows(store, "identity_facts") == [
            ("The user lives in Lyon.", "active", "0", ""),
            ("The user lives in Paris.", "superseded", held, ""),
        ]
    finally:
        store.close()


def test_nothing_replaced_stores_nothing_more(store: Store) -> None:
    try:
        writer = SqliteWriterStore(store.db, store.tables, store.agents)
        _write(writer, "c1", facts=(NewFact("The beta ships on December 15.", 0.6, slot="plan.beta"),))
        assert _rows(store, "pinned_facts") == [("The beta ships on December 15.", "active", "0", "")]
        assert corrections(store.db, AGENT) == []
    finally:
        store.close()
