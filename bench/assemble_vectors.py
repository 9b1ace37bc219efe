"""bench_assemble's corpus vectors (issues 17, 21): which model gives the seeded rows their vectors, and the on-disk
cache of the real model's vectors.

Modes (OSAURUS_BENCH_ASSEMBLE_CORPUS_VECTORS):
- `minilm` (the default): every row is embedded by the real all-MiniLM-L6-v2 through inferd, the model that embeds the
  measured queries, as in a deployment. Embedding the 116k rows takes ~10-20 minutes on the shared 2-core machine,
  so the vectors are computed once per corpus and kept in a cache file (CACHE_DIR, OSAURUS_BENCH_CACHE_DIR overrides
  it) named after the sha256 of the model and the exact texts memoryd's Indexer embeds; every backend's seed then
  reads the same vectors from it. A file whose header, size or payload checksum does not match is recomputed and
  rewritten, never used.
- `fake`: inferd's `fake` model (hashed bag of words, 384-d), stored under MiniLM's name: fast to seed, but the
  queries (real MiniLM) then live in another space than the rows, which costs PostgreSQL's HNSW walk more than a
  deployment's queries (docs/postgres_search.md, tenth pass).

In both modes the rows get their vectors through memoryd's own Indexer (assemble_corpus.seed): only the client behind
its Embedder changes. `python -m bench.assemble_vectors fill [scale]` fills the cache without running the bench.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from inferd.client import Embeddings, InferenceClient

ENV = "OSAURUS_BENCH_ASSEMBLE_CORPUS_VECTORS"
CACHE_ENV = "OSAURUS_BENCH_CACHE_DIR"
MINILM, FAKE = "minilm", "fake"
MODES = (MINILM, FAKE)
DEFAULT_MODE = MINILM
CACHE_DIR = Path.home() / ".cache" / "osaurus-bench"
#: The real model (queries and, in `minilm` mode, rows) and inferd's fake one.
REAL_MODEL = "all-minilm-l6-v2"
FAKE_MODEL = "fake-embedding"
#: First line of a cache file; a JSON header line follows, then count × dimension little-endian float32 values.
MAGIC = b"osaurus-bench-vectors 1\n"
#: Texts per Embed call while filling the cache (inferd takes up to 256; short batches pad less).
FILL_BATCH = 64
#: Texts per chunk of a fill: each finished chunk is kept on disk, so a killed fill resumes after it.
FILL_CHUNK = 1024
FILL_TIMEOUT_S = 300.0


def vectors_mode(env: dict[str, str] | None = None) -> str:
    """The corpus-vector mode from OSAURUS_BENCH_ASSEMBLE_CORPUS_VECTORS (DEFAULT_MODE when unset or empty)."""
    value = (os.environ if env is None else env).get(ENV, "").strip().lower() or DEFAULT_MODE
    if value not in MODES:
        raise ValueError(f"{ENV} must be one of {', '.join(MODES)}, not {value!r}")
    return value


def cache_dir(env: dict[str, str] | None = None) -> Path:
    """Where cache files live (OSAURUS_BENCH_CACHE_DIR, else ~/.cache/osaurus-bench)."""
    value = (os.environ if env is None else env).get(CACHE_ENV, "").strip()
    return Path(value) if value else CACHE_DIR


def corpus_texts(store: Any) -> list[str]:
    """The distinct texts memoryd's Indexer will embed for every row of `store` that has no vector yet, in a fixed
    order (the transcript first, then the other kinds; per kind by agent, then id; a repeated text once): the same
    rows give the same list on SQLite and on PostgreSQL."""
    from memoryd.domain import KIND_TRANSCRIPT, KINDS

    pending: dict[tuple[str, str], list[int]] = {}
    for kind, agent_id, row_id in store.embeddings.missing(REAL_MODEL, 1 << 40):
        pending.setdefault((kind, agent_id), []).append(row_id)
    texts: dict[str, None] = {}
    for kind in sorted(KINDS, key=lambda k: k != KIND_TRANSCRIPT):
        for agent_id in sorted(a for k, a in pending if k == kind):
            # By id: the store answers `id IN (…)` in its own order (PostgreSQL's differs from SQLite's).
            rows = sorted(store.rows.texts_to_embed(kind, agent_id, pending[kind, agent_id]))
            texts.update((t, None) for _, t in rows)
    return list(texts)


def cache_key(texts: Sequence[str], model: str) -> str:
    """sha256 of the format, the model and the texts (each length-prefixed, so no two lists share a key)."""
    digest = hashlib.sha256(MAGIC + model.encode() + b"\0")
    for text in texts:
        data = text.encode("utf-8")
        digest.update(len(data).to_bytes(8, "little"))
        digest.update(data)
    return digest.hexdigest()


def cache_path(directory: Path, key: str) -> Path:
    return directory / f"assemble-{key}.vec"


def write_cache(path: Path, key: str, model: str, vectors: npt.NDArray[np.float32]) -> None:
    """Write atomically (a temporary file renamed over `path`): a crash leaves the old file or none."""
    data = np.ascontiguousarray(vectors, dtype="<f4")
    header = {
        "key": key,
        "model": model,
        "count": int(data.shape[0]),
        "dimension": int(data.shape[1]),
        "dtype": "<f4",
        "payload_sha256": hashlib.sha256(data.tobytes()).hexdigest(),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as out:
        out.write(MAGIC)
        out.write(json.dumps(header, sort_keys=True).encode() + b"\n")
        out.write(data.tobytes())
    os.replace(tmp, path)


def read_cache(path: Path, key: str, model: str, count: int) -> tuple[npt.NDArray[np.float32] | None, str]:
    """(vectors, "") when `path` holds exactly `count` vectors of `model` for `key` and its payload checksum holds;
    else (None, why not)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None, "no cache file"
    if not raw.startswith(MAGIC):
        return None, "not a cache file"
    end = raw.find(b"\n", len(MAGIC))
    try:
        header = json.loads(raw[len(MAGIC) : end])
        dimension = int(header["dimension"])
        expected = (header["key"], header["model"], int(header["count"]), header["dtype"])
    except (ValueError, KeyError, TypeError):
        return None, "unreadable header"
    if end < 0 or expected != (key, model, count, "<f4"):
        return None, "header does not match the corpus"
    payload = raw[end + 1 :]
    if len(payload) != count * dimension * 4:
        return None, f"payload is {len(payload)} bytes, expected {count * dimension * 4}"
    if hashlib.sha256(payload).hexdigest() != header.get("payload_sha256"):
        return None, "payload checksum mismatch"
    vectors = np.frombuffer(payload, dtype="<f4").reshape(count, dimension).astype(np.float32)
    if not np.isfinite(vectors).all():
        return None, "non-finite values"
    return vectors, ""


