"""The frozen SQL of migrations 1-8 (memoryd/storage/migrations.py): history, never edited.

The current schema is defined once, by the models in memoryd/storage/tables.py; these statements are how a store
of any earlier version reached it, so they stay what they were when each migration shipped even when the models
move on (a change of schema is a new migration). tests/unit/test_storage_schema.py checks that running them all
yields exactly the schema the models declare.
"""

from __future__ import annotations

#: The tokenizer every FTS mirror uses (migration 4): folds case and accents so non-English queries match, and
#: indexes Porter stems so "painting" finds "paintings" and "painted" (retrieval/stem.py mirrors it for re-scoring).
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"
#: The tokenizer migration 2 created the mirrors with (kept so that migration stays what it was).
FTS_TOKENIZER_V2 = "unicode61 remove_diacritics 2"

#: Single-token, exact FTS key of an agent: 'a' + hex(utf-8 bytes). Indexed in each mirror so a MATCH can be
#: restricted to one agent inside FTS5 itself (its bm25 weight is 0, so it never changes a score).
AGENT_KEY_EXPR = "('a' || hex(agent_id))"

CORE_TABLES: tuple[str, ...] = (
    """
    CREATE TABLE agents (
        agent_id TEXT PRIMARY KEY NOT NULL,
        display_name TEXT NOT NULL DEFAULT '',
        memory_enabled INTEGER NOT NULL DEFAULT 1,
        search_memory_enabled INTEGER NOT NULL DEFAULT 0,
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL
    )
    """,
    """
    CREATE TABLE identity (
        id INTEGER PRIMARY KEY CHECK (id = 1),
        content TEXT NOT NULL DEFAULT '',
        overrides TEXT NOT NULL DEFAULT '[]',
        token_count INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL DEFAULT 0,
        model TEXT NOT NULL DEFAULT '',
        generated_at_ms INTEGER NOT NULL DEFAULT 0
    )
    """,
    "INSERT INTO identity (id) VALUES (1)",
    """
    CREATE TABLE identity_facts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        content TEXT NOT NULL,
        source_episode_id INTEGER,
        source_count INTEGER NOT NULL DEFAULT 1,
        status TEXT NOT NULL DEFAULT 'active',
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL
    )
    """,
    "CREATE INDEX idx_identity_facts_agent ON identity_facts (agent_id, status)",
    f"""
    CREATE TABLE pinned_facts (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        content TEXT NOT NULL,
        salience REAL NOT NULL DEFAULT 0.5,
        source_count INTEGER NOT NULL DEFAULT 1,
        source_episode_id INTEGER,
        source_conversation_id TEXT,
        use_count INTEGER NOT NULL DEFAULT 0,
        last_used_at_ms INTEGER NOT NULL DEFAULT 0,
        status TEXT NOT NULL DEFAULT 'active',
        tags_csv TEXT NOT NULL DEFAULT '',
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL,
        last_decayed_at_ms INTEGER NOT NULL DEFAULT 0,
        agent_key TEXT GENERATED ALWAYS AS {AGENT_KEY_EXPR} VIRTUAL
    )
    """,
    "CREATE INDEX idx_pinned_agent_status ON pinned_facts (agent_id, status, salience DESC)",
    f"""
    CREATE TABLE episodes (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        summary TEXT NOT NULL,
        topics_csv TEXT NOT NULL DEFAULT '',
        entities_csv TEXT NOT NULL DEFAULT '',
        decisions TEXT NOT NULL DEFAULT '',
        action_items TEXT NOT NULL DEFAULT '',
        salience REAL NOT NULL DEFAULT 0.5,
        token_count INTEGER NOT NULL DEFAULT 0,
        model TEXT NOT NULL DEFAULT '',
        conversation_at_ms INTEGER NOT NULL,
        status TEXT NOT NULL DEFAULT 'active',
        created_at_ms INTEGER NOT NULL,
        last_decayed_at_ms INTEGER NOT NULL DEFAULT 0,
        agent_key TEXT GENERATED ALWAYS AS {AGENT_KEY_EXPR} VIRTUAL
    )
    """,
    "CREATE INDEX idx_episodes_agent_at ON episodes (agent_id, status, conversation_at_ms DESC)",
    "CREATE INDEX idx_episodes_conv ON episodes (agent_id, conversation_id)",
    f"""
    CREATE TABLE transcript (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        chunk_index INTEGER NOT NULL,
        role TEXT NOT NULL,
        content TEXT NOT NULL,
        token_count INTEGER NOT NULL DEFAULT 0,
        title TEXT,
        created_at_ms INTEGER NOT NULL,
        agent_key TEXT GENERATED ALWAYS AS {AGENT_KEY_EXPR} VIRTUAL
    )
    """,
    "CREATE INDEX idx_transcript_conv ON transcript (agent_id, conversation_id, chunk_index)",
    "CREATE INDEX idx_transcript_agent_created ON transcript (agent_id, created_at_ms DESC)",
    """
    CREATE TABLE pending_signals (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL,
        conversation_id TEXT NOT NULL,
        user_message TEXT NOT NULL,
        assistant_message TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        occurred_at_ms INTEGER NOT NULL,
        created_at_ms INTEGER NOT NULL,
        updated_at_ms INTEGER NOT NULL
    )
    """,
    "CREATE INDEX idx_pending_conv_status ON pending_signals (agent_id, conversation_id, status)",
    "CREATE INDEX idx_pending_status ON pending_signals (status, created_at_ms)",
    """
    CREATE TABLE processing_log (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        agent_id TEXT NOT NULL DEFAULT '',
        task_type TEXT NOT NULL,
        model TEXT NOT NULL DEFAULT '',
        status TEXT NOT NULL,
        details TEXT NOT NULL DEFAULT '',
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        duration_ms INTEGER NOT NULL DEFAULT 0,
        created_at_ms INTEGER NOT NULL
    )
    """,
    "CREATE INDEX idx_processing_log_created ON processing_log (created_at_ms)",
    """
    CREATE TABLE embeddings (
        kind TEXT NOT NULL,
        row_id INTEGER NOT NULL,
        agent_id TEXT NOT NULL,
        model TEXT NOT NULL,
        dimension INTEGER NOT NULL,
        vector BLOB NOT NULL,
        created_at_ms INTEGER NOT NULL,
        PRIMARY KEY (kind, row_id)
    )
    """,
    "CREATE INDEX idx_embeddings_agent_model ON embeddings (agent_id, model)",
    # Deleting a row deletes its stored vector, whoever deletes it (console, writer, consolidator, agent delete).
    "CREATE TRIGGER pinned_facts_emb_ad AFTER DELETE ON pinned_facts BEGIN "
    "DELETE FROM embeddings WHERE kind = 'pinned_fact' AND row_id = old.id; END",
    "CREATE TRIGGER episodes_emb_ad AFTER DELETE ON episodes BEGIN "
    "DELETE FROM embeddings WHERE kind = 'episode' AND row_id = old.id; END",
    "CREATE TRIGGER transcript_emb_ad AFTER DELETE ON transcript BEGIN "
    "DELETE FROM embeddings WHERE kind = 'transcript' AND row_id = old.id; END",
)

