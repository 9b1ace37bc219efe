"""PostgreSQL LISTEN/NOTIFY for cross-replica cache invalidation: one channel per database, payloads per schema.

A payload is `<schema>\t<sender>\t<agent_id or *>[\t<agent_id>…]`: which copy of the tables changed (a schema
per tenant), which replica wrote (it ignores its own), and whose rows. NOTIFY payloads are limited to 8000 bytes,
so long agent lists are split; agent ids are short (memoryd.domain.MAX_AGENT_ID_CHARS).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import psycopg

from memoryd.storage.pg_coordination import Connect

_log = logging.getLogger("memoryd.storage.pg_notify")

#: The channel every memoryd replica of a database listens on.
CHANNEL = "memoryd_changes"
#: Stands for "every agent" (a pass that touched all, a config or identity change).
EVERY_AGENT = "*"
#: Bytes of agent ids per NOTIFY (PostgreSQL's limit is 8000 for the whole payload).
_PAYLOAD_BUDGET = 7000


@dataclass(frozen=True)
class Change:
    """One notification as received."""

    schema: str
    sender: str
    agents: tuple[str, ...]  # EVERY_AGENT alone means all of them


def payloads(schema: str, sender: str, agents: Iterable[str]) -> list[str]:
    """The NOTIFY payloads announcing changes to `agents` (EVERY_AGENT collapses the list)."""
    wanted = sorted(set(agents))
    if EVERY_AGENT in wanted:
        wanted = [EVERY_AGENT]
    head = f"{schema}\t{sender}"
    out: list[str] = []
    chunk: list[str] = []
    size = 0
    for agent in wanted:
        if chunk and size + len(agent.encode()) + 1 > _PAYLOAD_BUDGET:
            out.append("\t".join([head, *chunk]))
            chunk, size = [], 0
        chunk.append(agent)
        size += len(agent.encode()) + 1
    if chunk:
        out.append("\t".join([head, *chunk]))
    return out


def parse_payload(payload: str) -> Change | None:
    """A received payload, or None when it is not ours."""
    parts = payload.split("\t")
    if len(parts) < 3:
        return None
    return Change(parts[0], parts[1], tuple(parts[2:]))


class PgNotifier:
    """Sends NOTIFYs on its own autocommit connection (reopened after a failure)."""

    def __init__(self, connect: Connect) -> None:
        self._connect = connect
        self._mu = threading.Lock()
        self._conn: psycopg.Connection[Any] | None = None

    def notify(self, messages: Iterable[str]) -> None:
        """Send each payload on CHANNEL; raises psycopg.Error when the database is unreachable."""
        with self._mu:
            if self._conn is None or self._conn.closed:
                self._conn = self._connect()
                self._conn.autocommit = True
            try:
                for message in messages:
                    self._conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, message))
            except psycopg.Error:
                self._conn.close()
                self._conn = None
                raise

    def close(self) -> None:
        """Close the connection."""
        with self._mu:
            if self._conn is not None:
                self._conn.close()
                self._conn = None


class PgListener:
    """LISTENs on CHANNEL on a dedicated connection and hands each payload to `on_payload`; `on_reconnect` is
    called after the connection was lost and re-established (notifications sent meanwhile are lost: the caller
    drops everything it caches). `wait_s` bounds each wait, so close() takes effect within it."""

    def __init__(
        self,
        connect: Connect,
        on_payload: Callable[[str], None],
        on_reconnect: Callable[[], None],
        *,
        wait_s: float = 0.5,
        retry_s: float = 1.0,
    ) -> None:
        self._connect = connect
        self._on_payload = on_payload
        self._on_reconnect = on_reconnect
        self._wait_s = wait_s
        self._retry_s = retry_s
        self._stop = threading.Event()
        self._listening = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Start the listening thread; returns once LISTEN is in force (or after 10 s)."""
        self._thread = threading.Thread(target=self._run, name="memoryd-listen", daemon=True)
        self._thread.start()
        self._listening.wait(10.0)

    def close(self) -> None:
        """Stop the thread (within wait_s)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(self._wait_s + 5.0)

    def _run(self) -> None:
        first = True
        while not self._stop.is_set():
            try:
                with self._connect() as conn:
                    conn.autocommit = True
                    conn.execute(f"LISTEN {CHANNEL}")
                    if not first:
                        self._on_reconnect()
                    first = False
                    self._listening.set()
                    while not self._stop.is_set():
                        for note in conn.notifies(timeout=self._wait_s):
                            self._deliver(note.payload)
            except psycopg.Error as error:
                _log.warning("change listener lost its connection (%s); reconnecting", type(error).__name__)
                first = False
                self._stop.wait(self._retry_s)

    def _deliver(self, payload: str) -> None:
        try:
            self._on_payload(payload)
        except Exception:
            _log.exception("change callback failed")


__all__ = ["CHANNEL", "EVERY_AGENT", "Change", "PgListener", "PgNotifier", "parse_payload", "payloads"]
