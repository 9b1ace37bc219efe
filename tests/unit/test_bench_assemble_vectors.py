"""bench_assemble's corpus vectors (bench/assemble_vectors.py): the cache round trip (write, read, a corrupt or
mismatched file recomputed, never used), a killed fill resumed, and the mode switch through the real seed on a real
SQLite store. Vectors come from inferd's own fake embedder (in-process), which counts as the model here."""

from __future__ import annotations

import random
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from bench import assemble_vectors as av
from inferd.backends.fake import FakeEmbedder
from inferd.client import Embeddings


class Inferd:
    """inferd's fake embedder behind the client's embed(): counts calls and texts, can fail after `fail_after`
    calls (a fill killed midway)."""

    def __init__(self, fail_after: int | None = None) -> None:
        self.backend = FakeEmbedder()
        self.calls = 0
        self.texts = 0
        self.models: list[str] = []
        self.fail_after = fail_after

    def embed(self, texts: Sequence[str], *, model: str = "", timeout_s: float | None = None) -> Embeddings:
        if self.fail_after is not None and self.calls >= self.fail_after:
            raise RuntimeError("inferd went away")
        self.calls += 1
        self.texts += len(texts)
        self.models.append(model)
        vectors = self.backend.embed(list(texts))
        return Embeddings(vectors=vectors, model=model, dimension=int(vectors.shape[1]))


TEXTS = [f"Turn {i} about the {'lease' if i % 3 else 'project'} and word{i * 7}." for i in range(23)]


def test_cache_round_trip_and_every_kind_of_damage_is_refused(tmp_path: Path) -> None:
    vectors = Inferd().embed(TEXTS).vectors
    key = av.cache_key(TEXTS, av.REAL_MODEL)
    path = av.cache_path(tmp_path, key)
    av.write_cache(path, key, av.REAL_MODEL, vectors)
    read, why = av.read_cache(path, key, av.REAL_MODEL, len(TEXTS))
    assert why == "" and read is not None
    assert read.dtype == np.float32 and np.array_equal(read, vectors)
    # The key covers model and texts: another text, order or model is another key.
    assert av.cache_key([*TEXTS[:-1], TEXTS[-1] + " "], av.REAL_MODEL) != key
    assert av.cache_key(TEXTS[::-1], av.REAL_MODEL) != key
    assert av.cache_key(TEXTS, av.FAKE_MODEL) != key
    assert av.cache_key(["ab", "c"], av.REAL_MODEL) != av.cache_key(["a", "bc"], av.REAL_MODEL)
    assert av.read_cache(path, "0" * 64, av.REAL_MODEL, len(TEXTS)) == (
        None,
        "header does not match the corpus",
    )
    assert av.read_cache(path, key, av.REAL_MODEL, len(TEXTS) + 1)[1] == "header does not match the corpus"
    raw = bytearray(path.read_bytes())
    raw[-5] ^= 0x40  # one bit of one vector
    path.write_bytes(bytes(raw))
    assert av.read_cache(path, key, av.REAL_MODEL, len(TEXTS)) == (None, "payload checksum mismatch")
    path.write_bytes(bytes(raw[:-4]))
    assert av.read_cache(path, key, av.REAL_MODEL, len(TEXTS))[1].startswith("payload is ")
    path.write_bytes(b"garbage")
    assert av.read_cache(path, key, av.REAL_MODEL, len(TEXTS)) == (None, "not a cache file")
    path.write_bytes(av.MAGIC + b"{not json\n")
    assert av.read_cache(path, key, av.REAL_MODEL, len(TEXTS)) == (None, "unreadable header")
    assert av.read_cache(tmp_path / "absent.vec", key, av.REAL_MODEL, 1) == (None, "no cache file")


def test_cached_vectors_compute_once_read_after_and_recompute_a_corrupt_file(tmp_path: Path) -> None:
    first = Inferd()
    vectors, info = av.cached_vectors(TEXTS, first, tmp_path)
    assert info.computed and info.reason == "no cache file" and info.count == len(TEXTS)
    assert first.texts == len(TEXTS) and set(first.models) == {
        av.REAL_MODEL
    }  # the real model's name is asked for
    assert info.path is not None and info.path.exists()
    assert not info.path.with_suffix(
        ".partial"
    ).exists()  # the fill's chunks are gone once the cache is written
    assert np.array_equal(
        vectors, Inferd().embed(TEXTS).vectors
    )  # each text's own vector, in the texts' order

    again = Inferd()
    read, info2 = av.cached_vectors(TEXTS, again, tmp_path)
    assert again.calls == 0 and not info2.computed and np.array_equal(read, vectors)
    assert "read from the cache" in info2.text()

    raw = bytearray(info.path.read_bytes())
    raw[-1] ^= 0x01
    info.path.write_bytes(bytes(raw))
    third = Inferd()
    redone, info3 = av.cached_vectors(TEXTS, third, tmp_path)
    assert info3.computed and info3.reason == "payload checksum mismatch"
    assert third.texts == len(TEXTS) and np.array_equal(redone, vectors)
    assert av.read_cache(info.path, av.cache_key(TEXTS, av.REAL_MODEL), av.REAL_MODEL, len(TEXTS))[1] == ""


