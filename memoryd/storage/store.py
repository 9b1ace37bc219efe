"""Opens the memory store: database, migrations, bound models and the per-table-family stores."""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memoryd.storage.agents import AgentStore
from memoryd.storage.console_rows import ConsoleRowStore
from memoryd.storage.consolidation import ConsolidationStore
from memoryd.storage.db import Database
from memoryd.storage.embeddings import EmbeddingStore
from memoryd.storage.fts import FtsIndex
from memoryd.storage.handle import Database as AnyDatabase
from memoryd.storage.health import HealthStore
from memoryd.storage.identity import IdentityStore
from memoryd.storage.listing import ListingStore
from memoryd.storage.migrations import current_version, migrate
from memoryd.storage.pg_db import DEFAULT_SCHEMA, InvalidSchemaNameError, PgDatabase
from memoryd.storage.read_queries import ReadQueries
from memoryd.storage.rows import RowStore
from memoryd.storage.stats import StatsStore
from memoryd.storage.tables import Tables, define_tables
from memoryd.storage.transcript import TurnStore
from memoryd.storage.transfer import TransferStore


@dataclass
class Store:
    """Everything memoryd reads and writes, in SQLite or in one PostgreSQL schema."""

    db: AnyDatabase
    tables: Tables
    agents: AgentStore
    turns: TurnStore
    identity: IdentityStore
    fts: FtsIndex
    rows: RowStore
    embeddings: EmbeddingStore
    stats: StatsStore
    consolidation: ConsolidationStore
    #: The Memory Console's stores: row operations, ListItems' pages, Export/Import, Diagnose's health reads.
    console_rows: ConsoleRowStore
    listing: ListingStore
    transfer: TransferStore
    health: HealthStore
    #: The read path's statements (entities, decisions, corrections, usage bumps, rows in a time window).
    reads: ReadQueries

    @property
    def schema_version(self) -> int:
        """Highest applied migration."""
        return current_version(self.db)

    @property
    def dialect(self) -> str:
        """ "sqlite" or "postgres"."""
        return self.db.dialect.name

    def close(self) -> None:
        """Close this thread's connection."""
        self.db.close()


#: A libpq key=value connection string starts with one of these keywords ("host=/run/postgresql dbname=memory").
_CONNINFO = re.compile(r"^\s*(host|hostaddr|dbname|user|port|service|options|sslmode)\s*=")


def is_database_url(location: Path | str) -> bool:
    """Whether `location` names a PostgreSQL database (a postgresql:// or postgres:// URL, or a libpq key=value
    connection string) rather than a SQLite file."""
    text = str(location)
    return text.startswith(("postgresql://", "postgres://")) or bool(_CONNINFO.match(text))


#: Full text on PostgreSQL (pgsearch's FtsIndex twin): module and class, used when present.
PG_FTS_MODULE = ("memoryd.storage.pg_fts", "PgFtsIndex")


def full_text(db: Database | PgDatabase) -> Any:
    """The store's full-text index: FTS5 on SQLite; on PostgreSQL the tsvector index when it is installed (else the
    FTS5 one, whose queries fail: full text needs memoryd/storage/pg_fts.py)."""
    if isinstance(db, PgDatabase):
        try:
            module = importlib.import_module(PG_FTS_MODULE[0])
        except ModuleNotFoundError:
            return FtsIndex(db)
        return getattr(module, PG_FTS_MODULE[1])(db.percent_queries(), db.schema)
    return FtsIndex(db)


def open_database(
    location: Path | str, *, key: bytes | None = None, schema: str | None = None
) -> Database | PgDatabase:
    """The handle for `location`: a PostgreSQL URL (tables in `schema`, default "public") or a SQLite path."""
    if is_database_url(location):
        if key is not None:
            raise ValueError("a SQLCipher key applies to SQLite files only")
        return PgDatabase(str(location), schema=schema or DEFAULT_SCHEMA)
    if schema is not None:
        raise ValueError("a PostgreSQL schema applies to postgresql:// URLs only")
    return Database(location, key=key)


def open_store(location: Path | str, *, key: bytes | None = None, schema: str | None = None) -> Store:
    """Open (creating if needed) and migrate the store at `location`: a SQLite file (`key` opens it with
    SQLCipher) or a postgresql:// URL, whose PostgreSQL `schema` (created if missing) holds the store's tables."""
    db = open_database(location, key=key, schema=schema)
    try:
        migrate(db)
    except BaseException:
        db.close()
        raise
    tables = define_tables(db.pw)
    agents = AgentStore(db, tables)
    fts = full_text(db)
    return Store(
        db=db,
        tables=tables,
        agents=agents,
        turns=TurnStore(db, tables, agents),
        identity=IdentityStore(db, tables),
        fts=fts,
        rows=RowStore(db),
        embeddings=EmbeddingStore(db),
        stats=StatsStore(db),
        consolidation=ConsolidationStore(db),
        console_rows=ConsoleRowStore(db, fts),
        listing=ListingStore(db),
        transfer=TransferStore(db),
        health=HealthStore(db),
        reads=ReadQueries(db),
    )


__all__ = ["InvalidSchemaNameError", "Store", "full_text", "is_database_url", "open_database", "open_store"]
