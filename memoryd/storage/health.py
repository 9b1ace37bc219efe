"""Diagnose's checks: row counts per table and agent, FTS mirror health (counts + FTS5 integrity-check), and the
rows per agent the vector report compares with its indexes. On PostgreSQL the full-text and vector-index checks are
health_pg.py's (tsvector columns and GIN indexes, HNSW indexes per kind) instead of FTS5's."""

from __future__ import annotations

from typing import Any

from memoryd.domain import FtsHealth, TableCount
from memoryd.storage.faults import StorageFault
from memoryd.storage.fts import MIRRORS
from memoryd.storage.handle import Database

#: Tables counted overall.
COUNTED_TABLES = (
    "agents",
    "identity_facts",
    "agent_narratives",
    "pinned_facts",
    "episodes",
    "transcript",
    "pending_signals",
    "processing_log",
    "embeddings",
)
#: Tables also counted per agent.
PER_AGENT_TABLES = (
    "identity_facts",
    "agent_narratives",
    "pinned_facts",
    "episodes",
    "transcript",
    "pending_signals",
    "embeddings",
)
#: Tables whose disabled rows are counted separately, reported as "<table>.disabled".
STATUS_TABLES = ("pinned_facts", "episodes")


def table_counts(db: Database) -> list[TableCount]:
    """Overall counts, disabled counts, then per-agent counts (agents sorted), in one read snapshot."""
    counts: list[TableCount] = []
    with db.read():
        for table in COUNTED_TABLES:
            if db.table_exists(table):
                counts.append(TableCount(table, "", int(db.scalar(f"SELECT count(*) FROM {table}") or 0)))
        for table in STATUS_TABLES:
            disabled = int(db.scalar(f"SELECT count(*) FROM {table} WHERE status = 'disabled'") or 0)
            counts.append(TableCount(f"{table}.disabled", "", disabled))
        per_agent: list[TableCount] = []
        for table in PER_AGENT_TABLES:
            if not db.table_exists(table):
                continue
            for agent_id, rows in db.query(f"SELECT agent_id, count(*) FROM {table} GROUP BY agent_id"):
                per_agent.append(TableCount(table, str(agent_id), int(rows)))
        for table in STATUS_TABLES:
            for agent_id, rows in db.query(
                f"SELECT agent_id, count(*) FROM {table} WHERE status = 'disabled' GROUP BY agent_id"
            ):
                per_agent.append(TableCount(f"{table}.disabled", str(agent_id), int(rows)))
    per_agent.sort(key=lambda c: (c.agent_id, c.table))
    return counts + per_agent


def fts_health(db: Database) -> list[FtsHealth]:
    """Per mirror: source rows vs indexed rows, and FTS5's integrity-check against the content table (SQLite only:
    PostgreSQL's full text is a generated column of the row itself, never out of step with it)."""
    report: list[FtsHealth] = []
    if db.dialect.is_postgres:
        return report
    for m in MIRRORS.values():
        with db.read():
            source_rows = int(db.scalar(f"SELECT count(*) FROM {m.source}") or 0)
            if not db.table_exists(m.fts) or not db.table_exists(f"{m.fts}_docsize"):
                report.append(FtsHealth(m.fts, m.source, source_rows, 0, False, "mirror table missing"))
                continue
            # count(*) on an external-content table reads the source; the docsize shadow counts indexed rows.
            fts_rows = int(db.scalar(f"SELECT count(*) FROM {m.fts}_docsize") or 0)
        problem = _integrity_problem(db, m.fts)
        if not problem and fts_rows != source_rows:
            problem = f"{fts_rows} indexed rows for {source_rows} source rows"
        report.append(FtsHealth(m.fts, m.source, source_rows, fts_rows, not problem, problem))
    return report