class FakeCorpusVectors:
    """`fake` mode: inferd's fake model's vectors, under the name the caller (memory.json's embeddingModel) asks
    for. Only the label changes; the call and the reply are inferd's."""

    def __init__(self, client: InferenceClient | Any) -> None:
        self.client = client

    def embed(self, texts: Sequence[str], *, model: str = "", timeout_s: float | None = None) -> Embeddings:
        reply = self.client.embed(texts, model=FAKE_MODEL, timeout_s=timeout_s)
        return Embeddings(vectors=reply.vectors, model=model or REAL_MODEL, dimension=reply.dimension)


class CachedCorpusVectors:
    """`minilm` mode: the real model's vectors for the corpus's texts, from the cache (no inferd call). A text the
    cache does not hold raises KeyError: the seed stops rather than store a vector from elsewhere."""

    def __init__(
        self, texts: Sequence[str], vectors: npt.NDArray[np.float32], model: str = REAL_MODEL
    ) -> None:
        if len(texts) != vectors.shape[0]:
            raise ValueError(f"{len(texts)} texts for {vectors.shape[0]} vectors")
        self.row = {text: i for i, text in enumerate(texts)}
        self.vectors = vectors
        self.model = model
        self.calls = 0

    def embed(self, texts: Sequence[str], *, model: str = "", timeout_s: float | None = None) -> Embeddings:
        self.calls += 1
        picked = self.vectors[[self.row[t] for t in texts]]
        return Embeddings(vectors=picked, model=model or self.model, dimension=int(self.vectors.shape[1]))


