"""Group commit: concurrent callers share one write transaction, and each returns only after that commit.

Leader/follower, as in LevelDB's writer queue: the caller that finds no batch in flight leads. It writes its own
item plus every item queued behind it in one transaction, then wakes their callers with their outcomes and hands
the lead to the next queued caller. A lone caller never waits on another thread, so one client pays no hand-off;
under load each commit (and each FTS5 segment flush) is shared by the whole queue.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

#: Largest batch one transaction carries; keeps the write lock short for other writers.
MAX_BATCH = 64


class _Slot(Generic[Item, Result]):
    """One caller's item, its outcome, and the lock it sleeps on until it is done or must lead."""

    __slots__ = ("item", "outcome", "is_done", "wake")

    def __init__(self, item: Item) -> None:
        self.item = item
        self.outcome: Result | BaseException | None = None
        self.is_done = False
        self.wake = threading.Lock()
        self.wake.acquire()

    def result(self) -> Result:
        outcome = self.outcome
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome  # type: ignore[return-value]


#: Writes a batch in ONE transaction and returns one outcome per item, in order: a result or the exception that
#: item raised. It raises only when nothing of the batch was committed.
BatchWriter = Callable[[Sequence[Item]], list["Result | BaseException"]]


class GroupCommit(Generic[Item, Result]):
    """Serialises writes of one kind through a queue whose head writes for everyone behind it."""

    def __init__(self, write_batch: BatchWriter[Item, Result], max_batch: int = MAX_BATCH) -> None:
        self._write_batch = write_batch
        self._max_batch = max_batch
        self._mutex = threading.Lock()
        self._queue: list[_Slot[Item, Result]] = []
        self._is_leading = False

    def submit(self, item: Item) -> Result:
        """Write `item` (batched with concurrent callers); returns after its transaction committed."""
        slot: _Slot[Item, Result] = _Slot(item)
        with self._mutex:
            self._queue.append(slot)
            must_wait = self._is_leading
            self._is_leading = True
        if must_wait:
            slot.wake.acquire()  # released when our item is done, or when the lead passes to us
            if slot.is_done:
                return slot.result()
        # Leading: our slot is at the head of the queue (the lead only passes to the head).
        with self._mutex:
            batch = self._queue[: self._max_batch]
            del self._queue[: len(batch)]
        try:
            outcomes = self._write_batch([s.item for s in batch])
        except BaseException as error:  # noqa: BLE001 - every waiter must wake, whatever happened
            outcomes = [error] * len(batch)
        if len(outcomes) != len(batch):
            outcomes = [RuntimeError("group commit: batch writer returned a wrong outcome count")] * len(batch)
        with self._mutex:
            for queued, outcome in zip(batch, outcomes, strict=True):
                queued.outcome = outcome
                queued.is_done = True
            successor = self._queue[0] if self._queue else None
            if successor is None:
                self._is_leading = False
        for queued in batch[1:]:
            queued.wake.release()
        if successor is not None:
            successor.wake.release()
        return slot.result()


class GroupCommitThread(Generic[Item, Result]):
    """The same contract with one dedicated writer thread: its connection's page cache is never invalidated by a
    commit from another of our connections, at the price of one thread hand-off per batch.

    The thread starts on demand and exits after `idle_s` without work (running `on_exit`, e.g. closing its
    connection), so an idle store holds no thread.
    """

    def __init__(
        self,
        write_batch: BatchWriter[Item, Result],
        *,
        name: str,
        max_batch: int = MAX_BATCH,
        idle_s: float = 2.0,
        on_exit: Callable[[], None] | None = None,
    ) -> None:
        self._write_batch = write_batch
        self._name = name
        self._max_batch = max_batch
        self._idle_s = idle_s
        self._on_exit = on_exit
        self._cond = threading.Condition(threading.Lock())
        self._queue: list[_Slot[Item, Result]] = []
        self._is_running = False
        self._is_waiting = False

    def submit(self, item: Item) -> Result:
        """Queue `item` for the writer thread; returns after its transaction committed."""
        slot: _Slot[Item, Result] = _Slot(item)
        with self._cond:
            self._queue.append(slot)
            if not self._is_running:
                self._is_running = True
                threading.Thread(target=self._run, name=self._name, daemon=True).start()
            elif self._is_waiting:
                self._cond.notify()
        slot.wake.acquire()
        return slot.result()

    def _run(self) -> None:
        try:
            while True:
                with self._cond:
                    while not self._queue:
                        self._is_waiting = True
                        woke = self._cond.wait(self._idle_s)
                        self._is_waiting = False
                        if not woke and not self._queue:
                            self._is_running = False
                            return
                    batch = self._queue[: self._max_batch]
                    del self._queue[: len(batch)]
                try:
                    outcomes = self._write_batch([s.item for s in batch])
                except BaseException as error:  # noqa: BLE001 - every waiter must wake, whatever happened
                    outcomes = [error] * len(batch)
                if len(outcomes) != len(batch):
                    outcomes = [RuntimeError("group commit: wrong outcome count")] * len(batch)
                for queued, outcome in zip(batch, outcomes, strict=True):
                    queued.outcome = outcome
                    queued.is_done = True
                    queued.wake.release()
        finally:
            if self._on_exit is not None:
                self._on_exit()
