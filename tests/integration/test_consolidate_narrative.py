"""Identity narratives per agent: ONE Generate call per agent on a fake InferenceService (real port), from that
agent's identity facts only, stored only when the reply passes verification; otherwise (and without a model) the
agent's facts themselves stand in. Overrides and the global identity row are never touched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from inferd.client import InferenceClient
from memoryd.consolidate.identity_step import MODEL_CALLS_PER_PASS
from memoryd.storage.store import Store, open_store
from osaurus.inference.v1 import inference_pb2 as ipb
from servicekit.errors import InternalError, UnavailableError
from tests.fakes.fake_consolidate_inferd import MODEL, NarrativeInferdState, running_narrative_inferd
from tests.support.consolidate_rows import ManualClock, config_store, consolidator

ANA = [("User's name is Ana Souza", 3), ("User works as a nurse", 2), ("User lives in Porto", 1)]
#: What the step stores for ANA when no model reply can be trusted: the facts, most supported first.
ANA_EXTRACTIVE = "User's name is Ana Souza. User works as a nurse. User lives in Porto."


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    opened = open_store(tmp_path / "memory.sqlite")
    yield opened
    opened.close()


def _add_identity_facts(store: Store, agent_id: str, *facts: tuple[str, int]) -> None:
    with store.db.write():
        for text, count in facts:
            store.db.execute(
                "INSERT INTO identity_facts (agent_id, content, source_count, created_at_ms, updated_at_ms) "
                "VALUES (?, ?, ?, 1, 1)",
                (agent_id, text, count),
            )


def _narrative(store: Store, agent_id: str) -> tuple[str, str, int, int] | None:
    """(content, model, version, generated_at_ms) of the agent's narrative, or None."""
    rows = store.db.query(
        "SELECT content, model, version, generated_at_ms FROM agent_narratives WHERE agent_id = ?",
        (agent_id,),
    )
    return (str(rows[0][0]), str(rows[0][1]), int(rows[0][2]), int(rows[0][3])) if rows else None


def _model(store: Store, agent_id: str) -> str:
    return str(store.db.scalar("SELECT model FROM agent_narratives WHERE agent_id = ?", (agent_id,)))


def _identity_row(store: Store) -> tuple[str, str, int, str]:
    row = store.db.query("SELECT content, overrides, version, model FROM identity WHERE id = 1")[0]
    return (row[0], row[1], row[2], row[3])


def test_narrative_is_regenerated_with_one_call_and_overrides_stay(store: Store, tmp_path: Path) -> None:
    store.identity.add_override("I prefer tabs over spaces")
    identity_before = _identity_row(store)
    _add_identity_facts(store, "a", *ANA)
    clock = ManualClock()
    with running_narrative_inferd() as (server, state):
        client = InferenceClient(server.target, deadline_s=10)
        runner = consolidator(store, config_store(tmp_path, core_model=MODEL), clock, inference=client)
        report = runner.run()
        step = report.step("identity")
        assert (step.rows_changed, step.skip_reason, step.error) == (1, "", "")
        assert step.counts["narratives_written"] == 1 and step.counts["narratives_rejected"] == 0
        assert report.model == MODEL
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
        assert _narrative(store, "a") == (state.reply, MODEL, 1, clock.now_ms)
        # The global row (overrides, imported narrative) is not this step's.
        assert _identity_row(store) == identity_before

        # Nothing changed: no second model call.
        clock.advance_days(1)
        assert runner.run().step("identity").skip_reason == "unchanged"
        assert len(state.requests) == 1

        # A new fact: regenerated (version 2) from the cleaned reply.
        _add_identity_facts(store, "a", ("User has a dog named Miso", 2))
        state.reply = (
            "```\nHere is the profile: The user, Ana Souza, is a nurse in Porto with a dog named Miso.\n```"
        )
        clock.advance_days(1)
        assert runner.run().step("identity").rows_changed == 1
        assert _narrative(store, "a") == (
            "The user, Ana Souza, is a nurse in Porto with a dog named Miso.",
            MODEL,
            2,
            clock.now_ms,
        )
        assert _identity_row(store) == identity_before
        client.close()