@dataclass(frozen=True)
class CorpusVectorsInfo:
    """Which vectors a seed used, for the bench's text."""

    mode: str
    #: `minilm`: the cache file, whether this seed computed it (and why) and how long that took.
    path: Path | None = None
    computed: bool = False
    reason: str = ""
    compute_s: float = 0.0
    count: int = 0

    def text(self) -> str:
        if self.mode == FAKE:
            return (
                "corpus vectors: `fake` mode (OSAURUS_BENCH_ASSEMBLE_CORPUS_VECTORS=fake): inferd's fake 384-d model,"
                " stored under all-MiniLM-L6-v2's name, so the real-MiniLM queries search rows from another space"
            )
        how = (
            f"computed by this run in {self.compute_s:.0f} s ({self.reason})"
            if self.computed
            else "read from the cache"
        )
        return (
            f"corpus vectors: `minilm` mode (the default): the {self.count:,} distinct row texts embedded by the real"
            f" all-MiniLM-L6-v2 through inferd, the model that embeds the queries ({how}: {self.path})"
        )


#: What a `fake` seed used.
FAKE_INFO = CorpusVectorsInfo(FAKE)


def compute_vectors(
    client: InferenceClient | Any,
    texts: Sequence[str],
    *,
    partial: Path | None = None,
    key: str = "",
    chunk: int = FILL_CHUNK,
    progress: Callable[[int, int], None] | None = None,
) -> npt.NDArray[np.float32]:
    """The real model's vectors for `texts`, through inferd: chunks of `chunk` texts in order, each sent in batches
    of FILL_BATCH texts of similar length (less padding). With `partial`, every finished chunk is appended there
    (PartialFile) and a later call with the same key resumes after the chunks already there."""
    store = PartialFile(partial, key, REAL_MODEL) if partial is not None else None
    parts = store.read() if store is not None else []
    done = sum(p.shape[0] for p in parts)
    if progress is not None and done:
        progress(done, len(texts))
    while done < len(texts):
        texts_chunk = list(texts[done : done + chunk])
        vectors = np.zeros((len(texts_chunk), 0), dtype=np.float32)
        order = sorted(range(len(texts_chunk)), key=lambda i: len(texts_chunk[i]))
        for start in range(0, len(order), FILL_BATCH):
            picked = order[start : start + FILL_BATCH]
            reply = client.embed([texts_chunk[i] for i in picked], model=REAL_MODEL, timeout_s=FILL_TIMEOUT_S)
            if reply.vectors.shape[0] != len(picked):
                raise RuntimeError(
                    f"inferd returned {reply.vectors.shape[0]} vectors for {len(picked)} texts"
                )
            if vectors.shape[1] == 0:
                vectors = np.zeros((len(texts_chunk), reply.vectors.shape[1]), dtype=np.float32)
            vectors[picked] = reply.vectors
        if store is not None:
            store.append(vectors)
        parts.append(vectors)
        done += len(texts_chunk)
        if progress is not None:
            progress(done, len(texts))
    return np.concatenate(parts) if parts else np.zeros((0, 384), dtype=np.float32)


