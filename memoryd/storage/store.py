"""Opens the memory store: database, migrations, bound models and the per-table-family stores."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from memoryd.storage.agents import AgentStore
from memoryd.storage.console_rows import ConsoleRowStore
from memoryd.storage.consolidation import ConsolidationStore
from memoryd.storage.db import Database
from memoryd.storage.embeddings import EmbeddingStore
from memoryd.storage.fts import FtsIndex
from memoryd.storage.health import HealthStore
from memoryd.storage.identity import IdentityStore
from memoryd.storage.listing import ListingStore
from memoryd.storage.migrations import current_version, migrate
from memoryd.storage.read_queries import ReadQueries
from memoryd.storage.rows import RowStore
from memoryd.storage.stats import StatsStore
from memoryd.storage.tables import Tables, define_tables
from memoryd.storage.transcript import TurnStore
from memoryd.storage.transfer import TransferStore


@dataclass
class Store:
    """Everything memoryd reads and writes in SQLite."""

    db: Database
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

    def close(self) -> None:
        """Close this thread's connection."""
        self.db.close()


def open_store(path: Path | str, *, key: bytes | None = None) -> Store:
    """Open (creating if needed) and migrate the database at `path`; `key` opens it with SQLCipher."""
    db = Database(path, key=key)
    try:
        migrate(db)
    except BaseException:
        db.close()
        raise
    tables = define_tables(db.pw)
    agents = AgentStore(db, tables)
    return Store(
        db=db,
        tables=tables,
        agents=agents,
        turns=TurnStore(db, tables, agents),
        identity=IdentityStore(db, tables),
        fts=FtsIndex(db),
        rows=RowStore(db),
        embeddings=EmbeddingStore(db),
        stats=StatsStore(db),
        consolidation=ConsolidationStore(db),
        console_rows=ConsoleRowStore(db),
        listing=ListingStore(db),
        transfer=TransferStore(db),
        health=HealthStore(db),
        reads=ReadQueries(db),
    )
