"""The evidence gate through a real memoryd (fake inferd): the decision's explanation, superseded facts, windows."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.fakes.fake_inferd import running_fake_inferd
from tests.support.memoryd_server import MemorydHandle, running_memoryd

AGENT = "evidence-agent"
FACTS = [
    ("The Ledgerly mobile beta ships on March 14", "active"),
    ("Maya is vegetarian and allergic to peanuts", "active"),
    ("The quarterly risk report goes to Dev on Wednesday", "active"),
    ("The Zanzibar offsite is in Mombasa", "superseded"),  # replaced by the next one
    ("The offsite moved to Lisbon", "active"),
]


@pytest.fixture
def memoryd(tmp_path: Path) -> Iterator[MemorydHandle]:
    with (
        running_fake_inferd() as (server, _state),
        running_memoryd(tmp_path, inferd_addr=server.target) as handle,  # type: ignore[attr-defined]
    ):
        _seed(handle)
        yield handle


def _seed(handle: MemorydHandle) -> None:
    store = handle.app.store
    store.agents.ensure(AGENT)
    now_ms = int(time.time() * 1000)
    conn = store.db.pw.connection()
    with store.db.write():
        for text, status in FACTS:
            conn.execute(
                "INSERT INTO pinned_facts (agent_id, content, salience, status, created_at_ms, updated_at_ms)"
                " VALUES (?, ?, 0.6, ?, ?, ?)",
                (AGENT, text, status, now_ms, now_ms),
            )
    assert handle.app.indexer.run_once() == len(FACTS)


def _assemble(handle: MemorydHandle, query: str, **kwargs: int) -> mpb.AssembleContextResponse:
    reply: mpb.AssembleContextResponse = handle.memory.AssembleContext(
        mpb.AssembleContextRequest(agent_id=AGENT, query=query, **kwargs), timeout=10
    )
    return reply


def test_the_decision_names_its_features_scores_and_model(memoryd: MemorydHandle) -> None:
    reply = _assemble(memoryd, "When does the Ledgerly beta ship?")
    decision = reply.decision
    assert decision.model_version.startswith("gate-v")
    features = {f.name: f.value for f in decision.features}
    assert features["p_has"] == 1.0 and features["p_cov"] == pytest.approx(1.0)
    assert features["e_has"] == 0.0 and features["t_has"] == 0.0
    assert features["spec_rare_known"] > 0  # "Ledgerly": in this agent's memory, in no dictionary
    probabilities = {s.section: s.probability for s in decision.scores}
    assert set(probabilities) == {
        mpb.SECTION_NONE, mpb.SECTION_IDENTITY, mpb.SECTION_PINNED, mpb.SECTION_EPISODES, mpb.SECTION_TRANSCRIPT
    }  # fmt: skip
    assert sum(probabilities.values()) == pytest.approx(1.0)
    assert decision.budget_tokens == 800
    # The verdict follows the evidence: the one fact holding every word of the question is placed.
    assert reply.reason.split(";")[0] == "evidence:pinned"
    assert "- The Ledgerly mobile beta ships on March 14" in reply.block


def test_a_superseded_fact_never_counts(memoryd: MemorydHandle) -> None:
    reply = _assemble(memoryd, "Is the Zanzibar offsite in Mombasa?")
    features = {f.name: f.value for f in reply.decision.features}
    # Its words are in no active row: no keyword evidence, and it is never placed.
    assert features["p_cov"] < 0.5
    assert "Mombasa" not in reply.block and "Zanzibar" not in reply.block


def test_arithmetic_naming_a_known_thing_stays_none(memoryd: MemorydHandle) -> None:
    reply = _assemble(memoryd, "What is 14 * 12?")
    assert (reply.block, reply.reason) == ("", "none:self_contained")
    assert {f.name: f.value for f in reply.decision.features}["sc_math"] == 1.0


def test_the_budget_follows_the_window(memoryd: MemorydHandle) -> None:
    small = _assemble(memoryd, "When does the Ledgerly beta ship?", model_context_tokens=4096)
    assert small.decision.budget_tokens == 409 and small.block
    tiny = _assemble(memoryd, "When does the Ledgerly beta ship?", model_context_tokens=1500)
    assert (tiny.block, tiny.reason) == ("", "context_too_small:1500")
    assert len(tiny.decision.features) == 0