class PartialFile:
    """The chunks of an unfinished fill: MAGIC, a JSON header line (key, model), then records of (8-byte index of the
    record's first text, 8-byte row count, 8-byte dimension, sha256 of the values, the values as <f4). Reading stops
    at the first record that is short, out of place or fails its checksum, and the file is cut there: a fill killed
    mid-write loses one chunk, never keeps a bad one. One writer at a time (cached_vectors holds a lock)."""

    RECORD = 56

    def __init__(self, path: Path, key: str, model: str) -> None:
        self.path = path
        self.header = MAGIC + json.dumps({"key": key, "model": model, "partial": 2}).encode() + b"\n"
        self.rows = 0

    def read(self) -> list[npt.NDArray[np.float32]]:
        """The whole chunks, in order; a missing or foreign file is started afresh, a torn or bad tail cut off."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            raw = b""
        if not raw.startswith(self.header):
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self.path.write_bytes(self.header)
            self.rows = 0
            return []
        parts, at = self._parse(raw)
        if at != len(raw):
            with self.path.open("r+b") as out:
                out.truncate(at)
        return parts

    def read_only(self) -> list[npt.NDArray[np.float32]]:
        """The whole chunks, in order, leaving the file as it is (a fill may be appending to it)."""
        try:
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return []
        return self._parse(raw)[0] if raw.startswith(self.header) else []

    def _parse(self, raw: bytes) -> tuple[list[npt.NDArray[np.float32]], int]:
        parts: list[npt.NDArray[np.float32]] = []
        self.rows = 0
        at = len(self.header)
        while at + self.RECORD <= len(raw):
            first, rows, dimension = (int.from_bytes(raw[at + i : at + i + 8], "little") for i in (0, 8, 16))
            end = at + self.RECORD + rows * dimension * 4
            values = raw[at + self.RECORD : end]
            if (
                first != self.rows
                or end > len(raw)
                or hashlib.sha256(values).digest() != raw[at + 24 : at + 56]
            ):
                break
            parts.append(np.frombuffer(values, dtype="<f4").reshape(rows, dimension).astype(np.float32))
            self.rows += rows
            at = end
        return parts, at

    def append(self, vectors: npt.NDArray[np.float32]) -> None:
        data = np.ascontiguousarray(vectors, dtype="<f4").tobytes()
        record = b"".join(int(n).to_bytes(8, "little") for n in (self.rows, *vectors.shape))
        with self.path.open("ab") as out:
            out.write(record + hashlib.sha256(data).digest() + data)
            out.flush()
            os.fsync(out.fileno())
        self.rows += vectors.shape[0]


def cached_vectors(
    texts: Sequence[str],
    client: InferenceClient | Any,
    directory: Path,
    *,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[npt.NDArray[np.float32], CorpusVectorsInfo]:
    """The real model's vectors for `texts`: read from the cache when it holds them intact, else computed through
    `client` and written to it."""
    key = cache_key(texts, REAL_MODEL)
    path = cache_path(directory, key)
    vectors, why = read_cache(path, key, REAL_MODEL, len(texts))
    if vectors is not None:
        return vectors, CorpusVectorsInfo(MINILM, path, count=len(texts))
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_suffix(".lock").open("a") as lock:
        # Another fill of the same corpus (`fill`, or a bench run) may be at work: wait for it, then look again.
        fcntl.flock(lock, fcntl.LOCK_EX)
        vectors, _ = read_cache(path, key, REAL_MODEL, len(texts))
        if vectors is not None:
            return vectors, CorpusVectorsInfo(MINILM, path, count=len(texts))
        started = time.perf_counter()
        partial = path.with_suffix(".partial")
        vectors = compute_vectors(client, texts, partial=partial, key=key, progress=progress)
        seconds = time.perf_counter() - started
        write_cache(path, key, REAL_MODEL, vectors)
        partial.unlink(missing_ok=True)
    return vectors, CorpusVectorsInfo(MINILM, path, True, why, seconds, len(texts))


def corpus_client(
    store: Any, client: InferenceClient | Any, mode: str, directory: Path | None = None
) -> tuple[FakeCorpusVectors | CachedCorpusVectors, CorpusVectorsInfo]:
    """The client memoryd's Indexer embeds the rows of `store` through while seeding, in `mode`."""
    if mode == FAKE:
        return FakeCorpusVectors(client), CorpusVectorsInfo(FAKE)
    if mode != MINILM:
        raise ValueError(f"unknown corpus-vector mode {mode!r}")
    texts = corpus_texts(store)
    vectors, info = cached_vectors(texts, client, directory or cache_dir(), progress=_progress)
    return CachedCorpusVectors(texts, vectors), info


def _progress(done: int, total: int) -> None:
    print(
        f"{time.strftime('%H:%M:%S')} corpus vectors: {done:,} / {total:,} embedded",
        file=sys.stderr,
        flush=True,
    )


def fill(scale: float = 1.0) -> CorpusVectorsInfo:
    """Seed a scratch SQLite store as bench_assemble does (rows only) and fill the `minilm` cache for it."""
    import random
    import shutil
    import tempfile

    from bench.assemble_corpus import SEED, make_corpus, populate, write_config
    from bench.bench_assemble import inferd_process
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    home = Path(tempfile.mkdtemp(prefix="bench-assemble-vectors-"))
    try:
        with inferd_process(home / "inferd") as target:
            write_config(home / "store")
            app = build_app(
                ServiceSettings(
                    listen="127.0.0.1:0", home=home / "store", inferd_addr=target, background_indexing=False
                )
            )
            client = InferenceClient(target, deadline_s=FILL_TIMEOUT_S)
            try:
                rng = random.Random(SEED)
                populate(app, make_corpus(rng), rng, scale, int(time.time() * 1000))
                return corpus_client(app.store, client, MINILM)[1]
            finally:
                client.close()
                app.close()
    finally:
        shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    if sys.argv[1:2] != ["fill"]:
        sys.exit("usage: python -m bench.assemble_vectors fill [scale]")
    info = fill(float(sys.argv[2]) if len(sys.argv) > 2 else 1.0)
    print(info.text())
