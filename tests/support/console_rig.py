"""Console test rig: a real memoryd with the fake embedding inferd, and helpers to seed facts, episodes and turns."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoryd.client import MemoryClient
from memoryd.domain import now_ms
from tests.fakes.fake_inferd import FakeInferdState, running_fake_inferd
from tests.support.memoryd_server import MemorydHandle, buffer, running_memoryd


@dataclass
class ConsoleRig:
    """memoryd + fake inferd + a typed client."""

    memoryd: MemorydHandle
    inferd: FakeInferdState
    client: MemoryClient

    def q(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        """Read the store directly."""
        return self.memoryd.app.store.db.query(sql, params)

    def pinned(self, agent: str, content: str, *, salience: float = 0.7, tags: str = "") -> int:
        """Insert one pinned fact as the writer would."""
        stamp = now_ms()
        db = self.memoryd.app.store.db
        with db.write():
            row_id = db.insert(
                "INSERT INTO pinned_facts (agent_id, content, salience, tags_csv, created_at_ms, updated_at_ms) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (agent, content, salience, tags, stamp, stamp),
            )
            db.execute(
                "INSERT INTO agents (agent_id, created_at_ms, updated_at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (agent, stamp, stamp),
            )
        return row_id

    def episode(
        self, agent: str, summary: str, *, conversation: str = "c1", topics: str = "", entities: str = ""
    ) -> int:
        """Insert one episode as the writer would."""
        stamp = now_ms()
        db = self.memoryd.app.store.db
        with db.write():
            row_id = db.insert(
                "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, decisions, "
                "action_items, conversation_at_ms, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    agent,
                    conversation,
                    summary,
                    topics,
                    entities,
                    "decided something",
                    "do something",
                    stamp,
                    stamp,
                ),
            )
            db.execute(
                "INSERT INTO agents (agent_id, created_at_ms, updated_at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING",
                (agent, stamp, stamp),
            )
        return row_id

    def identity_fact(self, agent: str, content: str) -> int:
        """Insert one auto-derived identity fact."""
        stamp = now_ms()
        db = self.memoryd.app.store.db
        with db.write():
            row_id = db.insert(
                "INSERT INTO identity_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?)",
                (agent, content, stamp, stamp),
            )
        return row_id

    def turn(self, agent: str, user: str, assistant: str = "", conversation: str = "c1") -> list[int]:
        """BufferTurn over gRPC; the transcript ids."""
        return list(buffer(self.memoryd.memory, agent, conversation, user, assistant).transcript_ids)

    def index(self) -> int:
        """Embed and index every row without a vector (what the background indexer does)."""
        return self.memoryd.app.indexer.run_once()


@contextmanager
def console_rig(home: Path, inferd_state: FakeInferdState | None = None) -> Iterator[ConsoleRig]:
    """Fake inferd on a real port, memoryd in-process, a MemoryClient on it."""
    with (
        running_fake_inferd(inferd_state) as (server, state),
        running_memoryd(home, inferd_addr=server.target) as handle,
    ):
        client = MemoryClient(handle.target, deadline_s=30)
        try:
            yield ConsoleRig(handle, state, client)
        finally:
            client.close()


__all__ = ["ConsoleRig", "console_rig"]
