"""Lazily loads one AgentIndex per agent, rebuilds it from the embeddings table when missing, stale or re-modelled."""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from memoryd.storage.embeddings import EmbeddingStore
from memoryd.vectors.agent_index import INDEX_FILE, AgentIndex, read_manifest
from memoryd.vectors.codec import Vector, from_blob
from memoryd.vectors.sealing import FileSealer

_log = logging.getLogger("memoryd.vectors")
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
#: FileSealer.folder_name's form.
_KEYED_NAME = re.compile(r"a-[0-9a-f]{32}")


def agent_dir_name(agent_id: str) -> str:
    """Readable, collision-free folder name (also on case-insensitive file systems): prefix + hash of the id."""
    prefix = _UNSAFE.sub("_", agent_id)[:40].lower().strip(".") or "agent"
    return f"{prefix}-{hashlib.sha256(agent_id.encode('utf-8')).hexdigest()[:12]}"


def _folder_name(agent_id: str, sealer: FileSealer | None) -> str:
    return agent_dir_name(agent_id) if sealer is None else sealer.folder_name(agent_id)


@dataclass(frozen=True)
class IndexState:
    """Diagnose's view of one agent's index."""

    agent_id: str
    model: str
    dimension: int
    vectors: int
    rows: int
    stale: bool


