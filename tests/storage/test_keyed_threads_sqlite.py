"""The swappable database closes the connections of threads that have ended (each held a page cache: a leak of
~16 MB/s under the soak's distillation traffic before), and go_offline still closes every live one."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from memoryd.storage.db import Database

pytestmark = pytest.mark.sqlite_only


def _query_in_a_thread(db: Database) -> None:
    thread = threading.Thread(target=lambda: db.query("SELECT count(*) FROM t"))
    thread.start()
    thread.join()


def test_connections_of_ended_threads_are_closed(tmp_path: Path) -> None:
    db = Database(tmp_path / "memory.sqlite")
    db.execute("CREATE TABLE t (x)")
    for _ in range(40):
        _query_in_a_thread(db)
    registered = len(db.pw._open)  # the registry is what leaked
    # This thread's, and at most the last ended thread's (pruned when the next connection opens).
    assert registered <= 2, registered
    db.close()


def test_go_offline_closes_live_threads_connections(tmp_path: Path) -> None:
    db = Database(tmp_path / "memory.sqlite")
    db.execute("CREATE TABLE t (x)")
    opened, release = threading.Event(), threading.Event()

    def hold() -> None:
        db.query("SELECT count(*) FROM t")
        opened.set()
        release.wait(5)

    worker = threading.Thread(target=hold)
    worker.start()
    assert opened.wait(5)
    assert len(db.pw._open) == 2
    db.pw.go_offline()
    assert db.pw._open == {}
    db.pw.go_online(str(db.path), None)
    release.set()
    worker.join()
    assert db.query("SELECT count(*) FROM t") == [(0,)]
