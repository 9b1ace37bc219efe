"""Export and Import's store: the export_rows and import_rows statements bound to one Database.

memoryd.console (export.py, import_parse.py, import_apply.py) formats and validates records and keeps the id
bookkeeping; every statement it needs is reached through TransferStore.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Iterator, Mapping
from typing import Any

from memoryd.storage import export_rows, import_rows
from memoryd.storage.export_rows import ROW_TABLES
from memoryd.storage.handle import Database
from memoryd.storage.import_rows import ImportedRow

#: (name, declared type, is_required, is_nullable) of one stored column.
Column = tuple[str, str, bool, bool]


class TransferStore:
    """Reads for Export, writes for Import; every write is one short transaction."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def columns(self, record_type: str) -> list[Column]:
        """The stored columns of a row record type's table (generated columns excluded), from the live schema."""
        return export_rows.table_columns(self._db, ROW_TABLES[record_type])

    def records(self, agent_id: str | None) -> Iterator[tuple[str, dict[str, Any]]]:
        """(record type, column values) of all memory or one agent's, from one read snapshot."""
        return export_rows.exported_records(self._db, agent_id)

    def import_identity(self, record: Mapping[str, Any]) -> bool:
        """Add the record's new overrides; take its content only when none is stored. Whether anything changed."""
        return import_rows.import_identity(self._db, record)

    def import_agents(
        self,
        records: Iterable[Mapping[str, Any]],
        columns: Collection[str],
        owners: Iterable[str],
        stamp_ms: int,
    ) -> tuple[int, int]:
        """Create the missing agents, then every owner not yet there; (records created, records skipped)."""
        return import_rows.import_agents(self._db, records, columns, owners, stamp_ms)

    def import_rows(
        self,
        record_type: str,
        records: Iterable[Mapping[str, Any]],
        columns: Collection[str],
        episode_ids: Mapping[int, int],
    ) -> list[ImportedRow]:
        """Insert one batch of rows in one transaction, keeping free ids and skipping identical rows."""
        return import_rows.import_row_batch(self._db, record_type, records, columns, episode_ids)


__all__ = ["Column", "TransferStore"]
