"""One agent's faiss index (IndexIDMap2 over fp16 inner-product indexes on unit vectors, one per kind in memory)
with its manifest on disk.

Why fp16: a query scans every vector of the agent's kind (100k transcript rows: 6.5 ms in fp32, 3.2 ms in fp16 on
one core — the scan is memory-bound), and the index takes half the memory. Scores move by ~1e-3; on 300 LoCoMo
questions over 100k real MiniLM rows the top 10 were identical and the top 100 overlapped 99.94% with fp32.
The embeddings table keeps the fp32 vectors; an index of the old format (flat fp32) is rebuilt from it once.
"""

from __future__ import annotations

import json
import logging
import os
import tempfile
import threading
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import faiss
import numpy as np

from memoryd.domain import KINDS, now_ms
from memoryd.storage.private import private_folder
from memoryd.vectors.approx import APPROX_MIN_VECTORS, ApproxIndex
from memoryd.vectors.codec import Vector, kind_range, normalise, split_id, vector_id
from memoryd.vectors.sealing import FileSealer, read_file, write_file
from memoryd.vectors.threads import use_one_thread

_log = logging.getLogger("memoryd.vectors")

INDEX_FILE = "index.faiss"
MANIFEST_FILE = "manifest.json"
#: 1: IndexFlatIP (fp32). 2: IndexScalarQuantizer QT_fp16, inner product.
FORMAT = 2


def new_faiss_index(dimension: int) -> Any:
    """An empty id-mapped fp16 inner-product index."""
    inner = faiss.IndexScalarQuantizer(dimension, faiss.ScalarQuantizer.QT_fp16, faiss.METRIC_INNER_PRODUCT)
    return faiss.IndexIDMap2(inner)


@dataclass(frozen=True)
class Manifest:
    """What an index file holds: which agent, model and dimension, and how many vectors (per kind)."""

    agent_id: str
    model: str
    dimension: int
    count: int
    counts: dict[str, int] = field(default_factory=dict)
    format: int = FORMAT
    updated_at_ms: int = 0


def _codes(index: Any) -> tuple[Any, Any]:
    """(ids, codes as an n x code_size uint8 array) of an id-mapped scalar-quantizer index."""
    inner: Any = faiss.downcast_index(index.index)
    ids = faiss.vector_to_array(index.id_map)
    codes = faiss.vector_to_array(inner.codes).reshape(int(index.ntotal), int(inner.code_size))
    return ids, codes


