"""The hot-path write: transcript rows and a pending signal for one turn, in one transaction."""

from __future__ import annotations

from memoryd.domain import BufferedTurn, TurnInput, now_ms
from memoryd.storage.agents import AgentStore
from memoryd.storage.db import Database
from memoryd.storage.tables import Tables


def estimate_tokens(text: str) -> int:
    """Token estimate used for stored rows (chars / 4, rounded up)."""
    return (len(text) + 3) // 4


class TurnStore:
    """Writes buffered turns; the agent is created on first use inside the same transaction."""

    def __init__(self, db: Database, tables: Tables, agents: AgentStore) -> None:
        self._db = db
        self._t = tables
        self._agents = agents

    def buffer(self, turn: TurnInput) -> BufferedTurn:
        """Insert transcript row(s) and one pending signal atomically; returns their ids."""
        t = self._t
        stamp = now_ms()
        with self._db.write():
            self._agents.ensure(turn.agent_id)
            last = self._db.scalar(
                "SELECT max(chunk_index) FROM transcript WHERE agent_id = ? AND conversation_id = ?",
                (turn.agent_id, turn.conversation_id),
            )
            index = 0 if last is None else int(last) + 1
            ids: list[int] = []
            messages = [("user", turn.user_message)]
            if turn.assistant_message:
                messages.append(("assistant", turn.assistant_message))
            for offset, (role, content) in enumerate(messages):
                ids.append(
                    t.Transcript.insert(
                        agent_id=turn.agent_id,
                        conversation_id=turn.conversation_id,
                        chunk_index=index + offset,
                        role=role,
                        content=content,
                        token_count=estimate_tokens(content),
                        created_at_ms=turn.occurred_at_ms,
                    ).execute()
                )
            signal_id = t.PendingSignal.insert(
                agent_id=turn.agent_id,
                conversation_id=turn.conversation_id,
                user_message=turn.user_message,
                assistant_message=turn.assistant_message,
                occurred_at_ms=turn.occurred_at_ms,
                created_at_ms=stamp,
                updated_at_ms=stamp,
            ).execute()
        return BufferedTurn(signal_id=int(signal_id), transcript_ids=tuple(int(i) for i in ids))
