"""Hybrid search through a real memoryd with a fake inferd: vectors, fallbacks, rebuilds, deletes, isolation."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import field_mask_pb2

from memoryd.domain import KIND_TRANSCRIPT
from memoryd.vectors.agent_index import MANIFEST_FILE
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from tests.fakes.fake_inferd import FakeInferdState, running_fake_inferd
from tests.support.memoryd_server import MemorydHandle, buffer, enable_recall, running_memoryd, search

CAR = "I drove my car up to the mountain cabin last weekend."
NOISE = [
    "We talked about sourdough bread and its starter.",
    "The quarterly report is due next Tuesday.",
    "My cat knocked the plant off the shelf again.",
]


@pytest.fixture
def inferd() -> Iterator[FakeInferdState]:
    with running_fake_inferd() as (_server, state):
        state.target = _server.target  # type: ignore[attr-defined]
        yield state


@pytest.fixture
def memoryd(tmp_path: Path, inferd: FakeInferdState) -> Iterator[MemorydHandle]:
    with running_memoryd(tmp_path, inferd_addr=inferd.target) as handle:  # type: ignore[attr-defined]
        yield handle


def _seed(handle: MemorydHandle, agent: str = "agent") -> None:
    enable_recall(handle.memory, agent)
    buffer(handle.memory, agent, "c1", CAR)
    for text in NOISE:
        buffer(handle.memory, agent, "c1", text)


def test_vectors_find_what_full_text_cannot(memoryd: MemorydHandle) -> None:
    _seed(memoryd)
    assert memoryd.app.indexer.run_once() == 4
    reply = search(memoryd.memory, "agent", "automobile")  # no shared word; the fake embeds it near "car"
    assert reply.method == "hybrid"
    assert reply.hits and reply.hits[0].text == CAR


def test_search_falls_back_to_fts_while_inferd_fails_then_indexes_later(
    memoryd: MemorydHandle, inferd: FakeInferdState
) -> None:
    inferd.fail_embeds = True
    _seed(memoryd)
    assert memoryd.app.indexer.run_once() == 0  # rows stored without vectors
    reply = search(memoryd.memory, "agent", "mountain cabin")
    assert reply.method == "fts"
    assert reply.hits[0].text == CAR
    assert not search(memoryd.memory, "agent", "automobile").hits  # FTS alone cannot bridge the synonym
    inferd.fail_embeds = False
    memoryd.app.embedder._retry_at = 0.0  # skip the back-off wait
    assert memoryd.app.indexer.run_once() == 4  # indexed later
    assert search(memoryd.memory, "agent", "automobile").hits[0].text == CAR


def test_a_pass_with_nothing_to_index_moves_the_marks_so_the_next_scans_only_newer_rows(
    memoryd: MemorydHandle, monkeypatch: pytest.MonkeyPatch
) -> None:
    _seed(memoryd)
    assert memoryd.app.indexer.run_once() == 4
    embeddings = memoryd.app.store.embeddings
    scanned_after: list[dict[str, int]] = []
    real_missing = embeddings.missing

    def recording(model: str, limit: int, agent_id: str | None = None, after: Any = None) -> Any:
        scanned_after.append(dict(after or {}))
        return real_missing(model, limit, agent_id, after)

    monkeypatch.setattr(embeddings, "missing", recording)
    memoryd.app.indexer._marks_model = None  # forget the marks, as a restart does: every row is scanned again
    assert memoryd.app.indexer.run_once() == 0
    assert scanned_after[-1] == {}
    assert memoryd.app.indexer.run_once() == 0
    last_turn = memoryd.app.store.db.last_id("transcript")
    # The second pass starts above every row the first (empty) one covered, instead of joining them all again.
    assert scanned_after[-1]["transcript"] == last_turn
    buffer(memoryd.memory, "agent", "c1", "A turn written after the marks moved.")
    assert memoryd.app.indexer.run_once() == 1  # a newer row is still found and indexed
    assert scanned_after[-2]["transcript"] == last_turn


def test_backend_none_uses_fts_only_and_never_calls_inferd(
    memoryd: MemorydHandle, inferd: FakeInferdState
) -> None:
    memoryd.console.UpdateConfig(
        cpb.UpdateConfigRequest(
            config=cpb.MemoryConfig(embedding_backend=cpb.EMBEDDING_BACKEND_NONE),
            update_mask=field_mask_pb2.FieldMask(paths=["embedding_backend"]),
        ),
        timeout=10,
    )
    _seed(memoryd)
    assert memoryd.app.indexer.run_once() == 0
    reply = search(memoryd.memory, "agent", "car mountain")
    assert reply.method == "fts" and reply.hits[0].text == CAR
    assert inferd.embed_calls == 0


def test_index_is_persisted_with_manifest_and_rebuilt_without_reembedding(
    tmp_path: Path, inferd: FakeInferdState
) -> None:
    target = inferd.target  # type: ignore[attr-defined]
    with running_memoryd(tmp_path, inferd_addr=target) as handle:
        _seed(handle)
        handle.app.indexer.run_once()
        directory = handle.app.vectors.directory("agent")
    manifest = json.loads((directory / MANIFEST_FILE).read_text())
    assert manifest["agent_id"] == "agent" and manifest["model"] == "all-minilm-l6-v2"
    assert manifest["dimension"] == 64 and manifest["count"] == 4
    assert manifest["counts"] == {"transcript": 4}
    embedded_rows = inferd.texts_embedded

    # Missing: delete the files; the index comes back from the embeddings table, rows are not re-embedded.
    for path in directory.iterdir():
        path.unlink()
    with running_memoryd(tmp_path, inferd_addr=target) as handle:
        assert search(handle.memory, "agent", "automobile").hits[0].text == CAR
        assert handle.app.vectors.rebuilds == 1
    assert inferd.texts_embedded == embedded_rows + 1  # only the query

    # Stale: a manifest whose count disagrees with the table triggers a rebuild too.
    manifest = json.loads((directory / MANIFEST_FILE).read_text())
    manifest["count"] = 99
    (directory / MANIFEST_FILE).write_text(json.dumps(manifest))
    with running_memoryd(tmp_path, inferd_addr=target) as handle:
        assert search(handle.memory, "agent", "automobile").hits[0].text == CAR
        assert handle.app.vectors.rebuilds == 1


def test_model_change_reembeds_and_never_mixes_vector_spaces(tmp_path: Path, inferd: FakeInferdState) -> None:
    target = inferd.target  # type: ignore[attr-defined]
    with running_memoryd(tmp_path, inferd_addr=target) as handle:
        _seed(handle)
        assert handle.app.indexer.run_once() == 4
        inferd.model, inferd.dimension = "other-embedder", 32
        handle.console.UpdateConfig(
            cpb.UpdateConfigRequest(
                config=cpb.MemoryConfig(embedding_model="other-embedder"),
                update_mask=field_mask_pb2.FieldMask(paths=["embedding_model"]),
            ),
            timeout=10,
        )
        assert handle.app.indexer.run_once() == 4  # every row again, in the new space
        assert search(handle.memory, "agent", "automobile").hits[0].text == CAR
        manifest = json.loads((handle.app.vectors.directory("agent") / MANIFEST_FILE).read_text())
    assert (manifest["model"], manifest["dimension"]) == ("other-embedder", 32)
    with sqlite3.connect(tmp_path / "memory" / "memory.sqlite") as db:
        assert db.execute("SELECT DISTINCT model, dimension FROM embeddings").fetchall() == [
            ("other-embedder", 32)
        ]


def test_deleting_rows_and_agents_deletes_their_vectors(memoryd: MemorydHandle, tmp_path: Path) -> None:
    _seed(memoryd, "doomed")
    _seed(memoryd, "keeper")
    memoryd.app.indexer.run_once()
    memoryd.app.vectors.flush()
    store = memoryd.app.store
    # One row: the table trigger drops its embedding, the indexer drops it from faiss.
    row_id = int(store.db.scalar("SELECT min(id) FROM transcript WHERE agent_id = 'keeper'"))
    with store.db.write():
        store.db.execute("DELETE FROM transcript WHERE id = ?", (row_id,))
    assert not store.db.scalar(
        "SELECT count(*) FROM embeddings WHERE row_id = ? AND kind = 'transcript'", (row_id,)
    )
    assert memoryd.app.indexer.forget("keeper", KIND_TRANSCRIPT, [row_id]) == 1
    # A whole agent.
    directory = memoryd.app.vectors.directory("doomed")
    assert directory.exists()
    reply = memoryd.memory.DeleteAgent(mpb.DeleteAgentRequest(agent_id="doomed"), timeout=10)
    assert reply.vectors_deleted == 4
    assert reply.rows_deleted == 4 + 4 + 4 + 1  # transcript, signals, embeddings, agent
    assert not directory.exists()
    assert not store.db.scalar("SELECT count(*) FROM embeddings WHERE agent_id = 'doomed'")
    assert search(memoryd.memory, "keeper", "automobile").hits  # the other agent is untouched


def test_isolation_probes_fts_and_vectors(memoryd: MemorydHandle) -> None:
    """A query for one agent can never see another agent's rows, by keyword or by vector."""
    secrets = {
        "alpha": "The vault combination is periwinkle seven.",
        "beta": "Beta keeps chickens in the yard.",
    }
    for agent, secret in secrets.items():
        enable_recall(memoryd.memory, agent)
        buffer(memoryd.memory, agent, "c", secret)
        buffer(memoryd.memory, agent, "c", "Shared words: vault chickens periwinkle yard combination.")
    memoryd.app.indexer.run_once()
    for agent in secrets:
        other = next(a for a in secrets if a != agent)
        for query in (secrets[other], "periwinkle chickens vault", "automobile"):
            for scope in (mpb.SCOPE_TRANSCRIPT, mpb.SCOPE_PINNED, mpb.SCOPE_EPISODES):
                reply = search(memoryd.memory, agent, query, scope=scope, limit=100)
                texts = {hit.text for hit in reply.hits}
                assert secrets[other] not in texts, (agent, query)
                ids = {hit.item.id for hit in reply.hits}
                own = {
                    str(r[0])
                    for r in memoryd.app.store.db.query(
                        "SELECT id FROM transcript WHERE agent_id = ?", (agent,)
                    )
                }
                assert ids <= own or scope != mpb.SCOPE_TRANSCRIPT