def test_each_agent_gets_a_narrative_from_its_own_facts_only(store: Store, tmp_path: Path) -> None:
    _add_identity_facts(store, "home", ("User likes to be called Bibi", 3), ("User has a cat named Mochi", 2))
    _add_identity_facts(store, "work", ("User's name is Ana Souza", 3), ("User works as a nurse", 2))

    def reply_for(request: ipb.GenerateRequest) -> str:
        prompt = request.messages[1].content
        if "Bibi" in prompt:
            return "The user likes to be called Bibi and has a cat named Mochi."
        return "The user is Ana Souza, who works as a nurse."

    with running_narrative_inferd(NarrativeInferdState(reply_for=reply_for)) as (server, state):
        client = InferenceClient(server.target, deadline_s=10)
        report = consolidator(
            store, config_store(tmp_path, core_model=MODEL), ManualClock(), inference=client
        ).run()
        client.close()
    assert report.step("identity").counts["narratives_written"] == 2
    prompts = sorted(r.messages[1].content for r in state.requests)
    assert len(prompts) == 2
    assert not any("Bibi" in p and "Ana" in p for p in prompts)  # one agent's facts per call
    home, work = _narrative(store, "home"), _narrative(store, "work")
    assert home is not None and work is not None
    assert home[0] == "The user likes to be called Bibi and has a cat named Mochi."
    assert work[0] == "The user is Ana Souza, who works as a nurse."


@pytest.mark.parametrize(
    "reply",
    [
        "I'm 12 years old. I'm 12 years old. I'm 12 years old.",  # a loop (and an invented age)
        "The user is Ana Souza, a nurse in Porto married to Pedro.",  # an invented name
        "The user, Ana Souza, is a 34-year-old nurse in Porto.",  # an invented number
        "Facts about the user, most often seen first: Ana Souza (seen 3×).",  # the prompt copied back
        "The user is a vegan food blogger who loves hiking and is a nurse.",  # mostly unsupported
        "",
    ],
)
def test_a_reply_that_fails_verification_is_not_stored_and_the_facts_stand(
    store: Store, tmp_path: Path, reply: str
) -> None:
    _add_identity_facts(store, "a", *ANA)
    clock = ManualClock()
    with running_narrative_inferd(NarrativeInferdState(reply=reply)) as (server, state):
        client = InferenceClient(server.target, deadline_s=10)
        runner = consolidator(store, config_store(tmp_path, core_model=MODEL), clock, inference=client)
        step = runner.run().step("identity")
        assert (step.rows_changed, step.error) == (1, "")
        assert step.counts["narratives_rejected"] == 1 and step.counts["narratives_extractive"] == 1
        assert _narrative(store, "a") == (ANA_EXTRACTIVE, "extractive", 1, clock.now_ms)
        # The same facts are not sent to the model again (it would write the same); new facts are.
        clock.advance_days(1)
        assert runner.run().step("identity").skip_reason == "unchanged"
        assert len(state.requests) == 1
        _add_identity_facts(store, "a", ("User has a dog named Miso", 2))
        state.reply = "The user, Ana Souza, is a nurse in Porto with a dog named Miso."
        clock.advance_days(1)
        assert runner.run().step("identity").counts["narratives_rejected"] == 0
        assert len(state.requests) == 2
        assert _narrative(store, "a") == (state.reply, MODEL, 2, clock.now_ms)
        client.close()


def test_without_a_core_model_the_narrative_is_the_facts_and_a_model_later_rewrites_it(
    store: Store, tmp_path: Path
) -> None:
    _add_identity_facts(store, "a", *ANA)
    clock = ManualClock()
    config = config_store(tmp_path, core_model="")
    with running_narrative_inferd() as (server, state):
        client = InferenceClient(server.target, deadline_s=10)
        runner = consolidator(store, config, clock, inference=client)
        step = runner.run().step("identity")
        assert (step.rows_changed, step.skip_reason) == (1, "")
        assert state.requests == []
        assert _narrative(store, "a") == (ANA_EXTRACTIVE, "extractive", 1, clock.now_ms)
        clock.advance_days(1)
        assert runner.run().step("identity").skip_reason == "unchanged"
        # A core model configured later: its (verified) narrative replaces the facts on the next pass.
        config.update({"core_model": MODEL})
        clock.advance_days(1)
        assert runner.run().step("identity").rows_changed == 1
        assert len(state.requests) == 1
        assert _narrative(store, "a") == (state.reply, MODEL, 2, clock.now_ms)
        # ...and unsetting the model again keeps that narrative: it was verified against these same facts.
        config.update({"core_model": ""})
        clock.advance_days(1)
        assert runner.run().step("identity").skip_reason == "unchanged"
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


