"""Child process for the crash test: runs one consolidation pass and SIGKILLs itself after the N-th committed
batch of a given step (python -m tests.support.consolidate_crash_child HOME NOW_MS STEP N BATCH_ROWS)."""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

from memoryd.config import ConfigStore
from memoryd.storage.store import open_store
from tests.support.consolidate_rows import ManualClock, consolidator


def main(argv: list[str]) -> int:
    home, now_ms, crash_step, crash_after, batch_rows = (
        Path(argv[0]),
        int(argv[1]),
        argv[2],
        int(argv[3]),
        int(argv[4]),
    )
    store = open_store(home / "memory" / "memory.sqlite")
    config = ConfigStore(home / "config" / "memory.json")
    seen = 0

    def on_batch(step: str) -> None:
        nonlocal seen
        if step == crash_step:
            seen += 1
            if seen >= crash_after:
                os.kill(os.getpid(), signal.SIGKILL)  # no cleanup, no rollback handlers: a real crash

    consolidator(store, config, ManualClock(now_ms), batch_rows=batch_rows, on_batch=on_batch).run()
    return 3  # the crash point was never reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
