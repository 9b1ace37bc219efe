"""The few SQL fragments that differ between SQLite and PostgreSQL, rendered by one small object per backend.

The row stores write their statements once, in the SQL both databases accept (`?` placeholders, which the
PostgreSQL handle translates: memoryd/storage/pg_placeholders.py; `INSERT … ON CONFLICT`; `RETURNING id`). What no common
spelling exists for goes through `db.dialect`: scalar max/min of several values, and SQLite's `+col` (which keeps
its planner off an index; PostgreSQL has no such operator and needs no such hint).
"""

from __future__ import annotations

from dataclasses import dataclass

SQLITE = "sqlite"
POSTGRES = "postgres"


@dataclass(frozen=True)
class Dialect:
    """Which backend a handle speaks to, and its spelling of the fragments that differ."""

    name: str

    @property
    def is_postgres(self) -> bool:
        """Whether this is PostgreSQL."""
        return self.name == POSTGRES

    def greatest(self, *exprs: str) -> str:
        """The largest of several values (SQLite's scalar max(a, b, …), PostgreSQL's GREATEST)."""
        return f"{'greatest' if self.is_postgres else 'max'}({', '.join(exprs)})"

    def least(self, *exprs: str) -> str:
        """The smallest of several values (SQLite's scalar min(a, b, …), PostgreSQL's LEAST)."""
        return f"{'least' if self.is_postgres else 'min'}({', '.join(exprs)})"

    @property
    def like(self) -> str:
        """The operator of a case-insensitive LIKE (SQLite's LIKE folds ASCII case; PostgreSQL's ILIKE)."""
        return "ILIKE" if self.is_postgres else "LIKE"

    def unindexed(self, column: str) -> str:
        """`column` as an expression the planner will not use an index for (SQLite's unary plus)."""
        return column if self.is_postgres else f"+{column}"


SQLITE_DIALECT = Dialect(SQLITE)
POSTGRES_DIALECT = Dialect(POSTGRES)

__all__ = ["POSTGRES", "POSTGRES_DIALECT", "SQLITE", "SQLITE_DIALECT", "Dialect"]
