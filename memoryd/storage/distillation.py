"""The writer's storage (memoryd.write.store_protocol.WriterStore) on memory.sqlite: snapshots, commits, failures, ingest."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from memoryd.distill_records import (
    LOG_DEAD_LETTER,
    CommitResult,
    DerivedRow,
    DistillationWrite,
    EpisodeDigest,
    ExistingFact,
    FailureResult,
    IngestTurn,
    LogEntry,
    NewEpisode,
    ReplacedFact,
    ReplaceResult,
    Signal,
    StaleSnapshotError,
)
from memoryd.domain import KIND_EPISODE, KIND_IDENTITY_FACT, KIND_PINNED, KIND_TRANSCRIPT, now_ms
from memoryd.storage.agents import AgentStore
from memoryd.storage.handle import Connection, Database
from memoryd.storage.tables import Tables
from memoryd.storage.transcript import TranscriptRow, estimate_tokens, insert_transcript_rows

#: Bound parameters per IN (...) list, well under SQLite's variable limit.
_CHUNK = 500
#: The two tables of standing facts; a fact in one may supersede one in the other (same slot).
_PINNED = "pinned_facts"
_IDENTITY = "identity_facts"


def _chunks(ids: Sequence[int]) -> Iterator[Sequence[int]]:
    for start in range(0, len(ids), _CHUNK):
        yield ids[start : start + _CHUNK]


def _ids_text(ids: Sequence[int]) -> str:
    """Provenance as stored: comma-separated transcript ids."""
    return ",".join(str(int(i)) for i in ids)


def _marks(ids: Sequence[Any]) -> str:
    return ",".join("?" * len(ids))


class SqliteWriterStore:
    """WriterStore over the memoryd engineer's Database/Tables. Writes go through Database.write() (one
    transaction, process-wide write lock); reads through Database.read()."""

    def __init__(self, db: Database, tables: Tables, agents: AgentStore) -> None:
        self._db = db
        self._t = tables
        self._agents = agents

    def _connection(self) -> Connection:
        """This thread's connection (for executemany inside a Database.write() transaction)."""
        return self._db.connection()

    # -- reads ---------------------------------------------------------------------------------------------

    def pending_signals(self, agent_id: str, conversation_id: str) -> list[Signal]:
        """Pending signals of one conversation, oldest first."""
        with self._db.read():
            rows = self._db.query(
                """SELECT id, agent_id, conversation_id, user_message, assistant_message, occurred_at_ms, attempts
                   FROM pending_signals WHERE agent_id = ? AND conversation_id = ? AND status = 'pending'
                   ORDER BY id""",
                (agent_id, conversation_id),
            )
        return [Signal(r[0], r[1], r[2], r[3], r[4] or "", r[5], r[6]) for r in rows]

    def pending_conversations(self, agent_id: str | None = None) -> list[tuple[str, str]]:
        """(agent, conversation) pairs with pending signals, the longest-waiting first."""
        where, params = ("AND agent_id = ?", (agent_id,)) if agent_id else ("", ())
        rows = self._db.query(
            f"""SELECT agent_id, conversation_id, min(id) AS first FROM pending_signals
                WHERE status = 'pending' {where} GROUP BY agent_id, conversation_id ORDER BY first""",
            params,
        )
        return [(r[0], r[1]) for r in rows]

    def count_pending(self, agent_id: str, conversation_id: str) -> int:
        """Pending signals of one conversation."""
        return int(
            self._db.scalar(
                "SELECT count(*) FROM pending_signals WHERE agent_id = ? AND conversation_id = ? AND status = 'pending'",
                (agent_id, conversation_id),
            )
            or 0
        )

    def identity_narrative(self) -> str:
        """identity.content (never the overrides)."""
        return str(self._db.scalar("SELECT content FROM identity WHERE id = 1") or "")

    def recent_episodes(self, agent_id: str, limit: int, since_ms: int) -> list[EpisodeDigest]:
        """Active episodes of the agent since since_ms, newest first."""
        rows = self._db.query(
            """SELECT conversation_at_ms, summary FROM episodes
               WHERE agent_id = ? AND status = 'active' AND conversation_at_ms >= ?
               ORDER BY conversation_at_ms DESC, id DESC LIMIT ?""",
            (agent_id, since_ms, limit),
        )
        return [EpisodeDigest(r[0], r[1]) for r in rows]

    def active_facts(self, agent_id: str, limit: int) -> list[ExistingFact]:
        """Active pinned facts of the agent, most salient first."""
        rows = self._db.query(
            """SELECT id, content, salience, source_count, slot FROM pinned_facts
               WHERE agent_id = ? AND status = 'active' ORDER BY salience DESC, last_used_at_ms DESC LIMIT ?""",
            (agent_id, limit),
        )
        slotted = self._db.query(
            """SELECT id, content, salience, source_count, slot FROM pinned_facts
               WHERE agent_id = ? AND status = 'active' AND slot != ''""",
            (agent_id,),
        )
        # Every active slotted fact is compared, however low its salience: a correction must find what it replaces.
        seen = {r[0] for r in rows}
        rows = [*rows, *(r for r in slotted if r[0] not in seen)]
        return [ExistingFact(str(r[0]), r[1], float(r[2]), int(r[3]), r[4] or "") for r in rows]

    def identity_facts(self, agent_id: str, limit: int) -> list[ExistingFact]:
        """Active auto-derived identity facts sourced from this agent."""
        rows = self._db.query(
            """SELECT id, content, source_count, slot FROM identity_facts
               WHERE agent_id = ? AND status = 'active' ORDER BY (slot != '') DESC, source_count DESC, id LIMIT ?""",
            (agent_id, limit),
        )
        return [ExistingFact(str(r[0]), r[1], 1.0, int(r[2]), r[3] or "") for r in rows]

    def transcript_ids_for(self, signals: Sequence[Signal]) -> list[tuple[int, ...]]:
        """Match each signal to the transcript rows BufferTurn/Ingest wrote with it: same conversation, the user
        row with the same text, taken in order (a repeated message maps to successive rows)."""
        if not signals:
            return []
        first = signals[0]
        with self._db.read():
            rows = self._db.query(
                """SELECT id, role, content FROM transcript WHERE agent_id = ? AND conversation_id = ?
                   ORDER BY chunk_index""",
                (first.agent_id, first.conversation_id),
            )
        out: list[tuple[int, ...]] = []
        cursor = 0
        for signal in signals:
            found: tuple[int, ...] = ()
            for index in range(cursor, len(rows)):
                row_id, role, content = rows[index]
                if role == "user" and content == signal.user_message:
                    ids = [int(row_id)]
                    if (
                        index + 1 < len(rows)
                        and rows[index + 1][1] == "assistant"
                        and signal.assistant_message
                    ):
                        ids.append(int(rows[index + 1][0]))
                    found = tuple(ids)
                    cursor = index + 1
                    break
            out.append(found)
        return out

    def is_memory_enabled(self, agent_id: str) -> bool:
        """The agent's Memory toggle (unknown agents: on)."""
        return self._agents.is_memory_enabled(agent_id)

    # -- writes --------------------------------------------------------------------------------------------

    def _insert_log(self, entry: LogEntry, stamp: int) -> None:
        self._db.execute(
            """INSERT INTO processing_log (agent_id, task_type, model, status, details, input_tokens, output_tokens,
                                          duration_ms, created_at_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)""",
            (
                entry.agent_id,
                entry.task_type,
                entry.model,
                entry.status,
                entry.details,
                entry.input_tokens,
                entry.output_tokens,
                entry.duration_ms,
                stamp,
            ),
        )

    def _mark(self, ids: Sequence[int], status: str, stamp: int) -> int:
        changed = 0
        for chunk in _chunks(ids):
            changed += self._db.execute(
                f"UPDATE pending_signals SET status = ?, updated_at_ms = ? "
                f"WHERE id IN ({_marks(chunk)}) AND status = 'pending'",
                (status, stamp, *chunk),
            ).rowcount
        return changed

    def log(self, entry: LogEntry) -> None:
        """One processing_log row."""
        with self._db.write():
            self._insert_log(entry, now_ms())

    def mark_processed(self, signal_ids: Sequence[int], log: LogEntry) -> None:
        """Terminal outcome without an episode."""
        stamp = now_ms()
        with self._db.write():
            self._mark(signal_ids, "processed", stamp)
            self._insert_log(log, stamp)

    def record_failure(self, signal_ids: Sequence[int], max_attempts: int, log: LogEntry) -> FailureResult:
        """attempts += 1 on still-pending ids; dead-letter at the cap; one log row (error or dead_letter)."""
        stamp = now_ms()
        attempts = 0
        with self._db.write():
            for chunk in _chunks(signal_ids):
                self._db.execute(
                    f"UPDATE pending_signals SET attempts = attempts + 1, updated_at_ms = ? "
                    f"WHERE id IN ({_marks(chunk)}) AND status = 'pending'",
                    (stamp, *chunk),
                )
                value = self._db.scalar(
                    f"SELECT max(attempts) FROM pending_signals WHERE id IN ({_marks(chunk)}) AND status = 'pending'",
                    tuple(chunk),
                )
                attempts = max(attempts, int(value or 0))
            dead = attempts >= max_attempts
            if dead:
                self._mark(signal_ids, "dead_letter", stamp)
                entry = LogEntry(
                    log.agent_id,
                    LOG_DEAD_LETTER,
                    f"dead_letter_after_{attempts}_attempts: {log.details}",
                    log.model,
                    log.input_tokens,
                    log.output_tokens,
                    log.duration_ms,
                    log.task_type,
                )
            else:
                entry = log
            self._insert_log(entry, stamp)
        return FailureResult(attempts, dead)

    def commit_distillation(self, write: DistillationWrite) -> CommitResult:
        """ONE transaction: snapshot → processed, episode, pinned inserts/bumps, identity inserts/bumps, log."""
        stamp = now_ms()
        ep = write.episode
        with self._db.write():
            if self._mark(write.signal_ids, "processed", stamp) != len(write.signal_ids):
                raise StaleSnapshotError("snapshot signals are no longer all pending")  # rolls the write back
            self._agents.ensure(ep.agent_id)
            episode_id = int(
                self._t.Episode.insert(
                    agent_id=ep.agent_id,
                    conversation_id=ep.conversation_id,
                    summary=ep.summary,
                    topics_csv=", ".join(ep.topics),
                    entities_csv=", ".join(ep.entities),
                    decisions="\n".join(ep.decisions),
                    action_items="\n".join(ep.action_items),
                    salience=ep.salience,
                    token_count=ep.token_count,
                    model=ep.model,
                    conversation_at_ms=ep.conversation_at_ms,
                    created_at_ms=stamp,
                    last_decayed_at_ms=stamp,
                    source_turn_ids=_ids_text(ep.source_turn_ids),
                    summary_source=ep.summary_source,
                ).execute()
            )
            fact_ids: list[str] = []
            for fact in write.new_facts:
                fact_id = int(
                    self._t.PinnedFact.insert(
                        agent_id=ep.agent_id,
                        content=fact.content,
                        salience=fact.salience,
                        source_episode_id=episode_id,
                        source_conversation_id=ep.conversation_id,
                        tags_csv=", ".join(fact.tags),
                        created_at_ms=stamp,
                        updated_at_ms=stamp,
                        last_used_at_ms=stamp,
                        last_decayed_at_ms=stamp,
                        source_turn_ids=_ids_text(fact.source_turn_ids),
                        slot=fact.slot,
                        kind=fact.kind,
                    ).execute()
                )
                self._supersede(_PINNED, ep.agent_id, fact.supersedes, fact_id, stamp)
                self._supersede(_IDENTITY, ep.agent_id, fact.supersedes_identity, fact_id, stamp, _PINNED)
                for old in fact.replaced:
                    self._history(ep, episode_id, old, fact_id, _PINNED, stamp)
                fact_ids.append(str(fact_id))
            greatest = self._db.dialect.greatest("salience", "?")
            for bump in write.fact_bumps:
                self._db.execute(
                    f"""UPDATE pinned_facts SET source_count = source_count + 1, salience = {greatest},
                              updated_at_ms = ? WHERE id = ? AND agent_id = ?""",
                    (bump.salience, stamp, int(bump.fact_id), ep.agent_id),
                )
            identity_ids: list[str] = []
            for identity in write.new_identity_facts:
                identity_id = self._insert_identity(
                    ep.agent_id, identity.content, episode_id, identity.source_turn_ids, identity.slot, stamp
                )
                self._supersede(_IDENTITY, ep.agent_id, identity.supersedes, identity_id, stamp)
                self._supersede(
                    _PINNED, ep.agent_id, identity.supersedes_pinned, identity_id, stamp, _IDENTITY
                )
                for old in identity.replaced:
                    self._history(ep, episode_id, old, identity_id, _IDENTITY, stamp)
                identity_ids.append(str(identity_id))
            for bumped_id in write.identity_bumps:
                self._db.execute(
                    "UPDATE identity_facts SET source_count = source_count + 1, updated_at_ms = ? "
                    "WHERE id = ? AND agent_id = ?",
                    (stamp, int(bumped_id), ep.agent_id),
                )
            for old, holder_id, holder_is_identity in write.kept_history:
                holder_table = _IDENTITY if holder_is_identity else _PINNED
                self._history(ep, episode_id, old, int(holder_id), holder_table, stamp)
            self._insert_log(write.log, stamp)
        return CommitResult(episode_id, tuple(fact_ids), tuple(identity_ids))

    def _insert_identity(
        self,
        agent_id: str,
        content: str,
        episode_id: int,
        source_turn_ids: Sequence[int],
        slot: str,
        stamp: int,
    ) -> int:
        """Insert one identity fact learnt in `episode_id`; its row id."""
        return int(
            self._t.IdentityFact.insert(
                agent_id=agent_id,
                content=content,
                source_episode_id=episode_id,
                created_at_ms=stamp,
                updated_at_ms=stamp,
                source_turn_ids=_ids_text(source_turn_ids),
                slot=slot,
            ).execute()
        )

    def _history(
        self, ep: NewEpisode, episode_id: int, old: ReplacedFact, new_id: int, new_table: str, stamp: int
    ) -> None:
        """Store a fact the session itself replaced as a row superseded by `new_id` (a row of `new_table`), with
        its source turns: inserted, then retired by the same statement as any other superseded fact, so the read
        path's stale-turn and old-value filters know it."""
        if old.is_identity:
            old_id = self._insert_identity(
                ep.agent_id, old.content, episode_id, old.source_turn_ids, old.slot, stamp
            )
            table = _IDENTITY
        else:
            old_id = int(
                self._t.PinnedFact.insert(
                    agent_id=ep.agent_id,
                    content=old.content,
                    salience=old.salience,
                    source_episode_id=episode_id,
                    source_conversation_id=ep.conversation_id,
                    created_at_ms=stamp,
                    updated_at_ms=stamp,
                    last_used_at_ms=stamp,
                    last_decayed_at_ms=stamp,
                    source_turn_ids=_ids_text(old.source_turn_ids),
                    slot=old.slot,
                    kind=old.kind,
                ).execute()
            )
            table = _PINNED
        self._supersede(
            table, ep.agent_id, (str(old_id),), new_id, stamp, "" if new_table == table else new_table
        )

    def _supersede(
        self, table: str, agent_id: str, old_ids: Sequence[str], new_id: int, stamp: int, new_table: str = ""
    ) -> None:
        """Mark the replaced facts of `table` superseded by new_id (a row of `new_table`, "" for `table` itself):
        kept for history and the console, never injected."""
        for old in old_ids:
            self._db.execute(
                f"UPDATE {table} SET status = 'superseded', superseded_by = ?, superseded_by_table = ?, "
                f"updated_at_ms = ? WHERE id = ? AND agent_id = ? AND status = 'active'",
                (new_id, new_table, stamp, int(old), agent_id),
            )

    def replace_conversation(
        self,
        agent_id: str,
        conversation_id: str,
        turns: Sequence[IngestTurn],
        session_time_ms: int,
        *,
        skip_extraction: bool,
    ) -> ReplaceResult:
        """Ingest in one transaction; a re-ingest also removes what the earlier ingest derived."""
        stamp = now_ms()
        key = (agent_id, conversation_id)
        removed: list[DerivedRow] = []
        with self._db.write():
            self._agents.ensure(agent_id)
            old_transcript = [
                r[0]
                for r in self._db.query(
                    "SELECT id FROM transcript WHERE agent_id = ? AND conversation_id = ?", key
                )
            ]
            self._db.execute("DELETE FROM transcript WHERE agent_id = ? AND conversation_id = ?", key)
            removed.extend(DerivedRow(KIND_TRANSCRIPT, str(i)) for i in old_transcript)
            if not skip_extraction:
                removed.extend(self._remove_derived(agent_id, conversation_id, stamp))
            self._delete_embeddings(removed)
            rows: list[TranscriptRow] = []
            for index, turn in enumerate(turns):
                rows.append(
                    (
                        agent_id,
                        conversation_id,
                        2 * index,
                        "user",
                        turn.user,
                        estimate_tokens(turn.user),
                        session_time_ms,
                    )
                )
                if turn.assistant:
                    rows.append(
                        (
                            agent_id,
                            conversation_id,
                            2 * index + 1,
                            "assistant",
                            turn.assistant,
                            estimate_tokens(turn.assistant),
                            session_time_ms,
                        )
                    )
            connection = self._connection()
            insert_transcript_rows(connection, rows)
            transcript_ids = tuple(
                r[0]
                for r in self._db.query(
                    "SELECT id FROM transcript WHERE agent_id = ? AND conversation_id = ? ORDER BY chunk_index",
                    key,
                )
            )
            signal_ids: tuple[int, ...] = ()
            if not skip_extraction:
                connection.executemany(
                    """INSERT INTO pending_signals (agent_id, conversation_id, user_message, assistant_message,
                                                   occurred_at_ms, created_at_ms, updated_at_ms)
                       VALUES (?, ?, ?, ?, ?, ?, ?)""",
                    [
                        (agent_id, conversation_id, t.user, t.assistant, session_time_ms, stamp, stamp)
                        for t in turns
                    ],
                )
                signal_ids = tuple(
                    r[0]
                    for r in self._db.query(
                        "SELECT id FROM pending_signals WHERE agent_id = ? AND conversation_id = ? ORDER BY id",
                        key,
                    )
                )
        return ReplaceResult(transcript_ids, signal_ids, tuple(removed))

    def _remove_derived(self, agent_id: str, conversation_id: str, stamp: int) -> list[DerivedRow]:
        """Delete the conversation's signals and episodes, and the facts those episodes produced.

        A fact another session also supported (source_count > 1) is kept with one source fewer."""
        key = (agent_id, conversation_id)
        removed: list[DerivedRow] = []
        episodes = [
            r[0]
            for r in self._db.query("SELECT id FROM episodes WHERE agent_id = ? AND conversation_id = ?", key)
        ]
        self._db.execute("DELETE FROM pending_signals WHERE agent_id = ? AND conversation_id = ?", key)
        pinned = self._db.query(
            f"""SELECT id, source_count FROM pinned_facts WHERE agent_id = ?
                AND (source_conversation_id = ? OR source_episode_id IN ({_marks(episodes)}))""",
            (agent_id, conversation_id, *episodes),
        )
        removed.extend(self._drop_or_decrement("pinned_facts", KIND_PINNED, agent_id, pinned, stamp))
        identity = self._db.query(
            f"SELECT id, source_count FROM identity_facts WHERE agent_id = ? AND source_episode_id IN ({_marks(episodes)})",
            (agent_id, *episodes),
        )
        removed.extend(
            self._drop_or_decrement("identity_facts", KIND_IDENTITY_FACT, agent_id, identity, stamp)
        )
        self._db.execute("DELETE FROM episodes WHERE agent_id = ? AND conversation_id = ?", key)
        removed.extend(DerivedRow(KIND_EPISODE, str(i)) for i in episodes)
        return removed

    def _drop_or_decrement(
        self, table: str, kind: str, agent_id: str, rows: Sequence[tuple[Any, ...]], stamp: int
    ) -> list[DerivedRow]:
        removed: list[DerivedRow] = []
        extra = ", source_conversation_id = NULL" if table == "pinned_facts" else ""
        for row_id, source_count in rows:
            if int(source_count) > 1:
                self._db.execute(
                    f"UPDATE {table} SET source_count = source_count - 1, source_episode_id = NULL{extra}, "
                    f"updated_at_ms = ? WHERE id = ? AND agent_id = ?",
                    (stamp, row_id, agent_id),
                )
            else:
                self._db.execute(f"DELETE FROM {table} WHERE id = ? AND agent_id = ?", (row_id, agent_id))
                # What the removed fact had replaced is current again, in its own table and in the other one.
                other = _IDENTITY if table == _PINNED else _PINNED
                for replaced, by_table in ((table, ""), (other, table)):
                    self._db.execute(
                        f"UPDATE {replaced} SET status = 'active', superseded_by = NULL, superseded_by_table = '', "
                        f"updated_at_ms = ? WHERE agent_id = ? AND superseded_by = ? AND status = 'superseded' "
                        f"AND superseded_by_table = ?",
                        (stamp, agent_id, row_id, by_table),
                    )
                removed.append(DerivedRow(kind, str(row_id)))
        return removed

    def _delete_embeddings(self, rows: Sequence[DerivedRow]) -> None:
        if rows:
            self._connection().executemany(
                "DELETE FROM embeddings WHERE kind = ? AND row_id = ?",
                [(row.kind, int(row.id)) for row in rows],
            )


__all__ = ["SqliteWriterStore"]
