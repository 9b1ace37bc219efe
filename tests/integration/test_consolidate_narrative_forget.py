"""Identity narratives per agent through the read path and GetIdentity: an agent's context carries its own
narrative and facts only (a home assistant's nickname never reaches the work assistant), the overrides stay global,
a narrative goes with its agent or its facts ("delete means delete"), and the global row keeps only what was
imported; migration 7 empties a global narrative the old step had built from every agent's facts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from inferd.client import InferenceClient
from memoryd.storage import migrations
from memoryd.storage.store import Store, open_store
from osaurus.inference.v1 import inference_pb2 as ipb
from osaurus.memory.v1 import memory_pb2 as pb
from tests.fakes.fake_consolidate_inferd import MODEL, NarrativeInferdState, running_narrative_inferd
from tests.support.consolidate_rows import ManualClock, config_store, consolidator
from tests.support.consolidate_server import running_consolidating_memoryd

ABOUT_ME = "What do you know about me?"
OVERRIDE = "Always reply in English"
HOME_NARRATIVE = "The user likes to be called Bibi and has a cat named Mochi."
WORK_NARRATIVE = "The user is Ana Souza, who works as a nurse in Porto."


def _add_identity_facts(store: Store, agent_id: str, *facts: tuple[str, int]) -> None:
    with store.db.write():
        for text, count in facts:
            store.db.execute(
                "INSERT INTO identity_facts (agent_id, content, source_count, created_at_ms, updated_at_ms) "
                "VALUES (?, ?, ?, 1, 1)",
                (agent_id, text, count),
            )


def _reply_for(request: ipb.GenerateRequest) -> str:
    return HOME_NARRATIVE if "Bibi" in request.messages[1].content else WORK_NARRATIVE


def _content(store: Store) -> str:
    return str(store.db.scalar("SELECT content FROM identity WHERE id = 1"))


def test_each_agent_sees_its_own_narrative_and_facts_and_deleting_it_deletes_its_narrative(
    tmp_path: Path,
) -> None:
    clock = ManualClock()
    with running_consolidating_memoryd(tmp_path / "home", clock=clock) as memoryd:
        store, stub = memoryd.app.store, memoryd.memory
        for agent_id in ("home", "work", "fresh"):
            stub.UpsertAgent(pb.UpsertAgentRequest(agent_id=agent_id), timeout=5)
        stub.AddOverride(pb.AddOverrideRequest(text=OVERRIDE), timeout=5)
        _add_identity_facts(
            store, "home", ("User likes to be called Bibi", 3), ("User has a cat named Mochi", 2)
        )
        _add_identity_facts(
            store, "work", ("User's name is Ana Souza", 3), ("User works as a nurse in Porto", 2)
        )
        memoryd.app.config.update({"core_model": MODEL})
        with running_narrative_inferd(NarrativeInferdState(reply_for=_reply_for)) as (server, _):
            client = InferenceClient(server.target, deadline_s=10)
            built = consolidator(store, memoryd.app.config, clock, inference=client).run()
            client.close()
        assert built.step("identity").counts["narratives_written"] == 2

        blocks = {
            agent_id: stub.AssembleContext(
                pb.AssembleContextRequest(agent_id=agent_id, query=ABOUT_ME), timeout=10
            ).block
            for agent_id in ("home", "work", "fresh")
        }
        assert "Bibi" in blocks["home"] and "Mochi" in blocks["home"]
        assert "Ana" not in blocks["home"] and "Porto" not in blocks["home"]
        assert "Ana Souza" in blocks["work"] and "Porto" in blocks["work"]
        assert "Bibi" not in blocks["work"] and "Mochi" not in blocks["work"]
        assert "Bibi" not in blocks["fresh"] and "Ana" not in blocks["fresh"]
        assert all(OVERRIDE in block for block in blocks.values())  # overrides stay global

        work = stub.GetIdentity(pb.GetIdentityRequest(agent_id="work"), timeout=5).identity
        assert (work.content, work.model, work.version) == (WORK_NARRATIVE, MODEL, 1)
        assert work.generate_time.ToMilliseconds() == clock.now_ms
        assert {f.source_agent_id for f in work.facts} == {"work"} and len(work.facts) == 2
        assert [o.text for o in work.overrides] == [OVERRIDE]
        everyone = stub.GetIdentity(pb.GetIdentityRequest(), timeout=5).identity
        assert everyone.content == "" and not everyone.HasField("generate_time")  # no 1970 time
        assert {f.source_agent_id for f in everyone.facts} == {"home", "work"}
        fresh = stub.GetIdentity(pb.GetIdentityRequest(agent_id="fresh"), timeout=5).identity
        assert (fresh.content, fresh.model, list(fresh.facts)) == ("", "", [])
        assert not fresh.HasField("generate_time")

        stub.DeleteAgent(pb.DeleteAgentRequest(agent_id="home"), timeout=10)
        assert store.db.query("SELECT agent_id FROM agent_narratives") == [("work",)]
        assert stub.GetIdentity(pb.GetIdentityRequest(agent_id="home"), timeout=5).identity.content == ""
        assert stub.GetIdentity(pb.GetIdentityRequest(agent_id="work"), timeout=5).identity.content == (
            WORK_NARRATIVE
        )


def test_an_extractive_narrative_is_stored_but_its_facts_are_injected_once(tmp_path: Path) -> None:
    """No model (inferd unreachable): the narrative is the facts; the block lists each fact once, not twice."""
    clock = ManualClock()
    with running_consolidating_memoryd(tmp_path / "home", clock=clock) as memoryd:
        store, stub = memoryd.app.store, memoryd.memory
        stub.UpsertAgent(pb.UpsertAgentRequest(agent_id="work"), timeout=5)
        _add_identity_facts(store, "work", ("User's name is Ana Souza", 3), ("User works as a nurse", 2))
        report = stub.RunConsolidation(pb.RunConsolidationRequest(), timeout=30).report
        assert {s.name: s for s in report.steps}["identity"].rows_changed == 1
        work = stub.GetIdentity(pb.GetIdentityRequest(agent_id="work"), timeout=5).identity
        assert (work.content, work.model) == (
            "User's name is Ana Souza. User works as a nurse.",
            "extractive",
        )
        block = stub.AssembleContext(
            pb.AssembleContextRequest(agent_id="work", query=ABOUT_ME), timeout=10
        ).block
        assert block.count("Ana Souza") == 1 and block.count("nurse") == 1


def test_get_identity_rejects_a_malformed_agent_id(tmp_path: Path) -> None:
    with running_consolidating_memoryd(tmp_path / "home") as memoryd:
        with pytest.raises(grpc.RpcError) as raised:
            memoryd.memory.GetIdentity(pb.GetIdentityRequest(agent_id="has space"), timeout=5)
        assert raised.value.code() is grpc.StatusCode.INVALID_ARGUMENT


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


@pytest.mark.parametrize("author", ["v1-import", "some-1x-model"])
def test_an_imported_narrative_is_kept_and_injected_for_every_agent(
    store: Store, tmp_path: Path, author: str
) -> None:
    """A 1.x profile carried forward (or an Import) is the global row's; the step never rewrites nor clears it."""
    with store.db.write():
        store.db.execute(
            "UPDATE identity SET content = 'A profile from 1.x.', version = 4, model = ? WHERE id = 1",
            (author,),
        )
    clock = ManualClock()
    runner = consolidator(store, config_store(tmp_path, core_model=""), clock)
    assert runner.run().step("identity").skip_reason == "no_identity_facts"
    _add_identity_facts(store, "a", ("User's name is Ana", 2))
    clock.advance_days(1)
    assert runner.run().step("identity").rows_changed == 1
    assert _content(store) == "A profile from 1.x."
    own = store.identity.get("a")
    assert (own.content, own.shared_content) == ("User's name is Ana.", "A profile from 1.x.")
    with store.db.write():
        store.db.execute("DELETE FROM identity_facts")
    clock.advance_days(1)
    assert runner.run().step("identity").counts["narratives_deleted"] == 1
    assert _content(store) == "A profile from 1.x."


