"""The schema of memory.sqlite, defined once: peewee models bound per Database (so several stores can live in one
process), with the SQL defaults, indexes, generated columns, FTS5 mirrors and triggers declared next to them.

These models are the current schema. `schema_statements` derives its DDL from them; the ordered migrations
(memoryd/storage/migrations.py) reach it from any earlier version with their own frozen SQL
(memoryd/storage/schema_history.py), which is history and never edited. A change here needs a new migration;
tests/unit/test_storage_schema.py fails until a freshly migrated store has exactly the schema declared here
(tables, columns, defaults, indexes, triggers, mirrors).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, fields
from typing import Any

import peewee
from playhouse.sqlite_ext import AutoIncrementField, FTS5Model, RowIDField, SearchField

#: Single-token, exact FTS key of an agent: 'a' + hex(utf-8 bytes). Indexed in each mirror so a MATCH can be
#: restricted to one agent inside FTS5 itself (its bm25 weight is 0, so it never changes a score).
AGENT_KEY_EXPR = "('a' || hex(agent_id))"
#: The tokenizer every FTS mirror uses: folds case and accents so non-English queries match, and indexes Porter
#: stems so "painting" finds "paintings" and "painted" (retrieval/stem.py mirrors it for re-scoring).
FTS_TOKENIZER = "porter unicode61 remove_diacritics 2"
#: Deleting a row deletes its stored vector, whoever deletes it (console, writer, consolidator, agent delete):
#: source table → the embeddings kind of its rows.
VECTOR_KINDS = {"pinned_facts": "pinned_fact", "episodes": "episode", "transcript": "transcript"}


def _sql_literal(value: object) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, int | float):
        return repr(value)
    return "'" + str(value).replace("'", "''") + "'"


def _with_default(kind: type[peewee.Field], default: object, **options: Any) -> Any:
    """A field whose Python default (peewee inserts) and SQL DEFAULT (plain statements) are the same value."""
    return kind(default=default, constraints=[peewee.SQL(f"DEFAULT {_sql_literal(default)}")], **options)


def text(default: str | None = None, **options: Any) -> Any:
    """A TEXT column (NOT NULL unless null=True), with DEFAULT `default` when given."""
    return (
        peewee.TextField(**options)
        if default is None
        else _with_default(peewee.TextField, default, **options)
    )


def integer(default: int | None = None, **options: Any) -> Any:
    """An INTEGER column (64-bit in SQLite), with DEFAULT `default` when given."""
    if default is None:
        return peewee.BigIntegerField(**options)
    return _with_default(peewee.BigIntegerField, default, **options)


def real(default: float) -> Any:
    """A REAL column NOT NULL DEFAULT `default`."""
    return _with_default(peewee.FloatField, default)


class FlagField(peewee.BooleanField):
    """A boolean stored as INTEGER 0/1 on every backend (the stores' SQL compares flags with 0 and 1)."""

    field_type = "INT"

    def db_value(self, value: Any) -> int | None:
        """0/1 (None stays NULL)."""
        return None if value is None else int(bool(value))


def flag(default: bool) -> Any:
    """A boolean stored as INTEGER 0/1, NOT NULL DEFAULT `default`."""
    return _with_default(FlagField, default)


def agent_key() -> Any:
    """The generated FTS agent key (VIRTUAL: computed on read, never written; never pass it to insert or update)."""
    return peewee.TextField(
        null=True, constraints=[peewee.SQL(f"GENERATED ALWAYS AS {AGENT_KEY_EXPR} VIRTUAL")]
    )


@dataclass(frozen=True)
class Tables:
    """The model classes of one database, in creation order."""

    Agent: Any
    Identity: Any
    IdentityFact: Any
    AgentNarrative: Any
    PinnedFact: Any
    Episode: Any
    Transcript: Any
    PendingSignal: Any
    ProcessingLog: Any
    Embedding: Any
    TurnRequest: Any
    SchemaVersion: Any
    ConsolidationState: Any
    FtsPinned: Any
    FtsEpisodes: Any
    FtsTranscript: Any

    def models(self) -> list[Any]:
        """Every model, in creation order (on PostgreSQL, without the FTS5 mirrors)."""
        return [getattr(self, f.name) for f in fields(self) if getattr(self, f.name) is not None]

    def mirrors(self) -> list[Any]:
        """The FTS5 mirror models."""
        return [m for m in self.models() if issubclass(m, FTS5Model)]


def is_postgres(database: peewee.Database) -> bool:
    """Whether `database` is PostgreSQL (else SQLite)."""
    return isinstance(database, peewee.PostgresqlDatabase)


def define_tables(database: peewee.Database) -> Tables:
    """Model classes bound to `database`: the current schema.

    On PostgreSQL the same tables, columns, defaults and indexes, except what only SQLite's FTS5 uses: no mirrors,
    no generated agent_key columns (full text there is memoryd/storage/pg_search_schema.py's), BIGSERIAL ids where
    SQLite has AUTOINCREMENT, and no WITHOUT ROWID.
    """
    bound = database
    sqlite = not is_postgres(database)
    serial: Any = AutoIncrementField if sqlite else peewee.BigAutoField

    class Base(peewee.Model):
        class Meta:
            database = bound
            legacy_table_names = False

    class Agent(Base):
        agent_id = peewee.TextField(primary_key=True)
        display_name = text("")
        memory_enabled = flag(True)
        search_memory_enabled = flag(False)
        created_at_ms = integer()
        updated_at_ms = integer()

        class Meta:
            table_name = "agents"

    class Identity(Base):
        """The user's overrides and the generated narrative: one row, id 1 (seeded by migration 1)."""

        id = peewee.IntegerField(primary_key=True, constraints=[peewee.Check("id = 1")])
        content = text("")
        overrides = text("[]")
        token_count = integer(0)
        version = integer(0)
        model = text("")
        generated_at_ms = integer(0)

        class Meta:
            table_name = "identity"

    class IdentityFact(Base):
        id = serial()
        agent_id = text()
        content = text()
        source_episode_id = integer(null=True)
        source_count = integer(1)
        status = text("active")
        created_at_ms = integer()
        updated_at_ms = integer()
        # Provenance (migration 5): see PinnedFact.
        source_turn_ids = text("")
        slot = text("")
        superseded_by = integer(null=True)
        # The table of the fact that replaced this one, "" for its own (migration 8).
        superseded_by_table = text("")

        class Meta:
            table_name = "identity_facts"

    IdentityFact.add_index(
        IdentityFact.index(IdentityFact.agent_id, IdentityFact.status, name="idx_identity_facts_agent")
    )
    IdentityFact.add_index(
        IdentityFact.index(IdentityFact.agent_id, IdentityFact.slot, name="idx_identity_facts_slot").where(
            peewee.SQL("slot != ''")
        )
    )

    class AgentNarrative(Base):
        """Each agent's narrative, written by consolidation from that agent's identity facts (docs/identity.md).
        model: the model whose verified reply it is, or "extractive"; facts_digest: the facts and model it was
        built from (unchanged digest → no model call); version: +1 per write."""

        agent_id = peewee.TextField(primary_key=True)
        content = text("")
        token_count = integer(0)
        model = text("")
        facts_digest = text("")
        generated_at_ms = integer(0)
        version = integer(0)

        class Meta:
            table_name = "agent_narratives"

    class PinnedFact(Base):
        id = serial()
        agent_id = text()
        content = text()
        salience = real(0.5)
        source_count = integer(1)
        source_episode_id = integer(null=True)
        source_conversation_id = text(null=True)
        use_count = integer(0)
        last_used_at_ms = integer(0)
        status = text("active")
        tags_csv = text("")
        created_at_ms = integer()
        updated_at_ms = integer()
        last_decayed_at_ms = integer(0)
        if sqlite:
            agent_key = agent_key()
        # Provenance and supersession: source_turn_ids, the transcript ids the row was derived from; slot, a
        # stable key such as "identity.home" (a newer fact in the same slot supersedes the older one);
        # superseded_by, the fact that replaced this one (status 'superseded', kept for history, never injected);
        # kind: identity / preference / instruction / relation / plan / decision / action_item.
        source_turn_ids = text("")
        slot = text("")
        kind = text("")
        superseded_by = integer(null=True)
        # The table of the fact that replaced this one, "" for its own (migration 8).
        superseded_by_table = text("")

        class Meta:
            table_name = "pinned_facts"

    PinnedFact.add_index(
        PinnedFact.index(
            PinnedFact.agent_id, PinnedFact.status, PinnedFact.salience.desc(), name="idx_pinned_agent_status"
        )
    )
    PinnedFact.add_index(
        PinnedFact.index(PinnedFact.agent_id, PinnedFact.slot, name="idx_pinned_slot").where(
            peewee.SQL("slot != ''")
        )
    )

    class Episode(Base):
        id = serial()
        agent_id = text()
        conversation_id = text()
        summary = text()
        topics_csv = text("")
        entities_csv = text("")
        decisions = text("")
        action_items = text("")
        salience = real(0.5)
        token_count = integer(0)
        model = text("")
        conversation_at_ms = integer()
        status = text("active")
        created_at_ms = integer()
        last_decayed_at_ms = integer(0)
        if sqlite:
            agent_key = agent_key()
        source_turn_ids = text("")
        #: "model" when the core model's summary passed verification, "extractive" otherwise.
        summary_source = text("")

        class Meta:
            table_name = "episodes"

    Episode.add_index(
        Episode.index(
            Episode.agent_id, Episode.status, Episode.conversation_at_ms.desc(), name="idx_episodes_agent_at"
        )
    )
    Episode.add_index(Episode.index(Episode.agent_id, Episode.conversation_id, name="idx_episodes_conv"))

    class Transcript(Base):
        id = serial()
        agent_id = text()
        conversation_id = text()
        chunk_index = integer()
        role = text()
        content = text()
        token_count = integer(0)
        title = text(null=True)
        created_at_ms = integer()
        if sqlite:
            agent_key = agent_key()

        class Meta:
            table_name = "transcript"

    Transcript.add_index(
        Transcript.index(
            Transcript.agent_id,
            Transcript.conversation_id,
            Transcript.chunk_index,
            name="idx_transcript_conv",
        )
    )
    Transcript.add_index(
        Transcript.index(
            Transcript.agent_id, Transcript.created_at_ms.desc(), name="idx_transcript_agent_created"
        )
    )

    class PendingSignal(Base):
        id = serial()
        agent_id = text()
        conversation_id = text()
        user_message = text()
        assistant_message = text("")
        status = text("pending")
        attempts = integer(0)
        occurred_at_ms = integer()
        created_at_ms = integer()
        updated_at_ms = integer()

        class Meta:
            table_name = "pending_signals"

    PendingSignal.add_index(
        PendingSignal.index(
            PendingSignal.agent_id,
            PendingSignal.conversation_id,
            PendingSignal.status,
            name="idx_pending_conv_status",
        )
    )
    PendingSignal.add_index(
        PendingSignal.index(PendingSignal.status, PendingSignal.created_at_ms, name="idx_pending_status")
    )

    class ProcessingLog(Base):
        id = serial()
        agent_id = text("")
        task_type = text()
        model = text("")
        status = text()
        details = text("")
        input_tokens = integer(0)
        output_tokens = integer(0)
        duration_ms = integer(0)
        created_at_ms = integer()

        class Meta:
            table_name = "processing_log"

    ProcessingLog.add_index(
        ProcessingLog.index(ProcessingLog.created_at_ms, name="idx_processing_log_created")
    )

    class Embedding(Base):
        """One stored vector per row (kind, row_id) with its model, so an index rebuild never re-embeds."""

        kind = text()
        row_id = integer()
        agent_id = text()
        model = text()
        dimension = integer()
        vector = peewee.BlobField()
        created_at_ms = integer()

        class Meta:
            table_name = "embeddings"
            primary_key = peewee.CompositeKey("kind", "row_id")

    Embedding.add_index(
        Embedding.index(Embedding.agent_id, Embedding.model, name="idx_embeddings_agent_model")
    )

    class TurnRequest(Base):
        """BufferTurn's idempotency keys: (agent, request id) → the first call's ids, for a retry window."""

        agent_id = text()
        request_id = text()
        fingerprint = text()
        signal_id = integer()
        transcript_ids = text()
        created_at_ms = integer()

        class Meta:
            table_name = "turn_requests"
            primary_key = peewee.CompositeKey("agent_id", "request_id")
            without_rowid = sqlite

    TurnRequest.add_index(TurnRequest.index(TurnRequest.created_at_ms, name="turn_requests_created"))

    class SchemaVersion(Base):
        """Applied migrations (memoryd/storage/migrations.py)."""

        version = peewee.IntegerField(primary_key=True)
        name = text()
        applied_at_ms = integer()

        class Meta:
            table_name = "schema_version"

    class ConsolidationState(Base):
        """Consolidation's pass-level watermarks (memoryd.storage.consolidation.StateStore creates it on first use)."""

        key = peewee.TextField(primary_key=True)
        value = text()
        updated_at_ms = integer()

        class Meta:
            table_name = "consolidation_state"

    class FtsBase(FTS5Model):
        rowid = RowIDField()

        class Meta:
            database = bound
            legacy_table_names = False

    # Each mirror: external content (its source table), its text columns then agent_key, in that order (bm25
    # weights are positional: memoryd/storage/fts.py).
    class FtsPinned(FtsBase):
        content = SearchField()  # type: ignore[no-untyped-call]
        agent_key = SearchField()  # type: ignore[no-untyped-call]

        class Meta:
            table_name = "fts_pinned"
            options = {"content": "pinned_facts", "content_rowid": "id", "tokenize": FTS_TOKENIZER}  # noqa: RUF012

    class FtsEpisodes(FtsBase):
        summary = SearchField()  # type: ignore[no-untyped-call]
        topics_csv = SearchField()  # type: ignore[no-untyped-call]
        entities_csv = SearchField()  # type: ignore[no-untyped-call]
        agent_key = SearchField()  # type: ignore[no-untyped-call]

        class Meta:
            table_name = "fts_episodes"
            options = {"content": "episodes", "content_rowid": "id", "tokenize": FTS_TOKENIZER}  # noqa: RUF012

    class FtsTranscript(FtsBase):
        content = SearchField()  # type: ignore[no-untyped-call]
        agent_key = SearchField()  # type: ignore[no-untyped-call]

        class Meta:
            table_name = "fts_transcript"
            options = {"content": "transcript", "content_rowid": "id", "tokenize": FTS_TOKENIZER}  # noqa: RUF012

    mirrors: tuple[Any, Any, Any] = (FtsPinned, FtsEpisodes, FtsTranscript) if sqlite else (None, None, None)
    return Tables(
        Agent=Agent,
        Identity=Identity,
        IdentityFact=IdentityFact,
        AgentNarrative=AgentNarrative,
        PinnedFact=PinnedFact,
        Episode=Episode,
        Transcript=Transcript,
        PendingSignal=PendingSignal,
        ProcessingLog=ProcessingLog,
        Embedding=Embedding,
        TurnRequest=TurnRequest,
        SchemaVersion=SchemaVersion,
        ConsolidationState=ConsolidationState,
        FtsPinned=mirrors[0],
        FtsEpisodes=mirrors[1],
        FtsTranscript=mirrors[2],
    )


def _render(database: peewee.Database, node: Any) -> str:
    context: Any = database.get_sql_context()
    sql, params = context.sql(node).query()
    if params:
        raise ValueError("DDL with bound parameters")
    return str(sql)


def create_table_sql(model: Any, *, safe: bool = False) -> str:
    """CREATE TABLE (IF NOT EXISTS when `safe`) of one model, as its database renders it."""
    return _render(model._meta.database, model._schema._create_table(safe=safe))


def index_sql(model: Any) -> list[str]:
    """CREATE INDEX of each of the model's declared indexes, as its database renders them."""
    return [_render(model._meta.database, index) for index in model._schema._create_indexes(safe=False)]


def mirror_triggers(mirror: Any) -> list[str]:
    """The three triggers that keep an external-content FTS5 mirror in step with its source table."""
    fts = mirror._meta.table_name
    source = mirror._meta.options["content"]
    cols = [f.column_name for f in mirror._meta.sorted_fields if not isinstance(f, RowIDField)]
    col_list = ", ".join(cols)
    new_vals = ", ".join(f"new.{c}" for c in cols)
    old_vals = ", ".join(f"old.{c}" for c in cols)
    watched = ", ".join([*(c for c in cols if c != "agent_key"), "agent_id"])
    return [
        f"CREATE TRIGGER {source}_ai AFTER INSERT ON {source} BEGIN "
        f"INSERT INTO {fts} (rowid, {col_list}) VALUES (new.id, {new_vals}); END",
        f"CREATE TRIGGER {source}_ad AFTER DELETE ON {source} BEGIN "
        f"INSERT INTO {fts} ({fts}, rowid, {col_list}) VALUES ('delete', old.id, {old_vals}); END",
        # Only a change of indexed text re-indexes a row, so the daily salience decay causes no FTS churn.
        f"CREATE TRIGGER {source}_au AFTER UPDATE OF {watched} ON {source} BEGIN "
        f"INSERT INTO {fts} ({fts}, rowid, {col_list}) VALUES ('delete', old.id, {old_vals}); "
        f"INSERT INTO {fts} (rowid, {col_list}) VALUES (new.id, {new_vals}); END",
    ]


def vector_triggers() -> list[str]:
    """Deleting a row deletes its stored vector (VECTOR_KINDS)."""
    return [
        f"CREATE TRIGGER {source}_emb_ad AFTER DELETE ON {source} BEGIN "
        f"DELETE FROM embeddings WHERE kind = '{kind}' AND row_id = old.id; END"
        for source, kind in VECTOR_KINDS.items()
    ]


def _statements(tables: Tables) -> Iterator[str]:
    for model in tables.models():
        yield create_table_sql(model)
        yield from index_sql(model)
    yield from vector_triggers()
    for mirror in tables.mirrors():
        yield from mirror_triggers(mirror)


def schema_statements(database: peewee.Database) -> list[str]:
    """The DDL of the current schema, derived from the models: tables, indexes, FTS5 mirrors and triggers (no rows:
    the identity row is data, seeded by migration 1)."""
    return list(_statements(define_tables(database)))


__all__ = [
    "AGENT_KEY_EXPR",
    "FTS_TOKENIZER",
    "VECTOR_KINDS",
    "Tables",
    "create_table_sql",
    "define_tables",
    "index_sql",
    "is_postgres",
    "mirror_triggers",
    "schema_statements",
    "vector_triggers",
]
