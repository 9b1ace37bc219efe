"""A new user's agent: a few pinned facts and nothing else (issue 17; gate-v4 answered none:no_evidence here).

gate-v4 was fitted on agents that hold nearly every section and learned to read the empty sections' relative
cosines as "no memory". gate-v5 and gate-v6 are fitted with sparse agents too, and bench/train_gate.py only chooses a candidate
that places the fact for the features recorded here (bench/gate_sparse_probe_v12.json, recorded by
bench/gate_probe_record.py with gate-v12's features and checked below against the live read path; the v6 .. v11
files are what gate-v6 .. gate-v11 were chosen with). gate-v7 read own_name with a rarity route of one row; with
gate-v8's code (two rows) it declines the four-fact agent (P(none) 0.52 at its threshold 0.5), so it is no longer
checked here. Real memoryd, fake inferd.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memoryd.retrieval.gate_evidence import decide_evidence
from memoryd.retrieval.gate_model import DEFAULT_MODEL_PATH, load
from memoryd.retrieval.items import Section
from osaurus.memory.v1 import memory_pb2 as mpb
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.memoryd_server import MemorydHandle, running_memoryd

QUESTION = "When does the Ledgerly beta ship?"
FACT = "The Ledgerly mobile beta ships on March 14"
#: Agents holding pinned facts only (no identity, episodes or transcript): one fact, and the four active facts of
#: tests/integration/test_readpath_evidence.py (where gate-v4 said none, P(none) 0.63).
AGENTS: dict[str, tuple[tuple[str, str], ...]] = {
    "one-fact": ((FACT, "active"),),
    "four-facts": (
        (FACT, "active"),
        ("Maya is vegetarian and allergic to peanuts", "active"),
        ("The quarterly risk report goes to Dev on Wednesday", "active"),
        ("The Zanzibar offsite is in Mombasa", "superseded"),
        ("The offsite moved to Lisbon", "active"),
    ),
}
PROBE = Path(__file__).resolve().parents[2] / "bench" / "gate_sparse_probe_v12.json"


def seed(handle: MemorydHandle, agent: str, facts: tuple[tuple[str, str], ...]) -> None:
    """The agent's pinned facts, written to the store and indexed."""
    store = handle.app.store
    store.agents.ensure(agent)
    now_ms = int(time.time() * 1000)
    with store.db.write():
        for text, status in facts:
            store.db.pw.connection().execute(
                "INSERT INTO pinned_facts (agent_id, content, salience, status, created_at_ms, updated_at_ms)"
                " VALUES (?, ?, 0.6, ?, ?, ?)",
                (agent, text, status, now_ms, now_ms),
            )
    assert handle.app.indexer.run_once() == len(facts)


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with (
        running_fake_inferd() as (server, _state),
        running_memoryd(tmp_path, inferd_addr=server.target) as handle,  # type: ignore[attr-defined]
    ):
        for agent, facts in AGENTS.items():
            seed(handle, agent, facts)
        yield handle


def _assemble(handle: MemorydHandle, agent: str, query: str) -> mpb.AssembleContextResponse:
    reply: mpb.AssembleContextResponse = handle.memory.AssembleContext(
        mpb.AssembleContextRequest(agent_id=agent, query=query), timeout=10
    )
    return reply


@pytest.mark.parametrize("agent", list(AGENTS))
def test_the_shipped_gate_places_the_fact(memoryd: MemorydHandle, agent: str) -> None:
    reply = _assemble(memoryd, agent, QUESTION)
    features = {f.name: f.value for f in reply.decision.features}
    assert (features["p_has"], features["e_has"], features["t_has"], features["id_has"]) == (
        1.0,
        0.0,
        0.0,
        0.0,
    )
    assert reply.reason.split(";")[0] == "evidence:pinned"
    assert f"- {FACT}" in reply.block


def test_the_recorded_probe_is_what_the_read_path_measures(memoryd: MemorydHandle) -> None:
    recorded = json.loads(PROBE.read_text(encoding="utf-8"))
    assert [r["agent"] for r in recorded] == list(AGENTS)
    for row in recorded:
        live = {f.name: f.value for f in _assemble(memoryd, row["agent"], row["query"]).decision.features}
        assert live == pytest.approx(row["features"], abs=1e-6)


@pytest.mark.parametrize("version", [5, 6, 8, 9, 10, 11, 12])
def test_gate_v5_v6_v8_v9_v10_v11_v12_place_the_fact_and_keep_general_questions_out(
    memoryd: MemorydHandle, version: int
) -> None:
    model = load(DEFAULT_MODEL_PATH.parent / f"gate_model_v{version}.json")
    assert model is not None and model.version == f"gate-v{version}"
    # The features the real read path measured for these agents, decided by the model file.
    for agent in AGENTS:
        for query, want in (
            (QUESTION, Section.PINNED),
            ("when is the beta shipping?", Section.PINNED),
            ("What is 14 * 12?", Section.NONE),
            ("How many people live in Lisbon?", Section.NONE),
            ("what is a beta release?", Section.NONE),
        ):
            features = {f.name: f.value for f in _assemble(memoryd, agent, query).decision.features}
            assert decide_evidence(query, features, model, frozenset()).section is want, (agent, query)