def test_a_killed_fill_resumes_after_its_last_whole_chunk(tmp_path: Path) -> None:
    key = av.cache_key(TEXTS, av.REAL_MODEL)
    partial = tmp_path / "x.partial"
    # Chunks of 5 texts, one Embed call each (FILL_BATCH ≥ 5): the third call fails, two chunks are kept.
    with pytest.raises(RuntimeError):
        av.compute_vectors(Inferd(fail_after=2), TEXTS, partial=partial, key=key, chunk=5)
    kept = av.PartialFile(partial, key, av.REAL_MODEL)
    assert sum(p.shape[0] for p in kept.read()) == 10
    # A torn last record (killed mid-write) is cut off, the whole ones stay.
    with partial.open("ab") as out:
        out.write(b"\x05" + b"\0" * 30)
    resumed = Inferd()
    vectors = av.compute_vectors(resumed, TEXTS, partial=partial, key=key, chunk=5)
    assert resumed.texts == len(TEXTS) - 10
    assert np.array_equal(vectors, Inferd().embed(TEXTS).vectors)
    # A damaged record is dropped with every record after it; they are computed again.
    raw = bytearray(partial.read_bytes())
    raw[len(kept.header) + av.PartialFile.RECORD + 3] ^= 0xFF  # a value of the first record
    partial.write_bytes(bytes(raw))
    again = Inferd()
    assert np.array_equal(av.compute_vectors(again, TEXTS, partial=partial, key=key, chunk=5), vectors)
    assert again.texts == len(TEXTS)
    # Another corpus's partial file is not resumed from.
    other = Inferd()
    av.compute_vectors(other, TEXTS[:7], partial=partial, key="other", chunk=5)
    assert other.texts == 7


def test_mode_switch_reads_the_environment() -> None:
    assert av.vectors_mode({}) == av.MINILM == av.DEFAULT_MODE
    assert av.vectors_mode({av.ENV: ""}) == av.MINILM
    assert av.vectors_mode({av.ENV: " Fake "}) == av.FAKE
    assert av.vectors_mode({av.ENV: "minilm"}) == av.MINILM
    with pytest.raises(ValueError, match="must be one of minilm, fake"):
        av.vectors_mode({av.ENV: "bert"})
    assert av.cache_dir({av.CACHE_ENV: "/x/y"}) == Path("/x/y")
    assert av.cache_dir({}) == Path.home() / ".cache" / "osaurus-bench"


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    from bench.assemble_corpus import write_config
    from memoryd.app import build_app
    from memoryd.config import ServiceSettings

    write_config(tmp_path / "home")
    built = build_app(
        ServiceSettings(
            listen="127.0.0.1:0", home=tmp_path / "home", inferd_addr="127.0.0.1:9", background_indexing=False
        )
    )
    try:
        yield built
    finally:
        built.close()


def _stored(home: Path) -> dict[tuple[str, int], tuple[str, bytes]]:
    with sqlite3.connect(home / "memory" / "memory.sqlite") as db:
        rows = db.execute("SELECT kind, row_id, model, vector FROM embeddings").fetchall()
    return {(kind, row_id): (model, bytes(blob)) for kind, row_id, model, blob in rows}


@pytest.mark.parametrize("mode", [av.MINILM, av.FAKE])
def test_seed_gives_the_rows_the_modes_vectors_through_the_indexer(
    mode: str, app: Any, tmp_path: Path
) -> None:
    from bench.assemble_corpus import seed
    from memoryd.storage.rows import EMBED_TEXT_SQL

    client = Inferd()
    _, seeded = seed(app, client, app.vectors, 0.001, 1_700_000_000_000, mode=mode, cache=tmp_path / "cache")
    stored = _stored(tmp_path / "home")
    assert seeded.indexed == len(stored) == 100 + 10 + 5 + 1000  # both agents' rows, every kind
    assert seeded.vectors.mode == mode
    assert {model for model, _ in stored.values()} == {av.REAL_MODEL}  # memory.json's model, in both modes
    if mode == av.FAKE:
        assert set(client.models) == {av.FAKE_MODEL} and "`fake` mode" in seeded.vectors.text()
        assert seeded.vectors.path is None
        return
    # minilm: one Embed call per fill batch for the real model, none during the Indexer's pass (from the cache).
    assert set(client.models) == {av.REAL_MODEL} and client.texts == seeded.vectors.count
    assert seeded.vectors.computed and "`minilm` mode" in seeded.vectors.text()
    expected = Inferd()
    for (kind, row_id), (_, blob) in random.Random(1).sample(sorted(stored.items()), 40):
        text = app.store.db.query(f"{EMBED_TEXT_SQL[kind]} WHERE id = ?", (row_id,))[0][1]
        assert blob == np.asarray(expected.embed([text]).vectors[0], dtype=np.float32).tobytes()


def test_the_sections_text_says_which_mode_ran() -> None:
    from bench.assemble_services import ServiceRun, pg_note, vectors_sentence

    assert "real MiniLM's vectors, as its queries do" in pg_note(av.MINILM)
    assert "fake model" not in pg_note(av.MINILM).split("(benchvec)")[0]
    assert "OSAURUS_BENCH_ASSEMBLE_CORPUS_VECTORS=fake" in pg_note(av.FAKE)
    assert "`minilm` mode" in vectors_sentence(ServiceRun(("sqlite",), {}, vectors_mode=av.MINILM))
    assert "`fake` mode" in vectors_sentence(ServiceRun(("sqlite",), {}, vectors_mode=av.FAKE))
    assert "`fake` mode" in av.FAKE_INFO.text()