class AgentIndex:
    """Thread-safe cosine index of one agent (fp16 storage): in memory one faiss index per kind; on disk one file.

    Exhaustive below APPROX_MIN_VECTORS vectors of a kind. From there on a search of that kind starts building an
    approximate index (vectors/approx.py, IVF over the same fp16 codes) on a background thread and uses it once it
    is ready; the exhaustive index stays the truth (saved, sealed, counted, rebuilt as before) and the approximate
    one follows every add and remove. It is never saved: a loaded index builds it again on its first large search.

    Why per kind: a search of one kind used to scan the agent's whole index with the kind as a range selector, so a
    pinned-facts search next to 100k transcript turns still walked every id, the relevance gate's evidence pass
    (memoryd/read/search.py evidence_many) paid that once per section, and one lock made its three scans take turns.
    Results are those of the selector scan (same codes, exhaustive). The saved file still holds every kind in one
    IndexIDMap2 (the format other tools read); load() splits it by the kind in each id's high bits.
    """

    def __init__(
        self,
        agent_id: str,
        model: str,
        dimension: int,
        index: Any | None = None,
        *,
        approx_min_vectors: int | None = APPROX_MIN_VECTORS,
    ) -> None:
        """approx_min_vectors: vectors of a kind from which its searches use an approximate index (None: never)."""
        self.agent_id = agent_id
        self.model = model
        self.dimension = dimension
        self.approx_min_vectors = approx_min_vectors
        self._parts: dict[str, Any] = {}
        # The approximate indexes ready for use, the kinds whose one is being built, and the vector ids added or
        # removed meanwhile (replayed into it before it is used).
        self._approx: dict[str, ApproxIndex] = {}
        self._building: dict[str, set[int]] = {}
        # One lock per kind, so scans of different kinds run side by side (faiss releases the GIL); whatever reads
        # every kind takes them all, always in KINDS order.
        self._locks = {kind: threading.RLock() for kind in KINDS}
        self.dirty = False
        # Vector ids held per kind, built on first use: add() then removes only ids it replaces, since faiss's
        # remove_ids scans (and compacts) the whole index even when none of the ids is present.
        self._held: dict[str, set[int]] = {}
        if index is not None and index.ntotal:
            self._split(index)

    def _part(self, kind: str) -> Any:
        """The index of `kind`, made empty on first use (call with the kind's lock held)."""
        part = self._parts.get(kind)
        if part is None:
            part = self._parts[kind] = new_faiss_index(self.dimension)
        return part

    def _split(self, index: Any) -> None:
        """Fill the per-kind indexes from a combined one (codes copied as they are: no re-encoding)."""
        ids, codes = _codes(index)
        for kind in KINDS:
            low, high = kind_range(kind)
            mask = (ids >= low) & (ids < high)
            if np.any(mask):
                self._part(kind).add_sa_codes(
                    np.ascontiguousarray(codes[mask]), np.ascontiguousarray(ids[mask])
                )

    @contextmanager
    def _all_locked(self) -> Iterator[None]:
        with ExitStack() as stack:
            for kind in KINDS:
                stack.enter_context(self._locks[kind])
            yield

    def _combined(self) -> Any:
        """Every kind in one id-mapped index, as saved on disk (call with every lock held)."""
        combined = new_faiss_index(self.dimension)
        for kind in KINDS:
            part = self._parts.get(kind)
            if part is not None and part.ntotal:
                ids, codes = _codes(part)
                combined.add_sa_codes(codes, ids)
        return combined

    def _kind_count(self, kind: str) -> int:
        part = self._parts.get(kind)
        return 0 if part is None else int(part.ntotal)

    @property
    def count(self) -> int:
        """Vectors held."""
        with self._all_locked():
            return sum(self._kind_count(kind) for kind in self._parts)

    def memory_bytes(self) -> int:
        """Bytes the faiss indexes hold for their vectors: codes (2 bytes per dimension in fp16) plus the 8-byte id
        of each (IndexIDMap2's id map); not counted: the reverse id map, the id set, and spare vector capacity."""
        with self._all_locked():
            total = 0
            for part in self._parts.values():
                inner: Any = faiss.downcast_index(part.index)
                total += int(part.ntotal) * (int(inner.code_size) + 8)
            return total + sum(approx.memory_bytes() for approx in self._approx.values())

    def counts(self) -> dict[str, int]:
        """Vectors per kind."""
        with self._all_locked():
            return {kind: n for kind in self._parts if (n := self._kind_count(kind))}

    def add(self, kind: str, row_ids: Sequence[int], vectors: Vector) -> None:
        """Add (or replace) the vectors of these rows."""
        if not len(row_ids):
            return
        if vectors.shape != (len(row_ids), self.dimension):
            raise ValueError(f"expected {len(row_ids)}x{self.dimension} vectors, got {vectors.shape}")
        ids = np.asarray([vector_id(kind, r) for r in row_ids], dtype=np.int64)
        with self._locks[kind]:
            part = self._part(kind)
            held = self._held_ids(kind)
            replaced = np.asarray([i for i in ids.tolist() if i in held], dtype=np.int64)
            if len(replaced):
                part.remove_ids(faiss.IDSelectorBatch(replaced))
            unit = normalise(vectors)
            part.add_with_ids(unit, ids)
            held.update(ids.tolist())
            self.dirty = True
            approx = self._approx.get(kind)
            if approx is not None:
                approx.remove(replaced)
                approx.add(ids, unit)
            if kind in self._building:
                self._building[kind].update(ids.tolist())

    def remove(self, kind: str, row_ids: Sequence[int]) -> int:
        """Remove these rows' vectors; returns how many were present."""
        if not len(row_ids):
            return 0
        ids = np.asarray([vector_id(kind, r) for r in row_ids], dtype=np.int64)
        with self._locks[kind]:
            held = self._held_ids(kind)
            present = np.asarray([i for i in ids.tolist() if i in held], dtype=np.int64)
            if not len(present):
                return 0
            removed = int(self._part(kind).remove_ids(faiss.IDSelectorBatch(present)))
            held.difference_update(present.tolist())
            self.dirty = self.dirty or removed > 0
            approx = self._approx.get(kind)
            if approx is not None:
                approx.remove(present)
            if kind in self._building:
                self._building[kind].update(present.tolist())
        return removed

    def _held_ids(self, kind: str) -> set[int]:
        """The vector ids of `kind` in the index (call with the kind's lock held)."""
        held = self._held.get(kind)
        if held is None:
            part = self._parts.get(kind)
            ids = (
                faiss.vector_to_array(part.id_map)
                if part is not None and part.ntotal
                else np.empty(0, np.int64)
            )
            held = self._held[kind] = set(ids.tolist())
        return held

    def search(self, kind: str, query: Vector, k: int) -> list[tuple[int, float]]:
        """(row id, cosine) of the k nearest rows of `kind` (approximate once the kind is large: see the class)."""
        with self._locks[kind]:
            part = self._parts.get(kind)
            if part is None or part.ntotal == 0 or k <= 0:
                return []
            count = int(part.ntotal)
            approx = self._approx.get(kind)
            if approx is not None and self._is_large(count):
                scores, ids = approx.search(normalise(query), min(k, count))
            else:
                scores, ids = part.search(normalise(query), min(k, count))
            wants_build = self._is_large(count) and kind not in self._building
            wants_build = wants_build and (approx is None or approx.needs_retraining(count))
            if wants_build:
                self._building[kind] = set()
        if wants_build:
            threading.Thread(
                target=self._build_in_background, args=(kind,), name="memoryd-approx", daemon=True
            ).start()
        return [(split_id(int(i))[1], float(s)) for s, i in zip(scores[0], ids[0], strict=True) if i >= 0]

    def _is_large(self, count: int) -> bool:
        return self.approx_min_vectors is not None and count >= self.approx_min_vectors

    def is_approximate(self, kind: str) -> bool:
        """Whether searches of `kind` use the approximate index now."""
        with self._locks[kind]:
            return kind in self._approx and self._is_large(self._kind_count(kind))

    def build_approximate(self, kind: str) -> bool:
        """Build (or retrain) the approximate index of `kind` now, on this thread; False when the kind is below
        approx_min_vectors or a build is already running. Searches use the exact index meanwhile."""
        with self._locks[kind]:
            if not self._is_large(self._kind_count(kind)) or kind in self._building:
                return False
            self._building[kind] = set()
        self._build(kind)
        return True

    def _build_in_background(self, kind: str) -> None:
        use_one_thread()
        try:
            self._build(kind)
        except Exception:  # the exact search stays; the next large search tries again
            _log.exception("building an approximate vector index failed")

    def _build(self, kind: str) -> None:
        """Train and fill from a copy of the kind's codes (outside the lock), then replay what changed meanwhile.
        Whatever happens, the kind is no longer marked as building afterwards."""
        try:
            self._build_marked(kind)
        finally:
            with self._locks[kind]:
                self._building.pop(kind, None)

    def _build_marked(self, kind: str) -> None:
        with self._locks[kind]:
            ids, codes = _codes(self._part(kind))
            ids, codes = ids.copy(), codes.copy()
            inner: Any = faiss.downcast_index(self._part(kind).index)
        vectors = inner.sa_decode(codes)
        built = ApproxIndex.build(ids, vectors)
        with self._locks[kind]:
            changed = np.asarray(sorted(self._building.pop(kind, set())), dtype=np.int64)
            if len(changed):
                built.remove(changed)
                held = self._held_ids(kind)
                still = np.asarray([i for i in changed.tolist() if i in held], dtype=np.int64)
                if len(still):
                    part = self._part(kind)
                    built.add(still, np.vstack([part.reconstruct(int(i)) for i in still]))
            self._approx[kind] = built
        _log.info("approximate vector index ready: %d vectors", built.count)

    def manifest(self) -> Manifest:
        """The manifest describing the current contents."""
        return Manifest(
            self.agent_id, self.model, self.dimension, self.count, self.counts(), FORMAT, now_ms()
        )

    def save(self, directory: Path, sealer: FileSealer | None = None) -> None:
        """Write index then manifest, each atomically (tmp + rename); a crash leaves a stale, rebuildable pair.

        With a sealer (encrypted store) both files are AES-GCM sealed (memoryd.vectors.sealing).
        """
        private_folder(directory)
        if sealer is not None:
            with self._all_locked():
                manifest = self.manifest()
                data = faiss.serialize_index(self._combined()).tobytes()
                write_file(directory / INDEX_FILE, data, sealer)
                self.dirty = False
            write_file(directory / MANIFEST_FILE, json.dumps(asdict(manifest)).encode(), sealer)
            return
        with self._all_locked():
            manifest = self.manifest()
            fd, tmp = tempfile.mkstemp(prefix=".index.", dir=directory)
            os.close(fd)
            try:
                faiss.write_index(self._combined(), tmp)
                os.replace(tmp, directory / INDEX_FILE)
            finally:
                Path(tmp).unlink(missing_ok=True)
            self.dirty = False
        _write_json(directory / MANIFEST_FILE, asdict(manifest))

    @classmethod
    def load(
        cls,
        directory: Path,
        sealer: FileSealer | None = None,
        *,
        approx_min_vectors: int | None = APPROX_MIN_VECTORS,
    ) -> AgentIndex | None:
        """The saved index, or None when missing, unreadable, sealed differently, or inconsistent with its manifest."""
        manifest = read_manifest(directory, sealer)
        if manifest is None or not (directory / INDEX_FILE).exists():
            return None
        try:
            if sealer is None:
                index = faiss.read_index(str(directory / INDEX_FILE))
            else:
                data = read_file(directory / INDEX_FILE, sealer)
                if data is None:
                    return None
                index = faiss.deserialize_index(np.frombuffer(data, dtype=np.uint8))
        except RuntimeError:
            return None
        if index.d != manifest.dimension or index.ntotal != manifest.count:
            return None
        return cls(
            manifest.agent_id,
            manifest.model,
            manifest.dimension,
            index,
            approx_min_vectors=approx_min_vectors,
        )


def read_manifest(directory: Path, sealer: FileSealer | None = None) -> Manifest | None:
    """The manifest in `directory`, or None when absent, malformed, or sealed differently."""
    try:
        raw = read_file(directory / MANIFEST_FILE, sealer)
        if raw is None:
            return None
        data = json.loads(raw.decode("utf-8"))
        manifest = Manifest(**data)
    except (OSError, ValueError, TypeError):
        return None
    return manifest if manifest.format == FORMAT else None


def _write_json(path: Path, data: dict[str, Any]) -> None:
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2, sort_keys=True)
    os.replace(tmp, path)
