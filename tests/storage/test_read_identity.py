"""The read path's identity in one statement (issue 17 item 4, fastctx6): ReadQueries.agent_identity is exactly
IdentityStore.get(agent_id) on SQLite."""

from __future__ import annotations

from pathlib import Path

import pytest

from memoryd.storage.store import Store, open_store


def _fact(store: Store, agent: str, text: str, status: str = "active", episode: int | None = None) -> None:
    with store.db.write():
        store.db.execute(
            "INSERT INTO identity_facts (agent_id, content, source_episode_id, source_count, status, created_at_ms,"
            " updated_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
            (agent, text, episode, len(text) % 4 + 1, status, len(text), len(text) + 1),
        )


@pytest.mark.sqlite_only
def test_agent_identity_is_identity_get_in_one_statement(tmp_path: Path) -> None:
    store = open_store(tmp_path / "memory.sqlite")
    try:
        assert store.reads.agent_identity("a") == store.identity.get("a")  # nothing yet, no identity row
        store.identity.add_override("Call me Sam.")
        store.identity.add_override("I use metric units.")
        _fact(store, "a", "Lives in Porto.", episode=7)
        _fact(store, "a", "Was vegetarian.", status="superseded")
        _fact(store, "b", "Lives in Oslo.")
        _fact(store, "a", "Works as a nurse.")
        with store.db.write():
            store.db.execute("UPDATE identity SET content = 'Imported profile.' WHERE id = 1")
            store.db.execute(
                "INSERT INTO agent_narratives (agent_id, content, model, generated_at_ms, version)"
                " VALUES ('a', 'Sam, a nurse in Porto.', 'core', 55, 3)"
            )
        for agent in ("a", "b", "nobody"):
            assert store.reads.agent_identity(agent) == store.identity.get(agent)
        record = store.reads.agent_identity("a")
        assert [f.text for f in record.facts] == ["Lives in Porto.", "Works as a nurse."]
        assert [o.text for o in record.overrides] == ["Call me Sam.", "I use metric units."]
        assert (record.content, record.model, record.shared_content) == (
            "Sam, a nurse in Porto.",
            "core",
            "Imported profile.",
        )
    finally:
        store.close()
