"""Personal requests answered by durable facts that share no word with them (issue 17, gate-v8).

The issue's own case: after a session in which the user said they are vegetarian and allergic to peanuts, "snack
ideas?" and "suggest a dinner recipe" must get the pinned facts, while arithmetic and translation stay out. And the
hand-check flaw of sessions 10-12: "any good neighbourhoods for a weekend walk near me?" after "I moved to Lisbon"
(an episode) got none:no_evidence. Real memoryd, fake inferd (hashed bag of words: no shared word, no cosine).

The features of PROBE_QUERIES are recorded in bench/gate_personal_probe_v12.json (bench/gate_probe_record.py);
bench/train_gate.py chooses only a candidate whose first choice is the expected section for each.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.memoryd_server import MemorydHandle, running_memoryd

AGENT = "personal-agent"
MOVED = "moved-agent"
#: gate-v9: an identity holding where the user lives beside pinned diet facts (the hand check of session 13).
BERGEN = "bergen-agent"
DAY_MS = 86_400_000
PINNED = (
    "Maya is vegetarian and allergic to peanuts",
    "The Ledgerly beta ships on December 15",
    "The quarterly report goes to Dev on Wednesday",
)
EPISODE = "The user talked about the Ledgerly beta and the quarterly report."
PROBE_QUERIES = (
    ("snack ideas?", "pinned"),
    ("suggest a dinner recipe", "pinned"),
    ("what should I cook tonight?", "pinned"),
    ("what is 17 times 23?", "none"),
    ("translate 'good morning' into French", "none"),
)
PROBE = Path(__file__).resolve().parents[2] / "bench" / "gate_personal_probe_v12.json"
NEAR_QUERY = "any good neighbourhoods for a weekend walk near me?"


def _insert_episode(handle: MemorydHandle, agent: str, summary: str, at_ms: int) -> None:
    handle.app.store.db.pw.connection().execute(
        "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, decisions,"
        " action_items, salience, conversation_at_ms, created_at_ms) VALUES (?, 'c1', ?, '', '', '', '', 0.5, ?, ?)",
        (agent, summary, at_ms, at_ms),
    )


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with (
        running_fake_inferd() as (server, _state),
        running_memoryd(tmp_path, inferd_addr=server.target) as handle,  # type: ignore[attr-defined]
    ):
        seed(handle)
        yield handle


def seed(handle: MemorydHandle) -> None:
    """The issue's agent (three pinned facts, one vague episode) and an agent whose one episode says where the user
    moved, written to the store and indexed."""
    store = handle.app.store
    store.agents.ensure(AGENT)
    store.agents.ensure(MOVED)
    store.agents.ensure(BERGEN)
    now_ms = int(time.time() * 1000)
    with store.db.write():
        for text in PINNED:
            store.db.pw.connection().execute(
                "INSERT INTO pinned_facts (agent_id, content, salience, status, created_at_ms, updated_at_ms)"
                " VALUES (?, ?, 0.6, 'active', ?, ?)",
                (AGENT, text, now_ms, now_ms),
            )
        _insert_episode(handle, AGENT, EPISODE, now_ms - DAY_MS)
        _insert_episode(handle, MOVED, "I moved to Lisbon last month.", now_ms - DAY_MS)
        store.db.pw.connection().execute(
            "INSERT INTO identity_facts (agent_id, content, created_at_ms, updated_at_ms) VALUES (?, ?, ?, ?)",
            (BERGEN, "Works as a physiotherapist in Bergen", now_ms, now_ms),
        )
        for text in PINNED[:1]:
            store.db.pw.connection().execute(
                "INSERT INTO pinned_facts (agent_id, content, salience, status, created_at_ms, updated_at_ms)"
                " VALUES (?, ?, 0.6, 'active', ?, ?)",
                (BERGEN, text, now_ms, now_ms),
            )
    handle.app.indexer.run_once()


def assemble(handle: MemorydHandle, query: str, agent: str = AGENT) -> mpb.AssembleContextResponse:
    reply: mpb.AssembleContextResponse = handle.memory.AssembleContext(
        mpb.AssembleContextRequest(agent_id=agent, query=query), timeout=10
    )
    return reply


def _features(reply: mpb.AssembleContextResponse) -> dict[str, float]:
    return {f.name: f.value for f in reply.decision.features}


def test_the_recorded_probe_is_what_the_read_path_measures(memoryd: MemorydHandle) -> None:
    recorded = json.loads(PROBE.read_text(encoding="utf-8"))
    assert [(r["query"], r["expected"]) for r in recorded] == list(PROBE_QUERIES)
    for row in recorded:
        live = _features(assemble(memoryd, row["query"]))
        assert live == pytest.approx(row["features"], abs=1e-6)


def test_the_frame_fires_on_requests_and_not_on_complete_ones(memoryd: MemorydHandle) -> None:
    for query, want in PROBE_QUERIES:
        features = _features(assemble(memoryd, query))
        assert features["ask_for_user"] == (1.0 if want == "pinned" else 0.0), query
        assert features["for_user_x_p_has"] == features["ask_for_user"], query


@pytest.mark.parametrize("query", [q for q, want in PROBE_QUERIES if want == "pinned"])
def test_the_shipped_gate_answers_a_personal_request_from_the_pinned_facts(
    memoryd: MemorydHandle, query: str
) -> None:
    reply = assemble(memoryd, query)
    assert reply.reason.split(";")[0] == "evidence:pinned", reply.reason
    assert "vegetarian and allergic to peanuts" in reply.block


@pytest.mark.parametrize("query", [q for q, want in PROBE_QUERIES if want == "none"])
def test_complete_requests_stay_out(memoryd: MemorydHandle, query: str) -> None:
    assert assemble(memoryd, query).reason.startswith("none:")


def test_a_place_dependent_request_gets_where_the_user_lives(memoryd: MemorydHandle) -> None:
    reply = assemble(memoryd, NEAR_QUERY, MOVED)
    assert reply.reason.split(";")[0] == "evidence:episodes", reply.reason
    assert "Lisbon" in reply.block


def test_a_place_dependent_request_takes_the_identity_place_first(memoryd: MemorydHandle) -> None:
    """gate-v9: the identity says where the user is, so it answers "near me" before the pinned diet facts, whatever
    the model prefers (the personal frame fires on "any good …")."""
    reply = assemble(memoryd, NEAR_QUERY, BERGEN)
    assert _features(reply)["id_place"] == 1.0
    assert reply.reason.split(";")[0] == "evidence:identity", reply.reason
    assert "Bergen" in reply.block
