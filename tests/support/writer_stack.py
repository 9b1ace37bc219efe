"""Builds a real writer for tests: memory.sqlite under tmp_path, the scripted fake inferd on a real port."""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from inferd.client import InferenceClient
from memoryd.domain import TurnInput
from memoryd.storage.distillation import SqliteWriterStore
from memoryd.storage.store import Store, open_store
from memoryd.write import DistillPolicy, Writer, WriterSettings
from memoryd.write.breaker import CircuitBreaker
from memoryd.write.retry import RetryPolicy
from servicekit.server import RunningServer
from tests.fakes.fake_writer_inferd import EMBED_MODEL, MODEL, ScriptedInferd, start_fake_inferd


class FakeClock:
    """Monotonic seconds that move only when told."""

    def __init__(self) -> None:
        self.now = 10_000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class SettingsBox:
    """A mutable WriterSettings the writer reads on every operation."""

    def __init__(self, settings: WriterSettings) -> None:
        self.value = settings

    def __call__(self) -> WriterSettings:
        return self.value

    def set(self, **changes: Any) -> None:
        self.value = dataclasses.replace(self.value, **changes)


@dataclass
class WriterStack:
    """Everything a writer test touches."""

    store: Store
    wstore: SqliteWriterStore
    inferd: ScriptedInferd
    server: RunningServer
    client: InferenceClient
    writer: Writer
    settings: SettingsBox
    clock: FakeClock
    sleeps: list[float]

    def buffer(self, agent: str, conversation: str, user: str, assistant: str = "", at_ms: int = 0) -> int:
        """What BufferTurn does: one transaction, then the writer's hook."""
        turn = TurnInput(agent, conversation, user, assistant, at_ms or int(time.time() * 1000))
        stored = self.store.turns.buffer(turn)
        self.writer.on_turn_buffered(agent, conversation)
        return stored.signal_id

    def q(self, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
        return self.store.db.query(sql, params)

    def close(self) -> None:
        self.writer.close(2)
        self.client.close()
        self.server.stop(0)
        self.store.close()


def make_writer_stack(
    tmp_path: Path,
    *,
    max_calls: int = 2,
    max_attempts: int = 3,
    breaker_threshold: int = 5,
    allow_cold_load: bool = True,
    inference_target: str | None = None,
    **settings: Any,
) -> WriterStack:
    """A writer over a real SQLite file and the fake inferd; debounce driven by a fake clock (no timer thread)."""
    store = open_store(tmp_path / "memory" / "memory.sqlite")
    wstore = SqliteWriterStore(store.db, store.tables, store.agents)
    server, inferd = start_fake_inferd()
    client = InferenceClient(inference_target or server.target, deadline_s=10)
    box = SettingsBox(
        WriterSettings(
            **{"core_model": MODEL, "embedding_model": EMBED_MODEL, "summary_debounce_s": 60.0, **settings}
        )
    )
    clock = FakeClock()
    sleeps: list[float] = []
    writer = Writer(
        wstore,
        client,
        box,
        policy=DistillPolicy(
            retry=RetryPolicy(max_calls=max_calls, base_delay_s=1),
            max_attempts=max_attempts,
            call_timeout_s=10,
            allow_cold_load=allow_cold_load,
        ),
        breaker=CircuitBreaker(threshold=breaker_threshold, base_cooldown_s=60, clock=clock),
        clock=clock,
        sleep=sleeps.append,
    )
    return WriterStack(store, wstore, inferd, server, client, writer, box, clock, sleeps)


def wait_for(predicate: Callable[[], bool], timeout_s: float = 10.0) -> None:
    """Poll until predicate() is true."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.01)
    raise TimeoutError("condition not met in time")


__all__ = ["FakeClock", "SettingsBox", "WriterStack", "make_writer_stack", "wait_for"]
