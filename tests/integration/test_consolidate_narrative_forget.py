"""Identity narrative after its facts are gone ("delete means delete"): the next pass clears the narrative it built
from auto identity facts, keeps the user's overrides and a narrative it did not write, and drops cached blocks."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from inferd.client import InferenceClient
from memoryd.consolidate.report import TASK_TYPE
from memoryd.storage.store import Store, open_store
from osaurus.memory.v1 import memory_pb2 as pb
from tests.fakes.fake_consolidate_inferd import MODEL, running_narrative_inferd
from tests.support.consolidate_rows import ManualClock, config_store, consolidator
from tests.support.consolidate_server import running_consolidating_memoryd

ABOUT_ME = "What do you know about me?"
OVERRIDE = "Always reply in English"


def _add_identity_facts(store: Store, agent_id: str, *facts: tuple[str, int]) -> None:
    with store.db.write():
        for text, count in facts:
            store.db.execute(
                "INSERT INTO identity_facts (agent_id, content, source_count, created_at_ms, updated_at_ms) "
                "VALUES (?, ?, ?, 1, 1)",
                (agent_id, text, count),
            )


def _content(store: Store) -> str:
    return str(store.db.scalar("SELECT content FROM identity WHERE id = 1"))


def test_deleting_the_agent_clears_its_narrative_after_the_pass(tmp_path: Path) -> None:
    clock = ManualClock()
    with running_consolidating_memoryd(tmp_path / "home", clock=clock) as memoryd:
        store, stub = memoryd.app.store, memoryd.memory
        for agent_id in ("ana-agent", "other-agent"):
            stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent_id), timeout=5)
        stub.AddOverride(pb.AddOverrideRequest(text=OVERRIDE), timeout=5)
        _add_identity_facts(store, "ana-agent", ("User's name is Ana Souza", 3), ("User lives in Porto", 2))
        memoryd.app.config.update({"core_model": MODEL})
        # The narrative is built from ana-agent's facts (one model call on a fake inferd).
        with running_narrative_inferd() as (server, fake):
            client = InferenceClient(server.target, deadline_s=10)
            built = consolidator(store, memoryd.app.config, clock, inference=client).run()
            client.close()
        assert built.step("identity").rows_changed == 1
        narrative = fake.reply
        assert stub.GetIdentity(pb.GetIdentityRequest(), timeout=5).identity.content == narrative
        before = stub.AssembleContext(
            pb.AssembleContextRequest(agent_id="other-agent", query=ABOUT_ME), timeout=10
        )
        assert "Porto" in before.block and OVERRIDE in before.block

        stub.DeleteAgent(pb.DeleteAgentRequest(agent_id="ana-agent"), timeout=10)
        assert store.db.scalar("SELECT count(*) FROM identity_facts") == 0
        clock.advance_days(1)
        report = stub.RunConsolidation(pb.RunConsolidationRequest(), timeout=30).report
        step = {s.name: s for s in report.steps}["identity"]
        assert (step.rows_changed, step.skip_reason, step.error) == (1, "", "")

        identity = stub.GetIdentity(pb.GetIdentityRequest(), timeout=5).identity
        assert identity.content == "" and list(identity.facts) == []
        assert [o.text for o in identity.overrides] == [OVERRIDE]
        # The block cached before the pass is gone: no fact of the deleted agent, the override still injected.
        after = stub.AssembleContext(
            pb.AssembleContextRequest(agent_id="other-agent", query=ABOUT_ME), timeout=10
        )
        assert not after.cached
        assert "Porto" not in after.block and "Ana" not in after.block
        assert OVERRIDE in after.block
        # Recorded in the pass's log without content; the row says who wrote it (nobody) and when.
        details = str(
            store.db.scalar(
                "SELECT details FROM processing_log WHERE task_type = ? ORDER BY id DESC LIMIT 1",
                (TASK_TYPE,),
            )
        )
        assert '"narrative_cleared":1' in details and "Porto" not in details
        assert store.db.query("SELECT model, generated_at_ms, token_count FROM identity") == [
            ("", clock.now_ms, 0)
        ]

        # Nothing left to clear: the next pass skips as before.
        clock.advance_days(1)
        again = stub.RunConsolidation(pb.RunConsolidationRequest(), timeout=30).report
        assert {s.name: s for s in again.steps}["identity"].skip_reason == "no_identity_facts"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


@pytest.mark.parametrize("author", ["v1-import", "some-1x-model"])
def test_a_narrative_the_step_did_not_write_is_kept(store: Store, tmp_path: Path, author: str) -> None:
    """A 1.x profile carried forward by the import was not built from auto facts: no facts → kept."""
    with store.db.write():
        store.db.execute(
            "UPDATE identity SET content = 'A profile from 1.x.', version = 4, model = ? WHERE id = 1",
            (author,),
        )
    report = consolidator(store, config_store(tmp_path, core_model=MODEL), ManualClock()).run()
    assert report.step("identity").skip_reason == "no_identity_facts"
    assert _content(store) == "A profile from 1.x."


def test_a_narrative_replaced_after_the_step_wrote_it_is_kept(store: Store, tmp_path: Path) -> None:
    """Facts removed by eviction/re-ingest clear the step's own narrative; one written since by someone else (an
    import into an emptied identity) is not the step's to clear."""
    _add_identity_facts(store, "a", ("User's name is Ana", 2))
    clock = ManualClock()
    config = config_store(tmp_path, core_model=MODEL)
    with running_narrative_inferd() as (server, _):
        client = InferenceClient(server.target, deadline_s=10)
        runner = consolidator(store, config, clock, inference=client)
        assert runner.run().step("identity").rows_changed == 1
        with store.db.write():
            store.db.execute("UPDATE identity SET content = 'Imported.', version = 9, generated_at_ms = 5")
            store.db.execute("UPDATE identity_facts SET status = 'evicted'")
        clock.advance_days(1)
        assert runner.run().step("identity").skip_reason == "no_identity_facts"
        assert _content(store) == "Imported."
        client.close()


def test_facts_removed_without_deleting_an_agent_clear_it_and_new_facts_rebuild_it(
    store: Store, tmp_path: Path
) -> None:
    _add_identity_facts(store, "a", ("User's name is Ana", 2))
    clock = ManualClock()
    with running_narrative_inferd() as (server, fake):
        client = InferenceClient(server.target, deadline_s=10)
        runner = consolidator(store, config_store(tmp_path, core_model=MODEL), clock, inference=client)
        assert runner.run().step("identity").rows_changed == 1
        with store.db.write():
            store.db.execute("DELETE FROM identity_facts")  # e.g. a re-ingest replaced the session's facts
        clock.advance_days(1)
        step = runner.run().step("identity")
        assert (step.rows_changed, step.counts) == (1, {"narrative_cleared": 1})
        assert _content(store) == ""
        # New facts later: a fresh narrative (the cleared one is not "unchanged").
        _add_identity_facts(store, "a", ("User's name is Ana", 2))
        clock.advance_days(1)
        assert runner.run().step("identity").rows_changed == 1
        assert _content(store) == fake.reply and len(fake.requests) == 2
        client.close()
