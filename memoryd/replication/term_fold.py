"""Folds the lexeme-count deltas into search_terms in the background (memoryd/storage/pg_term_stats.py), one
replica at a time: every `interval_s` a round of memoryd.storage.pg_term_fold (advisory try-lock, bounded batches).
A replica killed mid-fold loses nothing: its transaction rolls back, the deltas stay, and the next fold (here or on
another replica) takes them.
"""

from __future__ import annotations

import logging

from memoryd.replication.worker import Worker
from memoryd.storage import pg_term_stats
from memoryd.storage.pg_coordination import Connect
from memoryd.storage.pg_term_fold import PgTermFold

_log = logging.getLogger("memoryd.replication.term_fold")


class TermFolder:
    """fold_once() on demand; start() folds every interval_s on a daemon thread until close()."""

    def __init__(
        self, connect: Connect, schema: str, *, interval_s: float = 2.0, batch: int = pg_term_stats.FOLD_BATCH
    ) -> None:
        self._fold = PgTermFold(connect, schema, batch=batch)
        self._interval_s = interval_s
        self._worker = Worker("memoryd-term-fold", self._run)

    @property
    def folded(self) -> int:
        """Deltas this folder moved so far."""
        return self._fold.folded

    def fold_once(self) -> int | None:
        """One round: the deltas moved, or None when another replica holds the fold lock."""
        return self._fold.fold_once()

    def start(self) -> None:
        """Fold every interval_s on a background thread."""
        self._worker.start()

    def close(self) -> None:
        """Stop folding and close the connection (a fold in progress finishes its batch first)."""
        self._worker.close()
        self._fold.close()

    def _run(self) -> None:
        while not self._worker.stop.wait(self._interval_s):
            try:
                self._fold.fold_once()
            except Exception as error:  # a lost connection or a server restart: the next round retries
                _log.warning("folding the lexeme counts failed: %s", type(error).__name__)


__all__ = ["TermFolder"]
