"""Background indexing: embeds rows that have no vector yet (new, or stored while inferd was down) and indexes them."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Sequence

from memoryd.domain import KINDS
from memoryd.storage.dialect import SQLITE
from memoryd.storage.fts import MIRRORS
from memoryd.storage.store import Store
from memoryd.vectors.codec import to_blob
from memoryd.vectors.embedding import Embedder
from memoryd.vectors.registry import VectorRegistry

_log = logging.getLogger("memoryd.indexer")

BATCH_SIZE = 64
FLUSH_INTERVAL_S = 10.0
#: After a nudge the thread waits this long before a pass, so a burst of turns costs one wake-up and one batch.
SETTLE_S = 0.1
#: A distilling Ingest indexes at most this many pending rows before it answers (its session's rows, any backlog).
INGEST_INDEX_ROWS = 512


class Indexer:
    """Keeps vectors in step with SQLite. Search never waits for it: unindexed rows are still found by FTS."""

    def __init__(
        self,
        store: Store,
        embedder: Embedder,
        registry: VectorRegistry,
        *,
        batch_size: int = BATCH_SIZE,
        flush_interval_s: float = FLUSH_INTERVAL_S,
        settle_s: float = SETTLE_S,
        on_indexed: Sequence[Callable[[str], None]] = (),
    ) -> None:
        """on_indexed: called with an agent id after rows of that agent got vectors (what search finds changed, so
        blocks cached for that agent are stale)."""
        self._store = store
        self._on_indexed = on_indexed
        self._embedder = embedder
        self._registry = registry
        self._batch_size = batch_size
        self._flush_interval_s = flush_interval_s
        self._settle_s = settle_s
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._run_lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._marks: dict[str, int] = {}
        self._marks_model: str | None = None
        self._last_flush = time.monotonic()

    def notify(self, agent_id: str | None = None) -> None:
        """New rows were written; index them soon. Called on every BufferTurn: a flag, no thread wake-up while
        one is already pending."""
        if not self._wake.is_set():
            self._wake.set()

    def run_once(self, max_rows: int | None = None) -> int:
        """Embed and index pending rows now; returns how many got vectors. Stops early if inferd fails."""
        with self._run_lock:
            model = self._embedder.model
            if model is None:
                return 0
            if model != self._marks_model:
                self._marks, self._marks_model = {}, model
            done = 0
            while max_rows is None or done < max_rows:
                covered = self._covered()
                pending = self._store.embeddings.missing(model, self._batch_size * 4, after=self._marks)
                if not pending:
                    for kind, last in covered.items():
                        self._marks[kind] = max(self._marks.get(kind, 0), last)
                    break
                groups: dict[tuple[str, str], list[int]] = {}
                for kind, agent_id, row_id in pending:
                    groups.setdefault((kind, agent_id), []).append(row_id)
                for (kind, agent_id), row_ids in groups.items():
                    for start in range(0, len(row_ids), self._batch_size):
                        embedded = self.index_rows(agent_id, kind, row_ids[start : start + self._batch_size])
                        if embedded is None:
                            return done
                        done += embedded
                for kind, _agent, row_id in pending:
                    self._marks[kind] = max(self._marks.get(kind, 0), row_id)
            return done

    def _covered(self) -> dict[str, int]:
        """Per kind, the last row id handed out, read before a scan for rows without a vector; {} on PostgreSQL.

        On SQLite one writer commits at a time and ids follow commit order, so every row up to these ids is visible
        to the scan that follows: when it finds none pending, the marks move up to them and the next pass scans only
        newer rows. Without that, a pass that found nothing kept its marks and every pass (on each nudge, and every
        FLUSH_INTERVAL_S) joined every row to the embeddings table again: ~0.25-0.75 s of CPU per pass at 115k rows,
        which competed with AssembleContext on a 2-core machine (issue 17, item 4). Sequences on PostgreSQL hand
        out ids that other replicas may commit later, so there the marks only follow rows actually indexed.
        """
        db = self._store.db
        if db.dialect.name != SQLITE:
            return {}
        return {kind: db.last_id(MIRRORS[kind].source) for kind in KINDS}

    def index_rows(self, agent_id: str, kind: str, row_ids: Sequence[int]) -> int | None:
        """Embed and index specific rows of one agent; None when embeddings are unavailable."""
        texts = self._store.rows.texts_to_embed(kind, agent_id, row_ids)
        if not texts:
            return 0
        batch = self._embedder.embed([text for _, text in texts])
        if batch is None:
            return None
        ids = [row_id for row_id, _ in texts]
        blobs = [(row_id, to_blob(vector)) for row_id, vector in zip(ids, batch.vectors, strict=True)]
        self._store.embeddings.put(kind, agent_id, batch.model, int(batch.vectors.shape[1]), blobs)
        self._registry.add(agent_id, kind, batch.model, ids, batch.vectors)
        for callback in self._on_indexed:
            callback(agent_id)
        return len(ids)

    def forget(self, agent_id: str, kind: str, row_ids: Sequence[int]) -> int:
        """Drop deleted rows' vectors from the agent's index (their table rows go with the source rows)."""
        self._store.embeddings.delete_rows(kind, row_ids)
        return self._registry.remove(agent_id, kind, row_ids)

    def start(self) -> None:
        """Start the background thread (one catch-up pass first)."""
        if self._thread is not None:
            return
        self._thread = threading.Thread(target=self._loop, name="memoryd-indexer", daemon=True)
        self._thread.start()
        self._wake.set()

    def _loop(self) -> None:
        while not self._stop.is_set():
            if self._wake.wait(timeout=self._flush_interval_s):
                self._stop.wait(self._settle_s)  # nudges meanwhile only find the flag already set
            self._wake.clear()
            if self._stop.is_set():
                break
            try:
                if self._embedder.available():
                    self.run_once()
                if time.monotonic() - self._last_flush >= self._flush_interval_s:
                    self._registry.flush()
                    self._last_flush = time.monotonic()
            except Exception as error:
                _log.error("indexing pass failed: %s", type(error).__name__)
                _log.debug("indexing failure", exc_info=error)

    def close(self, timeout_s: float = 10.0) -> None:
        """Stop the thread and persist the indexes."""
        self._stop.set()
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout_s)
            self._thread = None
        self._registry.flush()
