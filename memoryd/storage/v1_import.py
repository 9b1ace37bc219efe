"""Pure-SQL import of an Osaurus 1.x memory store (user_profile, user_edits, summaries, chunks…) into v2 tables."""

from __future__ import annotations

from memoryd.storage.db import Database

#: Tables that mark a store as the 1.x layout.
V1_MARKERS = ("user_profile", "user_edits", "memory_entries", "conversation_summaries", "conversation_chunks")

#: 1.x tables whose names clash with v2 tables; set aside as v1_<name> before the v2 tables are created.
V1_CLASHING = ("schema_version", "embeddings", "pending_signals", "processing_log")

#: Every 1.x table, children before parents so foreign keys never block a DROP.
V1_TABLES = (
    "memory_events",
    "memory_entries",
    "relationships",
    "entities",
    "profile_events",
    "user_profile",
    "user_edits",
    "conversation_summaries",
    "conversation_chunks",
    "conversations",
    "agent_activity",
    "config",
    "v1_embeddings",
    "v1_pending_signals",
    "v1_processing_log",
    "v1_schema_version",
)

# 1.x timestamps are TEXT ("YYYY-MM-DD HH:MM:SS", ISO-8601 with Z, or a bare date); v2 stores UTC epoch ms.
_MS = "CAST(COALESCE(strftime('%s', {col}), strftime('%s', 'now')) AS INTEGER) * 1000"


def _ms(col: str) -> str:
    return _MS.format(col=col)


def _agent(col: str) -> str:
    """UUID agent ids are canonicalised to upper case, as v2 recall keys them."""
    return (
        f"CASE WHEN length({col}) = 36 AND {col} GLOB "
        "'[0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F][0-9a-fA-F]-*-*-*-*' "
        f"THEN upper({col}) ELSE {col} END"
    )


def is_v1_layout(db: Database) -> bool:
    """True when the file holds 1.x tables that have not been imported yet."""
    return any(db.table_exists(name) for name in V1_MARKERS)


def set_aside_clashing_tables(db: Database) -> list[str]:
    """Rename 1.x tables whose names v2 reuses (v1 schema_version has `applied_at`, ours `applied_at_ms`)."""
    renamed: list[str] = []
    for name in V1_CLASHING:
        if not db.table_exists(name):
            continue
        columns = set(db.columns(name))
        is_v2 = {
            "schema_version": "applied_at_ms",
            "embeddings": "row_id",
            "pending_signals": "attempts",
            "processing_log": "created_at_ms",
        }[name] in columns
        if not is_v2:
            db.execute(f'ALTER TABLE "{name}" RENAME TO "v1_{name}"')
            renamed.append(name)
    return renamed


def import_v1(db: Database) -> dict[str, int]:
    """Copy identity, overrides, episodes, transcript and pending signals into v2; drop every 1.x table.

    Runs inside the caller's transaction. memory_entries, events, activity, embeddings and the graph are dropped,
    as the spec's "Migration from v1" says: pinned_facts starts empty and vectors are rebuilt lazily.
    """
    counts: dict[str, int] = {}
    db.execute("PRAGMA defer_foreign_keys = ON")
    if db.table_exists("user_profile"):
        db.execute(
            f"""
            UPDATE identity SET
                content = p.content,
                token_count = length(p.content) / 4,
                version = p.version,
                model = CASE WHEN coalesce(p.model, '') = '' THEN 'v1-import' ELSE p.model END,
                generated_at_ms = {_ms("p.generated_at")}
            FROM (SELECT * FROM user_profile WHERE id = 1 AND trim(content) <> '') AS p
            WHERE identity.id = 1
            """
        )
        counts["identity"] = int(db.scalar("SELECT changes()") or 0)
    if db.table_exists("user_edits"):
        db.execute(
            f"""
            UPDATE identity SET overrides = (
                SELECT coalesce(json_group_array(json_object(
                    'id', 'v1-' || id, 'text', content, 'created_at_ms', {_ms("created_at")})), '[]')
                FROM (SELECT * FROM user_edits WHERE deleted_at IS NULL ORDER BY created_at, id)
            ) WHERE id = 1
            """
        )
        counts["overrides"] = int(
            db.scalar("SELECT json_array_length(overrides) FROM identity WHERE id = 1") or 0
        )
    if db.table_exists("conversation_summaries"):
        cursor = db.execute(
            f"""
            INSERT INTO episodes (agent_id, conversation_id, summary, salience, token_count, model,
                                  conversation_at_ms, status, created_at_ms)
            SELECT {_agent("agent_id")}, conversation_id, summary, 0.5, token_count, coalesce(model, ''),
                   {_ms("conversation_at")},
                   CASE WHEN status = 'active' THEN 'active' ELSE 'disabled' END, {_ms("created_at")}
            FROM conversation_summaries ORDER BY id
            """
        )
        counts["episodes"] = cursor.rowcount
    if db.table_exists("conversation_chunks") and db.table_exists("conversations"):
        cursor = db.execute(
            f"""
            INSERT INTO transcript (agent_id, conversation_id, chunk_index, role, content, token_count, title,
                                    created_at_ms)
            SELECT {_agent("c.agent_id")}, k.conversation_id, k.chunk_index, k.role, k.content, k.token_count, c.title,
                   {_ms("k.created_at")}
            FROM conversation_chunks AS k JOIN conversations AS c ON c.id = k.conversation_id
            ORDER BY k.id
            """
        )
        counts["transcript"] = cursor.rowcount
    if db.table_exists("v1_pending_signals"):
        cursor = db.execute(
            f"""
            INSERT INTO pending_signals (agent_id, conversation_id, user_message, assistant_message, status,
                                         occurred_at_ms, created_at_ms, updated_at_ms)
            SELECT {_agent("agent_id")}, conversation_id, user_message, coalesce(assistant_message, ''), 'pending',
                   {_ms("created_at")}, {_ms("created_at")}, {_ms("created_at")}
            FROM v1_pending_signals WHERE status = 'pending' ORDER BY id
            """
        )
        counts["pending_signals"] = cursor.rowcount
    now_ms = "CAST(strftime('%s', 'now') AS INTEGER) * 1000"
    db.execute(
        f"""
        INSERT OR IGNORE INTO agents (agent_id, created_at_ms, updated_at_ms)
        SELECT agent_id, {now_ms}, {now_ms} FROM (
            SELECT agent_id FROM episodes UNION SELECT agent_id FROM transcript
            UNION SELECT agent_id FROM pending_signals)
        """
    )
    for name in V1_TABLES:
        if db.table_exists(name):
            db.execute(f'DROP TABLE "{name}"')
    return counts