#: (fts table, source table, indexed text columns, bm25 weights for those columns).
FTS_MIRRORS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("fts_pinned", "pinned_facts", ("content",)),
    ("fts_episodes", "episodes", ("summary", "topics_csv", "entities_csv")),
    ("fts_transcript", "transcript", ("content",)),
)


def fts_statements(
    fts: str, source: str, columns: tuple[str, ...], tokenizer: str = FTS_TOKENIZER
) -> list[str]:
    """CREATE VIRTUAL TABLE, the three sync triggers, and the one-pass backfill for one mirror."""
    cols = [*columns, "agent_key"]
    col_list = ", ".join(cols)
    new_vals = ", ".join(f"new.{c}" for c in cols)
    old_vals = ", ".join(f"old.{c}" for c in cols)
    watched = ", ".join([*columns, "agent_id"])
    return [
        f"CREATE VIRTUAL TABLE {fts} USING fts5({col_list}, content='{source}', content_rowid='id', "
        f"tokenize='{tokenizer}')",
        f"CREATE TRIGGER {source}_ai AFTER INSERT ON {source} BEGIN "
        f"INSERT INTO {fts} (rowid, {col_list}) VALUES (new.id, {new_vals}); END",
        f"CREATE TRIGGER {source}_ad AFTER DELETE ON {source} BEGIN "
        f"INSERT INTO {fts} ({fts}, rowid, {col_list}) VALUES ('delete', old.id, {old_vals}); END",
        # Only a change of indexed text re-indexes a row, so the daily salience decay causes no FTS churn.
        f"CREATE TRIGGER {source}_au AFTER UPDATE OF {watched} ON {source} BEGIN "
        f"INSERT INTO {fts} ({fts}, rowid, {col_list}) VALUES ('delete', old.id, {old_vals}); "
        f"INSERT INTO {fts} (rowid, {col_list}) VALUES (new.id, {new_vals}); END",
        f"INSERT INTO {fts} (rowid, {col_list}) SELECT id, {col_list} FROM {source}",
    ]


