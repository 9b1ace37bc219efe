"""Builds memoryd.replication's parts for app.py when the store is in PostgreSQL (None for SQLite: today's
one-process behaviour, untouched)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from concurrent.futures import Future
from dataclasses import dataclass, field

from memoryd.consolidate.pass_lock import PassLock
from memoryd.replication.changes import ChangeFeed, Invalidate
from memoryd.replication.claims import ClaimBook
from memoryd.replication.due_queue import DbDueQueue
from memoryd.replication.identity import replica_id
from memoryd.replication.passes import CONSOLIDATION, PassResumer, PassRunner, SharedPassLock
from memoryd.replication.term_fold import TermFolder
from memoryd.storage.pg_advisory import PgAdvisoryLock
from memoryd.storage.pg_coordination import PgCoordination
from memoryd.storage.pg_endpoint import pg_endpoint
from memoryd.storage.pg_notify import PgListener, PgNotifier
from memoryd.storage.store import Store
from memoryd.write import outcome as oc
from memoryd.write.coordinator import Guard
from memoryd.write.debounce import DueQueue

_log = logging.getLogger("memoryd.wiring.replication")


@dataclass
class Replication:
    """One replica's coordination parts; start() once serving, close() after the writer and consolidator."""

    replica: str
    coordination: PgCoordination
    book: ClaimBook
    feed: ChangeFeed
    listener: PgListener
    pass_lock: SharedPassLock
    lease_s: float
    capacity: int
    queue: DbDueQueue | None = None
    resumer: PassResumer | None = None
    #: Folds the lexeme-count deltas every replica's writes append (one replica at a time).
    folder: TermFolder | None = None
    _started: bool = field(default=False, repr=False)

    @property
    def guard(self) -> Guard:
        """The writer's cross-replica hold around foreground runs."""
        return self.book.hold

    @property
    def lock(self) -> PassLock:
        """The consolidator's cross-replica pass lock."""
        return self.pass_lock

    def due_queue(self, submit: Callable[[str, str, str], Future[oc.Outcome]]) -> DueQueue:
        """The writer's deadlines (Writer's due_queue factory)."""
        self.queue = DbDueQueue(
            self.coordination,
            self.book,
            submit,
            lease_s=self.lease_s,
            capacity=self.capacity,
            announce=self.feed.announce_deadline,
        )
        # Deadlines the other replicas set wake this replica's claim loop (LISTEN on the change channel).
        self.feed.on_deadline = self.queue.heard
        return self.queue

    def broadcasting(self, local: Invalidate) -> Invalidate:
        """`local` plus a NOTIFY to the other replicas."""
        return self.feed.broadcasting(local)

    def start(self) -> None:
        """Listen for other replicas' changes and start announcing ours (idempotent)."""
        if not self._started:
            self._started = True
            self.feed.start()
            self.listener.start()
            if self.folder is not None:
                self.folder.start()

    def resume_passes(self, consolidator: PassRunner, *, check_s: float = 30.0) -> None:
        """Resume a consolidation pass another replica left unfinished (checked every check_s)."""
        self.resumer = PassResumer(consolidator, self.coordination, check_s=check_s)
        self.resumer.start()

    def close(self) -> None:
        """Stop every thread and close the connections (this replica's claims lapse or were released)."""
        if self.resumer is not None:
            self.resumer.close()
        if self.folder is not None:
            self.folder.close()
        self.book.close()
        self.listener.close()
        self.feed.close()
        self.pass_lock.close()
        self.coordination.close()


def build_replication(
    store: Store, invalidators: Sequence[Invalidate], *, lease_s: float, capacity: int = 2
) -> Replication | None:
    """The replication parts over the store's database, or None when the store is SQLite."""
    endpoint = pg_endpoint(store)
    if endpoint is None:
        return None
    replica = replica_id()
    coordination = PgCoordination(endpoint.connect, endpoint.schema)
    coordination.ensure_schema()
    feed = ChangeFeed(PgNotifier(endpoint.connect), endpoint.schema, replica, invalidators)
    listener = PgListener(endpoint.connect, feed.receive, feed.missed)
    pass_lock = SharedPassLock(
        PgAdvisoryLock(endpoint.connect, f"{CONSOLIDATION}:{endpoint.schema}"), coordination, replica
    )
    _log.info("replica %s coordinating through PostgreSQL schema %s", replica, endpoint.schema)
    return Replication(
        replica=replica,
        coordination=coordination,
        book=ClaimBook(coordination, replica, lease_s=lease_s),
        feed=feed,
        listener=listener,
        pass_lock=pass_lock,
        lease_s=lease_s,
        capacity=capacity,
        folder=TermFolder(endpoint.connect, endpoint.schema),
    )


__all__ = ["Replication", "build_replication"]