class VectorRegistry:
    """Per-agent indexes under $OSAURUS_HOME/memory/vectors/<agent>/. The embeddings table is the source of truth."""

    def __init__(self, root: Path, embeddings: EmbeddingStore, *, sealer: FileSealer | None = None) -> None:
        self._root = root
        self._embeddings = embeddings
        #: Seals index files when the store is encrypted (memoryd.security sets it on conversion).
        self.sealer = sealer
        self._lock = threading.Lock()
        self._indexes: dict[str, AgentIndex] = {}
        self.rebuilds = 0
        self._adopt_readable_folders()

    def directory(self, agent_id: str) -> Path:
        """Where one agent's index lives (a keyed-hash name when the store is encrypted)."""
        return self._root / _folder_name(agent_id, self.sealer)

    def _get(self, agent_id: str, model: str, dimension: int | None) -> AgentIndex | None:
        with self._lock:
            index = self._indexes.get(agent_id)
            if (
                index is not None
                and index.model == model
                and (dimension is None or index.dimension == dimension)
            ):
                return index
            stored = self._embeddings.count(agent_id, model)
            loaded = AgentIndex.load(self.directory(agent_id), self.sealer)
            if (
                loaded is not None
                and loaded.agent_id == agent_id
                and loaded.model == model
                and loaded.count == stored
                and (dimension is None or loaded.dimension == dimension)
            ):
                self._indexes[agent_id] = loaded
                return loaded
            rebuilt = self._rebuild(agent_id, model, dimension)
            if rebuilt is not None:
                self._indexes[agent_id] = rebuilt
            else:
                self._indexes.pop(agent_id, None)
            return rebuilt

    def _rebuild(self, agent_id: str, model: str, dimension: int | None) -> AgentIndex | None:
        """Fill a fresh index from stored vectors (no re-embedding); None when the agent has none yet."""
        index: AgentIndex | None = None
        for batch in self._embeddings.iter_agent(agent_id, model):
            by_kind: dict[str, tuple[list[int], list[Vector]]] = {}
            for kind, row_id, blob in batch:
                dim = dimension or len(blob) // 4
                if index is None:
                    index = AgentIndex(agent_id, model, dim)
                try:
                    vector = from_blob(blob, index.dimension)
                except ValueError:
                    continue  # a vector of another dimension: skipped, it will be re-embedded
                ids, vectors = by_kind.setdefault(kind, ([], []))
                ids.append(row_id)
                vectors.append(vector)
            assert index is not None
            for kind, (ids, vectors) in by_kind.items():
                index.add(kind, ids, np.vstack(vectors))
        if index is None:
            if dimension is None:
                return None
            index = AgentIndex(agent_id, model, dimension)
        self.rebuilds += 1
        index.save(self.directory(agent_id), self.sealer)
        _log.info("rebuilt a vector index: %d vectors, model %s", index.count, model)
        return index

    def add(self, agent_id: str, kind: str, model: str, row_ids: Sequence[int], vectors: Vector) -> None:
        """Add freshly embedded rows (already stored in the embeddings table)."""
        index = self._get(agent_id, model, int(vectors.shape[1]))
        if index is not None:
            index.add(kind, row_ids, vectors)

    def remove(self, agent_id: str, kind: str, row_ids: Sequence[int]) -> int:
        """Remove rows' vectors from the loaded index (the table rows go with their source rows)."""
        with self._lock:
            index = self._indexes.get(agent_id)
        if index is None:
            return 0
        return index.remove(kind, row_ids)

    def search(self, agent_id: str, kind: str, model: str, vector: Vector, k: int) -> list[tuple[int, float]]:
        """Nearest rows of one agent and kind; [] when the agent has no vectors for `model`."""
        index = self._get(agent_id, model, int(vector.shape[-1]))
        return [] if index is None else index.search(kind, vector, k)

    def persisted(self, agent_id: str) -> bool:
        """Whether the agent's index is saved where a restart finds it (its index file exists)."""
        return (self.directory(agent_id) / INDEX_FILE).exists()

    def memory_bytes(self) -> int:
        """Vector bytes held by the loaded indexes (AgentIndex.memory_bytes)."""
        with self._lock:
            indexes = list(self._indexes.values())
        return sum(index.memory_bytes() for index in indexes)

    def delete_agent(self, agent_id: str) -> int:
        """Drop the agent's index from memory and disk; returns how many vectors it held."""
        with self._lock:
            index = self._indexes.pop(agent_id, None)
        directory = self.directory(agent_id)
        count = index.count if index is not None else 0
        if index is None:
            manifest = read_manifest(directory, self.sealer)
            count = manifest.count if manifest is not None else 0
        shutil.rmtree(directory, ignore_errors=True)
        return count

    def flush(self) -> int:
        """Persist every index changed since its last save; returns how many were written."""
        with self._lock:
            dirty = [index for index in self._indexes.values() if index.dirty]
        for index in dirty:
            index.save(self.directory(index.agent_id), self.sealer)
        return len(dirty)

    def state(self, agent_id: str, model: str) -> IndexState:
        """Model, dimension, vector and row counts of one agent's index, and whether it needs a rebuild."""
        stored = self._embeddings.count(agent_id, model)
        with self._lock:
            index = self._indexes.get(agent_id)
        manifest = read_manifest(self.directory(agent_id), self.sealer)
        if index is not None:
            return IndexState(
                agent_id,
                index.model,
                index.dimension,
                index.count,
                stored,
                index.model != model or index.count != stored,
            )
        if manifest is None:
            return IndexState(agent_id, "", 0, 0, stored, stored > 0)
        stale = manifest.model != model or manifest.count != stored
        return IndexState(agent_id, manifest.model, manifest.dimension, manifest.count, stored, stale)

    def reseal(self, sealer: FileSealer | None) -> int:
        """Rewrite every index file under the new sealer (store encrypted, decrypted or re-keyed); files that
        cannot be read are removed and rebuild from the embeddings table on next use. Returns files rewritten."""
        with self._lock:
            old, rewritten = self.sealer, 0
            for index in self._indexes.values():
                if index.dirty:
                    index.save(self.directory(index.agent_id), old)
            self._indexes.clear()
            self.sealer = sealer
            folders = sorted(p for p in self._root.iterdir() if p.is_dir()) if self._root.is_dir() else []
            for folder in folders:
                loaded = AgentIndex.load(folder, old)
                if loaded is None:
                    shutil.rmtree(folder, ignore_errors=True)
                    continue
                # The folder's name follows the key too: readable in plaintext, a keyed hash when encrypted.
                target = self._root / _folder_name(loaded.agent_id, sealer)
                loaded.save(target, sealer)
                if target != folder:
                    shutil.rmtree(folder, ignore_errors=True)
                rewritten += 1
        return rewritten

    def retarget(self, root: Path, sealer: FileSealer | None) -> None:
        """Serve indexes from another folder (degraded mode, recovery); cached indexes are dropped, not saved."""
        with self._lock:
            self._indexes.clear()
            self._root = root
            self.sealer = sealer
        self._adopt_readable_folders()

    def _adopt_readable_folders(self) -> None:
        """Encrypted: move indexes out of folders that name their agent (written by a release before keyed names)
        into keyed-hash folders; one that does not open under the key is removed (the embeddings table rebuilds
        it). Plaintext: nothing to do."""
        sealer = self.sealer
        if sealer is None or not self._root.is_dir():
            return
        with self._lock:
            for folder in sorted(p for p in self._root.iterdir() if p.is_dir()):
                if _KEYED_NAME.fullmatch(folder.name):
                    continue
                loaded = AgentIndex.load(folder, sealer)
                if loaded is not None:
                    loaded.save(self._root / sealer.folder_name(loaded.agent_id), sealer)
                shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        """Persist what changed."""
        self.flush()