def fts_drop_statements(fts: str, source: str) -> list[str]:
    """Drop one mirror and its sync triggers (the source table and its rows are untouched)."""
    return [
        *(f"DROP TRIGGER IF EXISTS {source}_{suffix}" for suffix in ("ai", "ad", "au")),
        f"DROP TABLE IF EXISTS {fts}",
    ]


#: Migration 5 (grounded distillation): provenance and supersession on every derived row.
#: source_turn_ids: comma-separated transcript ids the row was derived from (verified against them);
#: slot: a stable key such as "identity.home" — a newer fact in the same slot supersedes the older one;
#: superseded_by: the id of the fact that replaced this one (its status is then 'superseded', kept for history,
#: never injected); kind: identity / preference / instruction / relation / plan / decision / action_item;
#: summary_source: "model" when the core model's summary passed verification, "extractive" otherwise.
PROVENANCE_COLUMNS: tuple[str, ...] = (
    "ALTER TABLE pinned_facts ADD COLUMN source_turn_ids TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE pinned_facts ADD COLUMN slot TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE pinned_facts ADD COLUMN kind TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE pinned_facts ADD COLUMN superseded_by INTEGER",
    "ALTER TABLE identity_facts ADD COLUMN source_turn_ids TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE identity_facts ADD COLUMN slot TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE identity_facts ADD COLUMN superseded_by INTEGER",
    "ALTER TABLE episodes ADD COLUMN source_turn_ids TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE episodes ADD COLUMN summary_source TEXT NOT NULL DEFAULT ''",
    "CREATE INDEX idx_pinned_slot ON pinned_facts (agent_id, slot) WHERE slot != ''",
    "CREATE INDEX idx_identity_facts_slot ON identity_facts (agent_id, slot) WHERE slot != ''",
)

#: Migration 8 (supersession across tables): the table of the fact that replaced this one. "" for a replacement in
#: the row's own table (every row superseded before 8); "identity_facts" for a pinned fact replaced by a newer
#: identity fact in its slot, "pinned_facts" for an identity fact replaced by a newer pinned fact.
SUPERSEDED_BY_TABLE: tuple[str, ...] = (
    "ALTER TABLE pinned_facts ADD COLUMN superseded_by_table TEXT NOT NULL DEFAULT ''",
    "ALTER TABLE identity_facts ADD COLUMN superseded_by_table TEXT NOT NULL DEFAULT ''",
)

#: Migration 7 (identity per agent): each agent's narrative, written by the consolidation step from that agent's
#: identity facts only (docs/identity.md). model: the model whose verified reply it is, or "extractive" (the
#: agent's facts joined, used when no model is set or its reply failed verification); facts_digest: the step's
#: fingerprint of the facts and model it was built from (unchanged digest → no model call); version: +1 per write.
AGENT_NARRATIVES: tuple[str, ...] = (
    """
    CREATE TABLE agent_narratives (
        agent_id TEXT PRIMARY KEY NOT NULL,
        content TEXT NOT NULL DEFAULT '',
        token_count INTEGER NOT NULL DEFAULT 0,
        model TEXT NOT NULL DEFAULT '',
        facts_digest TEXT NOT NULL DEFAULT '',
        generated_at_ms INTEGER NOT NULL DEFAULT 0,
        version INTEGER NOT NULL DEFAULT 0
    )
    """,
)
