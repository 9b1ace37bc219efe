"""WAL checkpoints during a pass, run by the pass itself outside memoryd's write lock.

With SQLite's autocheckpoint, whichever commit pushes the WAL past 1,000 pages runs the checkpoint: during a pass
that is either the pass's own commit (inside memoryd's write lock, so BufferTurn waits for it) or a BufferTurn's.
The pass turns autocheckpoint off on its own connection and checkpoints (PASSIVE: never blocks a writer) between
batches: after every batch while requests are writing (the WAL then never holds the 1,000 pages that would make
a request's commit checkpoint them), every `quiet_every_s` otherwise (pages rewritten by several batches are then
copied once).
"""

from __future__ import annotations

import time
from collections.abc import Callable

from memoryd.storage.consolidation import WalControl


class WalCheckpointer:
    """Call begin() on the pass thread, maybe() after each committed batch, end() when the pass finishes."""

    def __init__(
        self,
        wal: WalControl,
        *,
        busy: Callable[[], bool] = lambda: True,
        busy_every_s: float = 0.0,
        quiet_every_s: float = 0.2,
    ) -> None:
        self._wal = wal
        self._busy = busy
        self._busy_every_s = busy_every_s
        self._quiet_every_s = quiet_every_s
        self._last = 0.0
        self.checkpoints = 0

    def begin(self) -> None:
        """Stop this connection's commits from checkpointing inside the write lock."""
        self._wal.pause_autocheckpoint()
        self._last = time.perf_counter()

    def maybe(self) -> None:
        """Checkpoint if the interval for the current traffic passed since the last one."""
        every_s = self._busy_every_s if self._busy() else self._quiet_every_s
        if time.perf_counter() - self._last >= every_s:
            self.checkpoint()

    def checkpoint(self) -> None:
        """One PASSIVE checkpoint now (copies what it can; never waits for readers or writers)."""
        self._wal.checkpoint_passive()
        self._last = time.perf_counter()
        self.checkpoints += 1

    def end(self) -> None:
        """Final checkpoint and the default autocheckpoint again."""
        try:
            self.checkpoint()
        finally:
            self._wal.restore_autocheckpoint()
