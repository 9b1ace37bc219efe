"""The read path's queries for one agent: known entities, identity, episode decisions, pinned-usage bumps and
corrections."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from memoryd.domain import IdentityFactRecord, IdentityRecord, OverrideRecord
from memoryd.storage.dated import rows_in_window
from memoryd.storage.handle import Database
from memoryd.storage.identity import parse_overrides

#: How far back an episode's entities count as "known" to the gate, and how many episodes are read.
ENTITY_WINDOW_MS = 90 * 86_400_000
ENTITY_EPISODES = 25
ENTITY_TAGGED_FACTS = 200


def known_entities(db: Database, agent_id: str, now_ms: int) -> list[str]:
    """Entity names from the agent's recent active episodes plus the tags of its most salient pinned facts."""
    episodes = db.query(
        "SELECT entities_csv FROM episodes WHERE agent_id = ? AND status = 'active' AND conversation_at_ms >= ?"
        " ORDER BY conversation_at_ms DESC LIMIT ?",
        (agent_id, now_ms - ENTITY_WINDOW_MS, ENTITY_EPISODES),
    )
    tags = db.query(
        "SELECT tags_csv FROM pinned_facts WHERE agent_id = ? AND status = 'active' AND tags_csv != ''"
        " ORDER BY salience DESC LIMIT ?",
        (agent_id, ENTITY_TAGGED_FACTS),
    )
    return [name.strip() for (csv,) in [*episodes, *tags] for name in (csv or "").split(",") if name.strip()]


def agent_identity(db: Database, agent_id: str) -> IdentityRecord:
    """IdentityStore.get(agent_id) in one SQLite statement (the read path's, on every cache miss): the overrides,
    the agent's narrative and active facts (by id), the global narrative as shared_content."""
    rows = db.query(
        "SELECT 0, overrides, content, 0, 0, 0 FROM identity WHERE id = 1"
        " UNION ALL SELECT 1, content, model, generated_at_ms, version, 0 FROM agent_narratives WHERE agent_id = ?"
        " UNION ALL SELECT 2, id, content, source_episode_id, source_count, created_at_ms FROM identity_facts"
        " WHERE agent_id = ? AND status = 'active'",
        (agent_id, agent_id),
    )
    shared = next((r for r in rows if r[0] == 0), None)
    own = next((r for r in rows if r[0] == 1), None)
    facts = sorted((r for r in rows if r[0] == 2), key=lambda r: int(r[1]))
    overrides = parse_overrides(shared[1] if shared is not None else "[]")
    return IdentityRecord(
        overrides=tuple(
            OverrideRecord(str(o.get("id", "")), o["text"], int(o.get("created_at_ms", 0) or 0))
            for o in overrides
        ),
        content=own[1] if own is not None else "",
        facts=tuple(
            IdentityFactRecord(
                id=str(f[1]),
                text=f[2],
                source_agent_id=agent_id,
                source_episode_id=int(f[3] or 0),
                source_count=f[4],
                created_at_ms=f[5],
            )
            for f in facts
        ),
        model=own[2] if own is not None else "",
        generated_at_ms=own[3] if own is not None else 0,
        version=own[4] if own is not None else 0,
        agent_id=agent_id,
        shared_content=shared[2] if shared is not None else "",
    )


