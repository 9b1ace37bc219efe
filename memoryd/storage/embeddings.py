"""The embeddings table: one vector blob per (kind, row) with its model, so index rebuilds never re-embed."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

from memoryd.domain import KINDS, now_ms
from memoryd.storage.fts import MIRRORS
from memoryd.storage.handle import Database

#: Storing a vector replaces the row's earlier one (the upsert both backends accept; after INSERT … SELECT, whose
#: WHERE keeps SQLite from reading ON CONFLICT as a join constraint).
VECTOR_UPSERT = (
    "ON CONFLICT (kind, row_id) DO UPDATE SET agent_id = excluded"
    ".agent_id, model = excluded.model, dimension = excluded.dimension, vector = excluded.vector, created_at_ms = excluded.created_at_ms"
)


class EmbeddingStore:
    """Stores and lists vectors; rows without a vector for the current model are found by missing()."""

    def __init__(self, db: Database) -> None:
        self._db = db

    def put(
        self, kind: str, agent_id: str, model: str, dimension: int, items: Sequence[tuple[int, bytes]]
    ) -> int:
        """Insert or replace vectors of rows that still exist; returns how many were stored."""
        if not items:
            return 0
        stamp = now_ms()
        source = MIRRORS[kind].source
        stored = 0
        with self._db.write():
            for row_id, blob in items:
                cursor = self._db.execute(
                    f"INSERT INTO embeddings (kind, row_id, agent_id, model, dimension, vector, "
                    f"created_at_ms) SELECT ?, ?, ?, ?, ?, ?, ? WHERE EXISTS "
                    f"(SELECT 1 FROM {source} WHERE id = ? AND agent_id = ?) {VECTOR_UPSERT}",
                    (kind, row_id, agent_id, model, dimension, blob, stamp, row_id, agent_id),
                )
                stored += cursor.rowcount
        return stored

    def iter_agent(
        self, agent_id: str, model: str, batch: int = 2000
    ) -> Iterator[list[tuple[str, int, bytes]]]:
        """(kind, row_id, blob) of one agent and model, in batches."""
        last_kind, last_id = "", -1
        while True:
            rows = self._db.query(
                "SELECT kind, row_id, vector FROM embeddings WHERE agent_id = ? AND model = ? "
                "AND (kind > ? OR (kind = ? AND row_id > ?)) ORDER BY kind, row_id LIMIT ?",
                (agent_id, model, last_kind, last_kind, last_id, batch),
            )
            if not rows:
                return
            yield [(str(r[0]), int(r[1]), bytes(r[2])) for r in rows]
            last_kind, last_id = rows[-1][0], rows[-1][1]

    def count(self, agent_id: str, model: str) -> int:
        """Vectors stored for one agent and model."""
        return int(
            self._db.scalar(
                "SELECT count(*) FROM embeddings WHERE agent_id = ? AND model = ?", (agent_id, model)
            )
            or 0
        )

    def missing(
        self, model: str, limit: int, agent_id: str | None = None, after: Mapping[str, int] | None = None
    ) -> list[tuple[str, str, int]]:
        """(kind, agent_id, row_id) of rows without a vector for `model`, by id, skipping ids <= after[kind]."""
        found: list[tuple[str, str, int]] = []
        for kind in KINDS:
            if len(found) >= limit:
                break
            source = MIRRORS[kind].source
            agent_clause = "AND s.agent_id = ?" if agent_id is not None else ""
            params: tuple[object, ...] = (kind, model, (after or {}).get(kind, 0))
            if agent_id is not None:
                params = (*params, agent_id)
            rows = self._db.query(
                f"SELECT s.agent_id, s.id FROM {source} AS s LEFT JOIN embeddings AS e "
                f"ON e.kind = ? AND e.row_id = s.id AND e.model = ? "
                f"WHERE s.id > ? AND e.row_id IS NULL {agent_clause} ORDER BY s.id LIMIT ?",
                (*params, limit - len(found)),
            )
            found.extend((kind, str(r[0]), int(r[1])) for r in rows)
        return found

    def owners(self, kind: str, row_ids: Sequence[int]) -> dict[str, list[int]]:
        """agent → those of the given rows of `kind` that have a stored vector."""
        owners: dict[str, list[int]] = {}
        if row_ids:
            marks = ", ".join("?" * len(row_ids))
            for row_id, agent_id in self._db.query(
                f"SELECT row_id, agent_id FROM embeddings WHERE kind = ? AND row_id IN ({marks})",
                (kind, *row_ids),
            ):
                owners.setdefault(str(agent_id), []).append(int(row_id))
        return owners

    def delete_rows(self, kind: str, row_ids: Sequence[int]) -> int:
        """Delete the vectors of these rows."""
        if not row_ids:
            return 0
        with self._db.write():
            marks = ", ".join("?" * len(row_ids))
            return int(
                self._db.execute(
                    f"DELETE FROM embeddings WHERE kind = ? AND row_id IN ({marks})", (kind, *row_ids)
                ).rowcount
            )

    def delete_other_models(self, model: str) -> int:
        """Drop vectors made by any other model (after an embedding-model change)."""
        with self._db.write():
            return int(self._db.execute("DELETE FROM embeddings WHERE model <> ?", (model,)).rowcount)