def test_per_agent_keyword_statistics_change_the_ranking(memoryd: MemorydHandle) -> None:
    """FTS5's bm25() uses table-wide IDF: another agent's vocabulary must not reorder this agent's results.

    (The informative-row prior is off: it would lift the longer recipe rows, and this test is about BM25 alone.)"""
    enable_recall(memoryd.memory, "me")
    buffer(memoryd.memory, "me", "c", "zebra notes from today")  # zebra is rare for "me"
    buffer(memoryd.memory, "me", "c", "lemon notes from today")
    for i in range(8):
        buffer(memoryd.memory, "me", "c", f"lemon tart recipe number {i} with sugar and butter")
    for i in range(60):  # ...but very common in the whole table
        buffer(memoryd.memory, "spammer", "c", f"zebra zebra stripes {i}")
    search_engine = memoryd.app.search
    search_engine.settings = type(search_engine.settings)(
        use_vectors=False, mmr_lambda=1.0, per_agent_stats=True, length_exponent=0.0
    )
    per_agent = search(memoryd.memory, "me", "zebra lemon")
    assert per_agent.hits[0].text == "zebra notes from today"
    search_engine.settings = type(search_engine.settings)(
        use_vectors=False, mmr_lambda=1.0, per_agent_stats=False, length_exponent=0.0
    )
    table_wide = search(memoryd.memory, "me", "zebra lemon")
    assert table_wide.hits[0].text != "zebra notes from today"
    assert {h.text for h in table_wide.hits} <= {h.text for h in per_agent.hits} | {
        h.text for h in table_wide.hits
    }


