"""The seam that keeps consolidation to one pass at a time across processes sharing one database.

In one process (SQLite) the Consolidator's own lock is enough and `LOCAL` does nothing more. With several
replicas on PostgreSQL, memoryd.replication supplies a lock held in the database (a session advisory lock) and a
pass marker: `begin()` records that a pass started, `end()` that it finished, so a pass cut short by its
replica's death shows as interrupted and another replica resumes it (every step resumes from its watermarks).
"""

from __future__ import annotations

from typing import Protocol


class PassLock(Protocol):
    """Taken around a pass, after the Consolidator's in-process lock."""

    def try_acquire(self) -> bool:
        """Take the lock unless another process holds it; never waits."""
        ...

    def release(self) -> None:
        """Give it back."""
        ...

    def begin(self, now_ms: int) -> None:
        """A pass starts (the lock is held)."""
        ...

    def end(self, now_ms: int) -> None:
        """The pass finished (the lock is still held)."""
        ...


class LocalPassLock:
    """One process: nothing beyond the Consolidator's own lock."""

    def try_acquire(self) -> bool:
        return True

    def release(self) -> None:
        return None

    def begin(self, now_ms: int) -> None:
        return None

    def end(self, now_ms: int) -> None:
        return None


#: The lock a Consolidator uses when it is given none.
LOCAL: PassLock = LocalPassLock()

__all__ = ["LOCAL", "LocalPassLock", "PassLock"]
