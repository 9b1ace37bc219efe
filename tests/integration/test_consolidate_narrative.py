"""Identity narrative: ONE Generate call on a fake InferenceService (real port) rewrites identity.content from the
identity facts; overrides are never touched; no model or no facts → skipped with a reason."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from inferd.client import InferenceClient
from memoryd.storage.store import Store, open_store
from osaurus.inference.v1 import inference_pb2 as ipb
from servicekit.errors import InternalError, UnavailableError
from tests.fakes.fake_consolidate_inferd import MODEL, NarrativeInferdState, running_narrative_inferd
from tests.support.consolidate_rows import ManualClock, config_store, consolidator


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


def _add_identity_facts(store: Store, *facts: tuple[str, int]) -> None:
    with store.db.write():
        for text, count in facts:
            store.db.execute(
                "INSERT INTO identity_facts (agent_id, content, source_count, created_at_ms, updated_at_ms) "
                "VALUES ('a', ?, ?, 1, 1)",
                (text, count),
            )


def _identity(store: Store) -> tuple[str, str, int, str, int]:
    row = store.db.query(
        "SELECT content, overrides, version, model, generated_at_ms FROM identity WHERE id = 1"
    )[0]
    return (row[0], row[1], row[2], row[3], row[4])


def test_narrative_is_regenerated_with_one_call_and_overrides_stay(store: Store, tmp_path: Path) -> None:
    store.identity.add_override("I prefer tabs over spaces")
    overrides_before = _identity(store)[1]
    _add_identity_facts(
        store, ("User's name is Ana Souza", 3), ("User works as a nurse", 2), ("User lives in Porto", 1)
    )
    clock = ManualClock()
    with running_narrative_inferd() as (server, state):
        client = InferenceClient(server.target, deadline_s=10)
        runner = consolidator(store, config_store(tmp_path, core_model=MODEL), clock, inference=client)
        report = runner.run()
        step = report.step("identity")
        assert (step.rows_changed, step.skip_reason, step.error) == (1, "", "")
        assert len(state.requests) == 1
        request = state.requests[0]
        assert request.model == MODEL
        assert [m.role for m in request.messages] == [ipb.ROLE_SYSTEM, ipb.ROLE_USER]
        prompt = request.messages[1].content
        assert "Ana Souza (seen 3×)" in prompt and "lives in Porto" in prompt
        assert (
            prompt.index("Ana Souza") < prompt.index("nurse") < prompt.index("Porto")
        )  # most supported first
        assert "tabs over spaces" not in prompt  # overrides are the user's, not the narrative's input
        content, overrides, version, model, generated = _identity(store)
        assert content == state.reply
        assert overrides == overrides_before
        assert (version, model, generated) == (1, MODEL, clock.now_ms)

        # Nothing changed: no second model call.
        clock.advance_days(1)
        assert runner.run().step("identity").skip_reason == "unchanged"
        assert len(state.requests) == 1

        # A new fact: regenerated (version 2); the override is still there.
        _add_identity_facts(store, ("User has a dog named Miso", 2))
        state.reply = (
            "```\nHere is the profile: The user, Ana Souza, is a nurse in Porto with a dog named Miso.\n```"
        )
        clock.advance_days(1)
        assert runner.run().step("identity").rows_changed == 1
        content, overrides, version, _, _ = _identity(store)
        assert content == "The user, Ana Souza, is a nurse in Porto with a dog named Miso."
        assert overrides == overrides_before and version == 2
        client.close()


def test_skipped_without_identity_facts(store: Store, tmp_path: Path) -> None:
    with running_narrative_inferd() as (server, state):
        client = InferenceClient(server.target, deadline_s=10)
        report = consolidator(
            store, config_store(tmp_path, core_model=MODEL), ManualClock(), inference=client
        ).run()
        assert report.step("identity").skip_reason == "no_identity_facts"
        assert state.requests == []
        client.close()


def test_skipped_when_the_core_model_is_unset(store: Store, tmp_path: Path) -> None:
    _add_identity_facts(store, ("User's name is Ana", 2))
    with running_narrative_inferd() as (server, state):
        client = InferenceClient(server.target, deadline_s=10)
        report = consolidator(
            store, config_store(tmp_path, core_model=""), ManualClock(), inference=client
        ).run()
        assert report.step("identity").skip_reason == "core_model_unset"
        assert state.requests == []
        client.close()


def test_skipped_when_the_model_is_unavailable(store: Store, tmp_path: Path) -> None:
    _add_identity_facts(store, ("User's name is Ana", 2))
    state = NarrativeInferdState(
        error=UnavailableError("MODEL_UNAVAILABLE", "model is loading", retry_after_s=1)
    )
    with running_narrative_inferd(state) as (server, _):
        client = InferenceClient(server.target, deadline_s=10)
        report = consolidator(
            store, config_store(tmp_path, core_model=MODEL), ManualClock(), inference=client
        ).run()
        step = report.step("identity")
        assert (step.skip_reason, step.error) == ("core_model_unavailable", "")
        assert _identity(store)[0] == ""
        client.close()


def test_skipped_when_inferd_is_not_running(store: Store, tmp_path: Path) -> None:
    _add_identity_facts(store, ("User's name is Ana", 2))
    client = InferenceClient("127.0.0.1:1", deadline_s=2)
    report = consolidator(
        store, config_store(tmp_path, core_model=MODEL), ManualClock(), inference=client
    ).run()
    assert report.step("identity").skip_reason == "core_model_unavailable"
    client.close()


def test_a_model_failure_is_an_error_and_keeps_the_old_narrative(store: Store, tmp_path: Path) -> None:
    _add_identity_facts(store, ("User's name is Ana", 2))
    with store.db.write():
        store.db.execute("UPDATE identity SET content = 'An earlier narrative.' WHERE id = 1")
    state = NarrativeInferdState(error=InternalError("BOOM", "backend crashed"))
    with running_narrative_inferd(state) as (server, _):
        client = InferenceClient(server.target, deadline_s=10)
        report = consolidator(
            store, config_store(tmp_path, core_model=MODEL), ManualClock(), inference=client
        ).run()
        assert report.step("identity").error.startswith("InternalError")
        assert _identity(store)[0] == "An earlier narrative."
        # The failure is in the report kept in processing_log, with status error.
        assert store.db.query("SELECT status FROM processing_log WHERE task_type = 'consolidate'") == [
            ("error",)
        ]
        client.close()
