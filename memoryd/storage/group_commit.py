"""Group commit: one writer thread writes every queued item in one transaction; each caller returns after commit.

Why a dedicated thread rather than "the first caller writes for the others": every connection's page cache is
invalidated by a commit from another connection, and the gRPC pool has one connection per thread. One writer
keeps its cache warm; measured under 8 clients it beat leader/follower batching on throughput with the same
single-client latency. The thread starts on demand and exits after `idle_s` without work.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

Item = TypeVar("Item")
Result = TypeVar("Result")

#: Largest batch one transaction carries; keeps the write lock short for other writers.
MAX_BATCH = 64
#: A writer thread with nothing to do for this long exits (and closes its connection through on_exit).
IDLE_S = 2.0

#: Writes a batch in ONE transaction and returns one outcome per item, in order: its result or the exception that
#: item raised. It raises only when nothing of the batch was committed.
BatchWriter = Callable[[Sequence[Item]], list["Result | BaseException"]]


class _Slot(Generic[Item, Result]):
    """One caller's item, its outcome, and the lock the caller sleeps on until the outcome is set."""

    __slots__ = ("done", "item", "outcome")

    def __init__(self, item: Item) -> None:
        self.item = item
        self.outcome: Result | BaseException | None = None
        self.done = threading.Lock()
        self.done.acquire()

    def settle(self, outcome: Result | BaseException) -> None:
        self.outcome = outcome
        self.done.release()

    def result(self) -> Result:
        self.done.acquire()
        outcome = self.outcome
        if isinstance(outcome, BaseException):
            raise outcome
        return outcome  # type: ignore[return-value]


class GroupCommit(Generic[Item, Result]):
    """Queue + one writer thread; `submit` blocks until the item's transaction committed (or failed)."""

    def __init__(
        self,
        write_batch: BatchWriter[Item, Result],
        *,
        name: str,
        max_batch: int = MAX_BATCH,
        idle_s: float = IDLE_S,
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
        """Write `item` with whatever else is queued; returns after its commit, or raises what writing it raised."""
        slot: _Slot[Item, Result] = _Slot(item)
        with self._cond:
            self._queue.append(slot)
            if not self._is_running:
                self._start()
            elif self._is_waiting:
                self._cond.notify()  # only an idle writer needs a wake-up; a busy one drains the queue next
        return slot.result()

    def _start(self) -> None:
        """Called with the condition held."""
        self._is_running = True
        threading.Thread(target=self._run, name=self._name, daemon=True).start()

    def _next_batch(self) -> list[_Slot[Item, Result]] | None:
        """The next batch, or None after idle_s without work (the thread then exits)."""
        with self._cond:
            while not self._queue:
                self._is_waiting = True
                woken = self._cond.wait(self._idle_s)
                self._is_waiting = False
                if not woken and not self._queue:
                    self._is_running = False
                    return None
            batch = self._queue[: self._max_batch]
            del self._queue[: len(batch)]
            return batch

    def _run(self) -> None:
        try:
            while (batch := self._next_batch()) is not None:
                outcomes: list[Result | BaseException]
                try:
                    outcomes = self._write_batch([slot.item for slot in batch])
                except BaseException as error:  # every caller must wake, whatever happened
                    outcomes = [error] * len(batch)
                if len(outcomes) != len(batch):
                    lost = RuntimeError("group commit: the batch writer lost track of its items")
                    outcomes = [lost] * len(batch)
                for slot, outcome in zip(batch, outcomes, strict=True):
                    slot.settle(outcome)
        finally:
            with self._cond:
                if self._is_running:  # left abnormally: let a new thread serve whoever is queued
                    self._is_running = False
                    if self._queue:
                        self._start()
            if self._on_exit is not None:
                self._on_exit()
