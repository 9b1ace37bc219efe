"""Section by answer (issue 17, gate-v6): a vague episode summary without the value loses to the fact that has it.

Seen by hand with gate-v5: beside the pinned fact "The beta launch moved to December 18", the summary "The user
talked about the beta launch." answered "when is the beta launching?" (no date in the block). The evidence pass
now records which kinds of value each section's top rows hold (answer_kinds), and the shipped model weighs them.
Real memoryd, fake inferd.
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

AGENT = "answer-agent"
DAY_MS = 86_400_000
PINNED = (
    "The beta launch moved to December 18",
    "Maya is vegetarian and allergic to peanuts",
    "The quarterly report goes to Dev on Wednesday",
)
EPISODE = "The user talked about the beta launch."
#: Recorded in bench/gate_answer_probe_v12.json (the live features of these queries with gate-v12's features, by
#: bench/gate_probe_record.py; gate_answer_probe.json is gate-v6's, _v7 gate-v7's); bench/train_gate.py chooses only a
#: candidate whose first choice is the expected section for each.
PROBE_QUERIES = (
    ("when is the beta launching?", "pinned"),
    ("what day is the beta launch?", "pinned"),
    ("what is a beta launch?", "none"),
)
PROBE = Path(__file__).resolve().parents[2] / "bench" / "gate_answer_probe_v12.json"


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with (
        running_fake_inferd() as (server, _state),
        running_memoryd(tmp_path, inferd_addr=server.target) as handle,  # type: ignore[attr-defined]
    ):
        store = handle.app.store
        store.agents.ensure(AGENT)
        now_ms = int(time.time() * 1000)
        conn = store.db.pw.connection()
        with store.db.write():
            for text in PINNED:
                conn.execute(
                    "INSERT INTO pinned_facts (agent_id, content, salience, status, created_at_ms, updated_at_ms)"
                    " VALUES (?, ?, 0.6, 'active', ?, ?)",
                    (AGENT, text, now_ms, now_ms),
                )
            conn.execute(
                "INSERT INTO episodes (agent_id, conversation_id, summary, topics_csv, entities_csv, decisions,"
                " action_items, salience, conversation_at_ms, created_at_ms) VALUES (?, 'c1', ?, 'beta launch', '',"
                " '', '', 0.5, ?, ?)",
                (AGENT, EPISODE, now_ms - DAY_MS, now_ms - DAY_MS),
            )
        handle.app.indexer.run_once()
        yield handle


def _assemble(handle: MemorydHandle, query: str) -> mpb.AssembleContextResponse:
    reply: mpb.AssembleContextResponse = handle.memory.AssembleContext(
        mpb.AssembleContextRequest(agent_id=AGENT, query=query), timeout=10
    )
    return reply


def test_the_features_tell_the_fact_with_the_date_from_the_vague_summary(memoryd: MemorydHandle) -> None:
    features = {f.name: f.value for f in _assemble(memoryd, "when is the beta launching?").decision.features}
    assert features["ask_kind"] == 1.0
    assert (features["p_ans"], features["p_ans_miss"]) == (1.0, 0.0)
    assert (features["e_ans"], features["e_ans_miss"]) == (0.0, 1.0)


def test_the_recorded_probe_is_what_the_read_path_measures(memoryd: MemorydHandle) -> None:
    recorded = json.loads(PROBE.read_text(encoding="utf-8"))
    assert [(r["query"], r["expected"]) for r in recorded] == list(PROBE_QUERIES)
    for row in recorded:
        live = {f.name: f.value for f in _assemble(memoryd, row["query"]).decision.features}
        assert live == pytest.approx(row["features"], abs=1e-6)


@pytest.mark.parametrize("query", [q for q, want in PROBE_QUERIES if want == "pinned"])
def test_the_block_holds_the_date(memoryd: MemorydHandle, query: str) -> None:
    reply = _assemble(memoryd, query)
    assert reply.reason.split(";")[0] == "evidence:pinned", reply.reason
    assert "December 18" in reply.block


def test_a_general_question_naming_the_same_thing_stays_out(memoryd: MemorydHandle) -> None:
    assert _assemble(memoryd, "what is a beta launch?").reason.startswith("none:")
