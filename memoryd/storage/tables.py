"""peewee models of the v2 tables, bound per Database (so several stores can live in one process)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import peewee
from playhouse.sqlite_ext import FTS5Model, RowIDField, SearchField


@dataclass(frozen=True)
class Tables:
    """The model classes of one database. The DDL itself lives in schema.py / migrations.py."""

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
    SchemaVersion: Any
    FtsPinned: Any
    FtsEpisodes: Any
    FtsTranscript: Any


def define_tables(database: peewee.Database) -> Tables:
    """Model classes bound to `database`. Columns mirror schema.CORE_TABLES (generated agent_key omitted)."""
    bound = database

    class Base(peewee.Model):
        class Meta:
            database = bound
            legacy_table_names = False

    class Agent(Base):
        agent_id = peewee.TextField(primary_key=True)
        display_name = peewee.TextField(default="")
        memory_enabled = peewee.BooleanField(default=True)
        search_memory_enabled = peewee.BooleanField(default=False)
        created_at_ms = peewee.BigIntegerField()
        updated_at_ms = peewee.BigIntegerField()

        class Meta:
            table_name = "agents"

    class Identity(Base):
        id = peewee.IntegerField(primary_key=True)
        content = peewee.TextField(default="")
        overrides = peewee.TextField(default="[]")
        token_count = peewee.IntegerField(default=0)
        version = peewee.IntegerField(default=0)
        model = peewee.TextField(default="")
        generated_at_ms = peewee.BigIntegerField(default=0)

        class Meta:
            table_name = "identity"

    class IdentityFact(Base):
        id = peewee.AutoField()
        agent_id = peewee.TextField()
        content = peewee.TextField()
        source_episode_id = peewee.BigIntegerField(null=True)
        source_count = peewee.IntegerField(default=1)
        status = peewee.TextField(default="active")
        created_at_ms = peewee.BigIntegerField()
        updated_at_ms = peewee.BigIntegerField()
        source_turn_ids = peewee.TextField(default="")
        slot = peewee.TextField(default="")
        superseded_by = peewee.BigIntegerField(null=True)
        superseded_by_table = peewee.TextField(default="")

        class Meta:
            table_name = "identity_facts"

    class AgentNarrative(Base):
        agent_id = peewee.TextField(primary_key=True)
        content = peewee.TextField(default="")
        token_count = peewee.IntegerField(default=0)
        model = peewee.TextField(default="")
        facts_digest = peewee.TextField(default="")
        generated_at_ms = peewee.BigIntegerField(default=0)
        version = peewee.IntegerField(default=0)

        class Meta:
            table_name = "agent_narratives"

    class PinnedFact(Base):
        id = peewee.AutoField()
        agent_id = peewee.TextField()
        content = peewee.TextField()
        salience = peewee.FloatField(default=0.5)
        source_count = peewee.IntegerField(default=1)
        source_episode_id = peewee.BigIntegerField(null=True)
        source_conversation_id = peewee.TextField(null=True)
        use_count = peewee.IntegerField(default=0)
        last_used_at_ms = peewee.BigIntegerField(default=0)
        status = peewee.TextField(default="active")
        tags_csv = peewee.TextField(default="")
        created_at_ms = peewee.BigIntegerField()
        updated_at_ms = peewee.BigIntegerField()
        last_decayed_at_ms = peewee.BigIntegerField(default=0)
        source_turn_ids = peewee.TextField(default="")
        slot = peewee.TextField(default="")
        kind = peewee.TextField(default="")
        superseded_by = peewee.BigIntegerField(null=True)
        superseded_by_table = peewee.TextField(default="")

        class Meta:
            table_name = "pinned_facts"

    class Episode(Base):
        id = peewee.AutoField()
        agent_id = peewee.TextField()
        conversation_id = peewee.TextField()
        summary = peewee.TextField()
        topics_csv = peewee.TextField(default="")
        entities_csv = peewee.TextField(default="")
        decisions = peewee.TextField(default="")
        action_items = peewee.TextField(default="")
        salience = peewee.FloatField(default=0.5)
        token_count = peewee.IntegerField(default=0)
        model = peewee.TextField(default="")
        conversation_at_ms = peewee.BigIntegerField()
        status = peewee.TextField(default="active")
        created_at_ms = peewee.BigIntegerField()
        last_decayed_at_ms = peewee.BigIntegerField(default=0)
        source_turn_ids = peewee.TextField(default="")
        summary_source = peewee.TextField(default="")

        class Meta:
            table_name = "episodes"

    class Transcript(Base):
        id = peewee.AutoField()
        agent_id = peewee.TextField()
        conversation_id = peewee.TextField()
        chunk_index = peewee.IntegerField()
        role = peewee.TextField()
        content = peewee.TextField()
        token_count = peewee.IntegerField(default=0)
        title = peewee.TextField(null=True)
        created_at_ms = peewee.BigIntegerField()

        class Meta:
            table_name = "transcript"

    class PendingSignal(Base):
        id = peewee.AutoField()
        agent_id = peewee.TextField()
        conversation_id = peewee.TextField()
        user_message = peewee.TextField()
        assistant_message = peewee.TextField(default="")
        status = peewee.TextField(default="pending")
        attempts = peewee.IntegerField(default=0)
        occurred_at_ms = peewee.BigIntegerField()
        created_at_ms = peewee.BigIntegerField()
        updated_at_ms = peewee.BigIntegerField()

        class Meta:
            table_name = "pending_signals"

    class ProcessingLog(Base):
        id = peewee.AutoField()
        agent_id = peewee.TextField(default="")
        task_type = peewee.TextField()
        model = peewee.TextField(default="")
        status = peewee.TextField()
        details = peewee.TextField(default="")
        input_tokens = peewee.IntegerField(default=0)
        output_tokens = peewee.IntegerField(default=0)
        duration_ms = peewee.IntegerField(default=0)
        created_at_ms = peewee.BigIntegerField()

        class Meta:
            table_name = "processing_log"

    class Embedding(Base):
        kind = peewee.TextField()
        row_id = peewee.BigIntegerField()
        agent_id = peewee.TextField()
        model = peewee.TextField()
        dimension = peewee.IntegerField()
        vector = peewee.BlobField()
        created_at_ms = peewee.BigIntegerField()

        class Meta:
            table_name = "embeddings"
            primary_key = peewee.CompositeKey("kind", "row_id")

    class SchemaVersion(Base):
        version = peewee.IntegerField(primary_key=True)
        name = peewee.TextField()
        applied_at_ms = peewee.BigIntegerField()

        class Meta:
            table_name = "schema_version"

    class FtsBase(FTS5Model):
        rowid = RowIDField()
        agent_key = SearchField()  # type: ignore[no-untyped-call]

        class Meta:
            database = bound
            legacy_table_names = False

    class FtsPinned(FtsBase):
        content = SearchField()  # type: ignore[no-untyped-call]

        class Meta:
            table_name = "fts_pinned"
            options = {"content": "pinned_facts", "content_rowid": "id"}  # noqa: RUF012 - peewee Meta convention

    class FtsEpisodes(FtsBase):
        summary = SearchField()  # type: ignore[no-untyped-call]
        topics_csv = SearchField()  # type: ignore[no-untyped-call]
        entities_csv = SearchField()  # type: ignore[no-untyped-call]

        class Meta:
            table_name = "fts_episodes"
            options = {"content": "episodes", "content_rowid": "id"}  # noqa: RUF012 - peewee Meta convention

    class FtsTranscript(FtsBase):
        content = SearchField()  # type: ignore[no-untyped-call]

        class Meta:
            table_name = "fts_transcript"
            options = {"content": "transcript", "content_rowid": "id"}  # noqa: RUF012 - peewee Meta convention

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
        SchemaVersion=SchemaVersion,
        FtsPinned=FtsPinned,
        FtsEpisodes=FtsEpisodes,
        FtsTranscript=FtsTranscript,
    )