def episode_decisions(db: Database, agent_id: str, episode_ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
    """Decision lines of the given episodes of one agent."""
    if not episode_ids:
        return {}
    marks = ",".join("?" * len(episode_ids))
    rows = db.query(
        f"SELECT id, decisions FROM episodes WHERE agent_id = ? AND id IN ({marks})", (agent_id, *episode_ids)
    )
    return {
        int(row_id): tuple(line for line in (text or "").splitlines() if line.strip())
        for row_id, text in rows
    }


def bump_pinned_usage(db: Database, agent_id: str, fact_ids: Sequence[int], used_at_ms: int) -> None:
    """use_count + 1 and last_used = used_at_ms for exactly these facts of this agent. Bookkeeping: no search
    reads either column, so the store's generation stays (read-side caches and the keyword statistics keep; every
    assembly that placed pinned facts used to make the next one recount them, issue #21 pgread4)."""
    if not fact_ids:
        return
    if db.dialect.is_postgres:
        # One autocommitted statement, the ids as one array (one prepared text): one round trip on the read path
        # instead of BEGIN, UPDATE, COMMIT (issue #21, pgread3). The rows are locked in id order first: two
        # assemblies bumping overlapping facts in scan order could each hold a row the other waits for (deadlock).
        db.write_one(
            "UPDATE pinned_facts AS p SET use_count = p.use_count + 1, last_used_at_ms = ? "
            "FROM (SELECT id FROM pinned_facts WHERE agent_id = ? AND id = ANY(?::bigint[]) "
            "ORDER BY id FOR UPDATE) AS locked WHERE p.id = locked.id",
            (used_at_ms, agent_id, [int(i) for i in fact_ids]),
            content=False,
        )
        return
    marks = ",".join("?" * len(fact_ids))
    db.write_one(
        f"UPDATE pinned_facts SET use_count = use_count + 1, last_used_at_ms = ? "
        f"WHERE agent_id = ? AND id IN ({marks})",
        (used_at_ms, agent_id, *fact_ids),
        content=False,
    )


def corrections(db: Database, agent_id: str) -> list[tuple[str, str]]:
    """(superseded text, the text of the fact that replaced it) for this agent's pinned and identity facts whose
    replacement is still active: what the user corrected, so the read path can leave the old value out. The
    replacement may sit in the other table (an identity fact replaced by a newer pinned fact in its slot)."""
    out: list[tuple[str, str]] = []
    for table in ("pinned_facts", "identity_facts"):
        for new_table in ("pinned_facts", "identity_facts"):
            by_table = "" if new_table == table else new_table
            rows = db.query(
                f"SELECT old.content, new.content FROM {table} AS old JOIN {new_table} AS new"
                " ON new.id = old.superseded_by AND new.agent_id = old.agent_id"
                " WHERE old.agent_id = ? AND old.status = 'superseded' AND old.superseded_by_table = ?"
                " AND new.status = 'active' ORDER BY old.id DESC LIMIT 200",
                (agent_id, by_table),
            )
            out.extend((str(old), str(new)) for old, new in rows)
    return out


#: A provenance id as stored: "12" or "t:12" is a transcript row; "s:40" is a signal (not a transcript row).
_TRANSCRIPT_ID = re.compile(r"^(?:t:)?(\d+)$")


def _transcript_ids(csv: str) -> set[int]:
    return {
        int(m.group(1)) for item in csv.split(",") if (m := _TRANSCRIPT_ID.match(item.strip())) is not None
    }


def stale_turns(db: Database, agent_id: str) -> list[str]:
    """The transcript rows (their text) that are a source of a superseded fact and of no active fact: the user's own
    words of a value since corrected ("the beta is on December 15" once it moved to the 18th)."""
    stale: set[int] = set()
    current: set[int] = set()
    for table in ("pinned_facts", "identity_facts"):
        rows = db.query(
            f"SELECT status, source_turn_ids FROM {table} WHERE agent_id = ? AND source_turn_ids != ''"
            " AND status IN ('active', 'superseded') ORDER BY id DESC LIMIT 2000",
            (agent_id,),
        )
        for status, ids in rows:
            (stale if status == "superseded" else current).update(_transcript_ids(str(ids)))
    only_stale = sorted(stale - current)[-200:]
    if not only_stale:
        return []
    marks = ",".join("?" * len(only_stale))
    rows = db.query(
        f"SELECT content FROM transcript WHERE agent_id = ? AND id IN ({marks})", (agent_id, *only_stale)
    )
    return [str(content) for (content,) in rows]


def add_pinned_usage(db: Database, agent_id: str, uses: Mapping[int, tuple[int, int]]) -> None:
    """use_count + n and last_used_at_ms = max(itself, stamp) for each fact id → (n, stamp) of this agent, in one
    bookkeeping transaction (the SQLite flusher's batch, memoryd/read/pinned_usage.py). A missing id changes nothing."""
    if not uses:
        return
    rows = [(n, stamp, agent_id, fact_id) for fact_id, (n, stamp) in sorted(uses.items())]
    with db.write(content=False):
        db.executemany(
            "UPDATE pinned_facts SET use_count = use_count + ?, last_used_at_ms = MAX(last_used_at_ms, ?) "
            "WHERE agent_id = ? AND id = ?",
            rows,
        )


class ReadQueries:
    """The read path's statements on one store, so the read path holds a typed store and never the database."""

    def __init__(self, db: Database) -> None:
        self._db = db

    @property
    def generation(self) -> int:
        """A counter that moves on every committed write that can change what a search finds (not on the usage
        bump): keys read-side caches to the store's state."""
        return self._db.generation

    def known_entities(self, agent_id: str, now_ms: int) -> list[str]:
        """See known_entities."""
        return known_entities(self._db, agent_id, now_ms)

    def agent_identity(self, agent_id: str) -> IdentityRecord:
        """See agent_identity (SQLite only; PostgreSQL reads IdentityStore.get)."""
        return agent_identity(self._db, agent_id)

    def episode_decisions(self, agent_id: str, episode_ids: Sequence[int]) -> dict[int, tuple[str, ...]]:
        """See episode_decisions."""
        return episode_decisions(self._db, agent_id, episode_ids)

    def bump_pinned_usage(self, agent_id: str, fact_ids: Sequence[int], used_at_ms: int) -> None:
        """See bump_pinned_usage."""
        bump_pinned_usage(self._db, agent_id, fact_ids, used_at_ms)

    def add_pinned_usage(self, agent_id: str, uses: Mapping[int, tuple[int, int]]) -> None:
        """See add_pinned_usage (SQLite)."""
        add_pinned_usage(self._db, agent_id, uses)

    def corrections(self, agent_id: str) -> list[tuple[str, str]]:
        """See corrections."""
        return corrections(self._db, agent_id)

    def stale_turns(self, agent_id: str) -> list[str]:
        """See stale_turns."""
        return stale_turns(self._db, agent_id)

    def rows_in_window(self, kind: str, agent_id: str, start_ms: int, end_ms: int, limit: int) -> list[int]:
        """See memoryd.storage.dated.rows_in_window."""
        return rows_in_window(self._db, kind, agent_id, start_ms, end_ms, limit)