def test_facts_removed_delete_the_narrative_and_new_facts_rebuild_it(store: Store, tmp_path: Path) -> None:
    _add_identity_facts(store, "a", ("User's name is Ana", 2))
    _add_identity_facts(store, "b", ("User's name is Rui", 2))
    clock = ManualClock()
    with running_narrative_inferd(NarrativeInferdState(reply="The user is Ana.")) as (server, fake):
        client = InferenceClient(server.target, deadline_s=10)
        runner = consolidator(store, config_store(tmp_path, core_model=MODEL), clock, inference=client)
        assert runner.run().step("identity").counts["narratives_written"] == 2
        with store.db.write():
            store.db.execute(
                "DELETE FROM identity_facts WHERE agent_id = 'a'"
            )  # e.g. re-ingest, console forget
        clock.advance_days(1)
        report = runner.run()
        step = report.step("identity")
        assert (step.rows_changed, step.counts["narratives_deleted"]) == (1, 1)
        assert store.db.query("SELECT agent_id FROM agent_narratives") == [("b",)]
        details = str(store.db.scalar("SELECT details FROM processing_log ORDER BY id DESC LIMIT 1"))
        assert '"narratives_deleted":1' in details and "Ana" not in details
        # New facts later: a fresh narrative (the deleted one is not "unchanged").
        _add_identity_facts(store, "a", ("User's name is Ana", 2))
        clock.advance_days(1)
        assert runner.run().step("identity").rows_changed == 1
        assert store.identity.get("a").content == "The user is Ana." and len(fake.requests) == 3
        client.close()