def _insert_memory_rows(handle: MemorydHandle, agent: str) -> dict[str, int]:
    """Pinned facts and episodes as the writer would store them (the writer is another module's job)."""
    t = handle.app.store.tables
    ids: dict[str, int] = {}
    with handle.app.store.db.write():
        handle.app.store.agents.ensure(agent)
        for name, content, status in (
            ("fact", "The user is allergic to peanuts.", "active"),
            ("disabled_fact", "The user hates peanuts in salads.", "disabled"),
        ):
            ids[name] = t.PinnedFact.insert(
                agent_id=agent, content=content, status=status, salience=0.7, created_at_ms=1, updated_at_ms=1
            ).execute()
        for name, summary, topics, status in (
            ("episode", "Planned a trip to Lisbon with a cafe crawl.", "travel, lisbon", "active"),
            ("disabled_episode", "Discussed Lisbon tram routes.", "travel", "disabled"),
        ):
            ids[name] = t.Episode.insert(
                agent_id=agent,
                conversation_id=name,
                summary=summary,
                topics_csv=topics,
                status=status,
                conversation_at_ms=1,
                created_at_ms=1,
            ).execute()
    return ids


def test_pinned_and_episode_scopes_hide_disabled_rows(memoryd: MemorydHandle) -> None:
    enable_recall(memoryd.memory, "agent")
    ids = _insert_memory_rows(memoryd, "agent")
    assert memoryd.app.indexer.run_once() == 4
    pinned = search(memoryd.memory, "agent", "peanuts", scope=mpb.SCOPE_PINNED)
    assert [h.item.id for h in pinned.hits] == [str(ids["fact"])]
    assert pinned.hits[0].item.kind == mpb.ITEM_KIND_PINNED_FACT and pinned.hits[0].salience == pytest.approx(
        0.7
    )
    episodes = search(memoryd.memory, "agent", "lisbon travel", scope=mpb.SCOPE_EPISODES)
    assert [h.item.id for h in episodes.hits] == [str(ids["episode"])]
    assert list(episodes.hits[0].topics) == ["travel", "lisbon"]
    assert not search(memoryd.memory, "agent", "peanuts", scope=mpb.SCOPE_TRANSCRIPT).hits
    agent = memoryd.memory.GetAgent(mpb.GetAgentRequest(agent_id="agent"), timeout=10).agent
    assert agent.memory_entry_count == 2  # active episodes + active pinned facts; disabled rows do not count
    listed = memoryd.memory.ListAgents(mpb.ListAgentsRequest(), timeout=10).agents
    assert [a.memory_entry_count for a in listed if a.agent_id == "agent"] == [2]
