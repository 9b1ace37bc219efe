"""One agent's faiss indexes (IndexIDMap2 over fp16 inner-product indexes on unit vectors, one per kind) with their
manifest on disk.

Why fp16: a query scans every vector of the agent's kind (100k transcript rows: 6.5 ms in fp32, 3.2 ms in fp16 on
one core — the scan is memory-bound), and the index takes half the memory. Scores move by ~1e-3; on 300 LoCoMo
questions over 100k real MiniLM rows the top 10 were identical and the top 100 overlapped 99.94% with fp32.
The embeddings table keeps the fp32 vectors; an index of the old format (flat fp32) is rebuilt from it once.
"""

from __future__ import annotations

import json
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
from memoryd.vectors.codec import Vector, kind_range, normalise, split_id, vector_id
from memoryd.vectors.sealing import FileSealer, read_file, write_file

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


#: Shards of each kind's index: a kind's scan runs on this many threads at once (faiss IndexShards), each over its
#: own share of the vectors, and their nearest lists are merged exactly. Two: the cores of the machine we target.
SHARDS = 2
#: Below this many vectors a kind is scanned on the calling thread (starting threads would cost more than it saves).
PARALLEL_MIN_VECTORS = 20_000


def _codes(index: Any) -> tuple[Any, Any]:
    """(ids, codes as an n x code_size uint8 array) of an id-mapped scalar-quantizer index."""
    inner: Any = faiss.downcast_index(index.index)
    ids = faiss.vector_to_array(index.id_map)
    codes = faiss.vector_to_array(inner.codes).reshape(int(index.ntotal), int(inner.code_size))
    return ids, codes


class AgentIndex:
    """Thread-safe cosine index of one agent (exhaustive, fp16 storage): in memory one faiss index per kind, split in
    SHARDS shards; on disk one file.

    Why per kind: a search of one kind used to scan the agent's whole index with the kind as a range selector, so a
    pinned-facts search next to 100k transcript turns still walked every id, the relevance gate's evidence pass
    (memoryd/search.py evidence_many) paid that once per section, and one lock made its three scans take turns.
    Why shards: the evidence pass waits for the largest kind's scan after the query embedding; two threads halve it.
    Results are the same as one exhaustive scan (ties aside). The saved file still holds every kind in one
    IndexIDMap2 (the format other tools read); load() splits it by the kind in each id's high bits.
    """

    def __init__(self, agent_id: str, model: str, dimension: int, index: Any | None = None) -> None:
        self.agent_id = agent_id
        self.model = model
        self.dimension = dimension
        self._parts: dict[str, list[Any]] = {}
        # One lock per kind, so scans of different kinds run side by side (faiss releases the GIL); whatever reads
        # every kind takes them all, always in KINDS order.
        self._locks = {kind: threading.RLock() for kind in KINDS}
        self.dirty = False
        # Vector ids held per kind, built on first use: add() then removes only ids it replaces, since faiss's
        # remove_ids scans (and compacts) the whole index even when none of the ids is present.
        self._held: dict[str, set[int]] = {}
        if index is not None and index.ntotal:
            self._split(index)

    def _shards(self, kind: str) -> list[Any]:
        """The shards of `kind`, made empty on first use (call with the kind's lock held)."""
        shards = self._parts.get(kind)
        if shards is None:
            shards = self._parts[kind] = [new_faiss_index(self.dimension) for _ in range(SHARDS)]
        return shards

    def _split(self, index: Any) -> None:
        """Fill the per-kind shards from a combined index (codes copied as they are: no re-encoding)."""
        ids, codes = _codes(index)
        for kind in KINDS:
            low, high = kind_range(kind)
            where = np.flatnonzero((ids >= low) & (ids < high))
            for shard, share in zip(self._shards(kind), np.array_split(where, SHARDS), strict=True):
                if len(share):
                    shard.add_sa_codes(np.ascontiguousarray(codes[share]), np.ascontiguousarray(ids[share]))

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
            for shard in self._parts.get(kind, []):
                if shard.ntotal:
                    ids, codes = _codes(shard)
                    combined.add_sa_codes(codes, ids)
        return combined

    def _kind_count(self, kind: str) -> int:
        return sum(int(shard.ntotal) for shard in self._parts.get(kind, []))

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
            for shards in self._parts.values():
                for shard in shards:
                    inner: Any = faiss.downcast_index(shard.index)
                    code_size = int(inner.code_size)
                    total += int(shard.ntotal) * (code_size + 8)
            return total

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
            shards = self._shards(kind)
            held = self._held_ids(kind)
            replaced = np.asarray([i for i in ids.tolist() if i in held], dtype=np.int64)
            if len(replaced):
                for shard in shards:
                    shard.remove_ids(faiss.IDSelectorBatch(replaced))
            # The smallest shard takes the batch, so the shards stay about even and each scan about half.
            min(shards, key=lambda shard: int(shard.ntotal)).add_with_ids(normalise(vectors), ids)
            held.update(ids.tolist())
            self.dirty = True

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
            removed = sum(
                int(shard.remove_ids(faiss.IDSelectorBatch(present))) for shard in self._parts.get(kind, [])
            )
            held.difference_update(present.tolist())
            self.dirty = self.dirty or removed > 0
        return removed

    def _held_ids(self, kind: str) -> set[int]:
        """The vector ids of `kind` in the index (call with the kind's lock held)."""
        held = self._held.get(kind)
        if held is None:
            held = set()
            for shard in self._parts.get(kind, []):
                if shard.ntotal:
                    held.update(faiss.vector_to_array(shard.id_map).tolist())
            self._held[kind] = held
        return held

    def search(self, kind: str, query: Vector, k: int) -> list[tuple[int, float]]:
        """(row id, cosine) of the k nearest rows of `kind`."""
        with self._locks[kind]:
            n = self._kind_count(kind)
            if n == 0 or k <= 0:
                return []
            # IndexShards scans each shard (on its own thread when threaded) and merges the k best of each.
            shards = faiss.IndexShards(self.dimension, n >= PARALLEL_MIN_VECTORS, False)  # type: ignore[call-arg]
            for shard in self._parts[kind]:
                if shard.ntotal:
                    shards.add_shard(shard)
            scores, ids = shards.search(normalise(query), min(k, n))
        return [(split_id(int(i))[1], float(s)) for s, i in zip(scores[0], ids[0], strict=True) if i >= 0]

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
    def load(cls, directory: Path, sealer: FileSealer | None = None) -> AgentIndex | None:
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
        return cls(manifest.agent_id, manifest.model, manifest.dimension, index)


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