def _integrity_problem(db: Database, fts: str) -> str:
    """FTS5's integrity-check of one mirror ("" when it passes).

    The check is an INSERT, so it runs as a write of its own: under the process's write lock in a BEGIN IMMEDIATE
    transaction that changes nothing. Inside a read snapshot it had to upgrade to a writer, and SQLite refuses that
    at once ("database is locked", no busy wait) whenever another connection committed since the snapshot began:
    healthy mirrors were reported broken under write load.
    """
    sqlite: Any = db  # the SQLite handle (fts_health returns before this on PostgreSQL)
    try:
        with sqlite.writes_held(), sqlite.pw.atomic("IMMEDIATE"):
            # rank = 1 also compares the index with the external content table.
            db.execute(f"INSERT INTO {fts} ({fts}, rank) VALUES ('integrity-check', 1)")
    except Exception as error:  # peewee wraps sqlite errors; reported, never raised
        # SQLite's own messages ("database disk image is malformed") carry no row content.
        return f"integrity-check failed: {str(error)[:120] or type(error).__name__}"
    return ""


def vector_rows_per_agent(db: Database) -> dict[str, int]:
    """Rows that should have a vector (pinned facts, episodes, transcript turns) per agent; known agents at 0."""
    with db.read():
        rows = {
            str(r[0]): 0
            for r in db.query("SELECT agent_id FROM agents UNION SELECT agent_id FROM embeddings")
        }
        for m in MIRRORS.values():
            for agent_id, count in db.query(f"SELECT agent_id, count(*) FROM {m.source} GROUP BY agent_id"):
                rows[str(agent_id)] = rows.get(str(agent_id), 0) + int(count)
    return dict(sorted(rows.items()))


def stored_dimension(db: Database, agent_id: str, model: str) -> int:
    """Dimension of the agent's stored vectors for `model`, 0 when it has none."""
    return int(
        db.scalar(
            "SELECT dimension FROM embeddings WHERE agent_id = ? AND model = ? LIMIT 1", (agent_id, model)
        )
        or 0
    )


class HealthStore:
    """What Diagnose and Reindex read about one store: counts, FTS and vector coverage, the file, the last fault."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def table_counts(self) -> list[TableCount]:
        """Rows per counted table (table_counts)."""
        return table_counts(self._db)

    def fts_health(self) -> list[FtsHealth]:
        """Each FTS mirror against its source table (fts_health); on PostgreSQL each source table's tsvector
        column and GIN index (health_pg.pg_fts_health)."""
        if self._db.dialect.is_postgres:
            from memoryd.storage.health_pg import pg_fts_health

            return pg_fts_health(self._db, _schema(self._db))
        return fts_health(self._db)

    def vector_index_problems(self) -> dict[str, str]:
        """What is wrong with an agent's database-side vector indexes, per agent with a problem: on PostgreSQL a
        missing or invalid HNSW index of a kind (health_pg); SQLite's faiss files are checked by the registry."""
        if not self._db.dialect.is_postgres:
            return {}
        from memoryd.storage.health_pg import pg_vector_index_problems

        return pg_vector_index_problems(self._db, _schema(self._db))

    def vector_rows_per_agent(self) -> dict[str, int]:
        """Rows that should have a vector, per agent; known agents at 0."""
        return vector_rows_per_agent(self._db)

    def stored_dimension(self, agent_id: str, model: str) -> int:
        """Dimension of the agent's stored vectors for `model`, 0 when it has none."""
        return stored_dimension(self._db, agent_id, model)

    def file_bytes(self) -> int:
        """Size of the database file plus its WAL and shared-memory files."""
        return self._db.file_bytes()

    def current_fault(self) -> StorageFault | None:
        """The storage fault in force (disk full, read-only, corrupt …), or None."""
        return self._db.health.current


def _schema(db: Database) -> str:
    """The PostgreSQL schema the store lives in."""
    return str(getattr(db, "schema"))  # noqa: B009 - PgDatabase's attribute, not on the Database protocol


__all__ = [
    "COUNTED_TABLES",
    "PER_AGENT_TABLES",
    "HealthStore",
    "fts_health",
    "stored_dimension",
    "table_counts",
    "vector_rows_per_agent",
]
