"""Supersession across tables on both backends: a pinned fact replacing an identity fact of its slot (and the
other way round) marks it superseded with the replacement's table; the read path's corrections pair them; removing
the replacement (a re-ingest) makes the replaced fact current again."""

from __future__ import annotations

import time

from memoryd.storage.distillation import SqliteWriterStore
from memoryd.storage.read_queries import corrections
from memoryd.storage.store import Store
from memoryd.write.store_protocol import (
    IngestTurn,
    NewFact,
    NewIdentityFact,
)
from tests.support.distillation_writes import commit_session

AGENT = "cross"


def _write(
    writer: SqliteWriterStore,
    conversation: str,
    facts: tuple[NewFact, ...] = (),
    identity: tuple[NewIdentityFact, ...] = (),
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    return commit_session(writer, AGENT, conversation, facts, identity)


def _row(store_db: object, table: str, row_id: str) -> tuple[str, int | None, str]:
    rows = store_db.query(  # type: ignore[attr-defined]
        f"SELECT status, superseded_by, superseded_by_table FROM {table} WHERE id = ?", (int(row_id),)
    )
    status, by, by_table = rows[0]
    return str(status), by, str(by_table)


def test_a_pinned_fact_replaces_an_identity_fact_of_its_slot_and_back(store: Store) -> None:
    try:
        writer = SqliteWriterStore(store.db, store.tables, store.agents)
        _, (home,) = _write(
            writer, "c1", identity=(NewIdentityFact("The user lives in Porto.", (), "identity.home"),)
        )
        (moved,), _ = _write(
            writer,
            "c2",
            facts=(
                NewFact("The user moved to Braga.", 0.8, slot="identity.home", supersedes_identity=(home,)),
            ),
        )
        assert _row(store.db, "identity_facts", home) == ("superseded", int(moved), "pinned_facts")
        assert [f.id for f in writer.identity_facts(AGENT, 10)] == []
        assert corrections(store.db, AGENT) == [("The user lives in Porto.", "The user moved to Braga.")]
        # And back: an identity fact replaces the pinned one.
        _, (lisbon,) = _write(
            writer,
            "c3",
            identity=(NewIdentityFact("The user lives in Lisbon.", (), "identity.home", (), (moved,)),),
        )
        assert _row(store.db, "pinned_facts", moved) == ("superseded", int(lisbon), "identity_facts")
        assert [f.content for f in writer.active_facts(AGENT, 10)] == []
        # Re-ingesting c3 removes what it derived: the pinned fact it replaced is current again, and only it (the
        # identity fact with the same numeric id in the other table is not touched).
        writer.replace_conversation(
            AGENT, "c3", [IngestTurn("hello", "hi")], int(time.time() * 1000), skip_extraction=False
        )
        assert _row(store.db, "pinned_facts", moved) == ("active", None, "")
        assert _row(store.db, "identity_facts", home) == ("superseded", int(moved), "pinned_facts")
    finally:
        store.close()


def test_a_same_table_replacement_is_restored_in_its_own_table_only(store: Store) -> None:
    try:
        writer = SqliteWriterStore(store.db, store.tables, store.agents)
        (old,), (ident,) = _write(
            writer,
            "c1",
            facts=(NewFact("The user's vet is Dr. Li.", 0.8, slot="relation.vet"),),
            identity=(NewIdentityFact("The user is a nurse.", (), "identity.role"),),
        )
        assert old == ident == "1"  # one numeric id in each table
        (new,), _ = _write(
            writer,
            "c2",
            facts=(NewFact("The user's vet is Dr. Park.", 0.8, slot="relation.vet", supersedes=(old,)),),
        )
        assert _row(store.db, "pinned_facts", old) == ("superseded", int(new), "")
        assert corrections(store.db, AGENT) == [("The user's vet is Dr. Li.", "The user's vet is Dr. Park.")]
        writer.replace_conversation(
            AGENT, "c2", [IngestTurn("hello", "hi")], int(time.time() * 1000), skip_extraction=False
        )
        assert _row(store.db, "pinned_facts", old) == ("active", None, "")
        assert _row(store.db, "identity_facts", ident) == ("active", None, "")
    finally:
        store.close()