def _old_store(path: Path, content: str, model: str, stamp: str, digest: str) -> None:
    """A store at schema 5 whose identity row holds `content` and whose old narrative step kept these keys."""
    patched = pytest.MonkeyPatch()
    patched.setattr(migrations, "MIGRATIONS", tuple(m for m in migrations.MIGRATIONS if m.version < 7))
    patched.setattr(migrations, "LATEST_VERSION", 5)
    try:
        old = open_store(path)
        with old.db.write():
            old.db.execute(
                "UPDATE identity SET content = ?, model = ?, version = 3, generated_at_ms = 77 WHERE id = 1",
                (content, model),
            )
            old.db.execute(
                "CREATE TABLE consolidation_state (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL, "
                "updated_at_ms INTEGER NOT NULL)"
            )
            for key, value in (("identity.narrative_stamp", stamp), ("identity.facts_digest", digest)):
                old.db.execute("INSERT INTO consolidation_state VALUES (?, ?, 0)", (key, value))
        old.close()
    finally:
        patched.undo()


@pytest.mark.parametrize(
    ("model", "stamp", "digest", "kept"),
    [
        ("fake-core", "3:77", "d", False),  # the old step wrote it (its stamp): every agent's facts, mixed
        ("fake-core", "", "d", False),  # written before the stamp was kept
        ("fake-core", "2:10", "d", True),  # replaced since (an Import into an emptied identity)
        ("v1-import", "", "d", True),  # a 1.x profile
        ("fake-core", "", "", True),  # never the step's
    ],
)
def test_migration_7_empties_only_the_old_steps_global_narrative(
    tmp_path: Path, model: str, stamp: str, digest: str, kept: bool
) -> None:
    path = tmp_path / "memory.sqlite"
    _old_store(path, "A narrative.", model, stamp, digest)
    migrated = open_store(path)
    try:
        assert migrated.schema_version == migrations.LATEST_VERSION
        assert _content(migrated) == ("A narrative." if kept else "")
        assert migrated.db.query("SELECT count(*) FROM consolidation_state WHERE key LIKE 'identity.%'") == [
            (0,)
        ]
        assert migrated.db.query("SELECT count(*) FROM agent_narratives") == [(0,)]
    finally:
        migrated.close()