def test_an_unavailable_model_leaves_the_facts_and_is_asked_again_later(store: Store, tmp_path: Path) -> None:
    _add_identity_facts(store, "a", *ANA)
    _add_identity_facts(store, "b", ("User's name is Rui", 2))
    state = NarrativeInferdState(
        error=UnavailableError("MODEL_UNAVAILABLE", "model is loading", retry_after_s=1)
    )
    clock = ManualClock()
    with running_narrative_inferd(state) as (server, _):
        client = InferenceClient(server.target, deadline_s=10)
        runner = consolidator(store, config_store(tmp_path, core_model=MODEL), clock, inference=client)
        step = runner.run().step("identity")
        assert (step.rows_changed, step.error) == (2, "")
        assert len(state.requests) == 1  # not asked again in the same pass once it said it is unavailable
        assert _narrative(store, "a") == (ANA_EXTRACTIVE, "extractive", 1, clock.now_ms)
        # Still unavailable: asked once more, nothing rewritten.
        clock.advance_days(1)
        assert runner.run().step("identity").skip_reason == "core_model_unavailable"
        assert len(state.requests) == 2
        # Back: both agents get the model's narrative (the fake replies the same text; "a" passes verification,
        # "b"'s facts do not support it, so "b" keeps its facts).
        state.error = None
        clock.advance_days(1)
        step = runner.run().step("identity")
        assert step.counts["narratives_written"] == 1 and step.counts["narratives_rejected"] == 1
        assert _narrative(store, "a") == (state.reply, MODEL, 2, clock.now_ms)
        assert _narrative(store, "b") == (
            "User's name is Rui.",
            "extractive",
            1,
            clock.now_ms - 2 * 86_400_000,
        )
        client.close()


def test_inferd_not_running_leaves_the_facts(store: Store, tmp_path: Path) -> None:
    _add_identity_facts(store, "a", *ANA)
    client = InferenceClient("127.0.0.1:1", deadline_s=2)
    clock = ManualClock()
    report = consolidator(store, config_store(tmp_path, core_model=MODEL), clock, inference=client).run()
    assert report.step("identity").rows_changed == 1
    assert _narrative(store, "a") == (ANA_EXTRACTIVE, "extractive", 1, clock.now_ms)
    client.close()


def test_a_model_failure_is_an_error_and_the_facts_stand(store: Store, tmp_path: Path) -> None:
    _add_identity_facts(store, "a", *ANA)
    state = NarrativeInferdState(error=InternalError("BOOM", "backend crashed"))
    with running_narrative_inferd(state) as (server, _):
        client = InferenceClient(server.target, deadline_s=10)
        report = consolidator(
            store, config_store(tmp_path, core_model=MODEL), ManualClock(), inference=client
        ).run()
        assert report.step("identity").error.startswith("NarrativeModelError")
        stored = _narrative(store, "a")
        assert stored is not None and stored[:2] == (ANA_EXTRACTIVE, "extractive")
        # The failure is in the report kept in processing_log, with status error.
        assert store.db.query("SELECT status FROM processing_log WHERE task_type = 'consolidate'") == [
            ("error",)
        ]
        client.close()


def test_model_calls_per_pass_are_bounded_and_the_rest_come_next_pass(store: Store, tmp_path: Path) -> None:
    agents = [f"agent-{i:02d}" for i in range(MODEL_CALLS_PER_PASS + 2)]
    for agent_id in agents:
        _add_identity_facts(store, agent_id, *ANA)
    clock = ManualClock()
    with running_narrative_inferd() as (server, state):
        client = InferenceClient(server.target, deadline_s=10)
        runner = consolidator(store, config_store(tmp_path, core_model=MODEL), clock, inference=client)
        step = runner.run().step("identity")
        assert len(state.requests) == MODEL_CALLS_PER_PASS
        assert step.counts["narratives_deferred"] == 2 and step.counts["narratives_written"] == len(agents)
        # Every agent has a narrative at once; the two left over are their facts until the next pass.
        models = [_model(store, a) for a in agents]
        assert models == [MODEL] * MODEL_CALLS_PER_PASS + ["extractive"] * 2
        clock.advance_days(1)
        step = runner.run().step("identity")
        assert len(state.requests) == MODEL_CALLS_PER_PASS + 2 and step.counts["narratives_written"] == 2
        assert {_model(store, a) for a in agents} == {MODEL}
        client.close()
