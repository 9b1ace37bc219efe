"""llm gate mode through a real InferenceClient to a fake inferd on a real port: use, fallbacks, cool-down."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from inferd.client import InferenceClient
from memoryd.read.assemble import ReadPath, ReadPathSettings
from memoryd.read.gate_llm import GATE_SCHEMA_JSON, LlmGateClassifier
from memoryd.retrieval.gate import GateMode, RelevanceGate, prepare_entities
from memoryd.retrieval.items import Section
from servicekit.errors import UnavailableError
from tests.fakes.fake_gate_inferd import FakeGateInferd, GateScript, running_fake
from tests.fakes.memory_reader import InMemoryReader

ENTITIES = prepare_entities(["Mochi"])


@pytest.fixture
def fake() -> Iterator[tuple[FakeGateInferd, InferenceClient]]:
    with running_fake() as (servicer, target):
        client = InferenceClient(target, deadline_s=5.0)
        try:
            yield servicer, client
        finally:
            client.close()


def reply(section: str, reason: str = "because") -> str:
    return json.dumps({"section": section, "reason": reason})


def test_llm_decision_is_used_and_request_is_schema_constrained(
    fake: tuple[FakeGateInferd, InferenceClient],
) -> None:
    servicer, client = fake
    servicer.script = GateScript(
        reply=lambda prompt: reply("pinned" if "Mochi" in prompt else "none", "own pet")
    )
    gate = RelevanceGate(LlmGateClassifier(client, "core-model"), llm_timeout_s=2.0)
    decision = gate.decide("Is my furball eating well?", ENTITIES, GateMode.LLM)
    assert (decision.section, decision.reason) == (Section.NONE, "llm:own_pet")
    # The model overrules the heuristic both ways: here the heuristic would say none.
    servicer.script = GateScript(reply=lambda _p: reply("episodes", "refers to earlier chat"))
    synonym = gate.decide("Remind me of the thing from our last call", ENTITIES, GateMode.LLM)
    assert synonym.section is Section.EPISODES
    request = servicer.recorded.generate[-1]
    assert request.json_schema == GATE_SCHEMA_JSON
    assert request.model == "core-model"
    assert request.options.max_tokens == 48
    assert request.options.temperature == 0.0
    assert "Names the user has mentioned before: mochi" in request.messages[-1].content


def test_timeout_falls_back_to_heuristic(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    servicer.script = GateScript(reply=lambda _p: reply("none"), delay_s=1.0)
    gate = RelevanceGate(LlmGateClassifier(client), llm_timeout_s=0.2)
    started = time.monotonic()
    decision = gate.decide("What did we discuss yesterday?", ENTITIES, GateMode.LLM)
    elapsed = time.monotonic() - started
    assert decision.section is Section.EPISODES
    assert decision.reason == "llm_fallback:timeout;trigger:prior_context"
    assert elapsed < 0.8


def test_request_deadline_caps_the_model_call(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    servicer.script = GateScript(reply=lambda _p: reply("none"), delay_s=1.0)
    gate = RelevanceGate(LlmGateClassifier(client), llm_timeout_s=5.0)
    started = time.monotonic()
    decision = gate.decide("How is Mochi?", ENTITIES, GateMode.LLM, deadline_s=0.3)
    assert time.monotonic() - started < 0.8
    assert decision.reason == "llm_fallback:timeout;trigger:entity"
    no_time = gate.decide("How is Mochi?", ENTITIES, GateMode.LLM, deadline_s=0.01)
    assert no_time.reason == "llm_fallback:deadline;trigger:entity"


def test_errors_and_bad_output_fall_back(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    gate = RelevanceGate(LlmGateClassifier(client, max_failures=100), llm_timeout_s=2.0)
    servicer.script = GateScript(error=UnavailableError("MODEL_UNAVAILABLE", "down"))
    assert gate.decide("What's my name?", ENTITIES, GateMode.LLM).reason == (
        "llm_fallback:unavailable;trigger:identity"
    )
    servicer.script = GateScript(reply=lambda _p: "I think pinned")
    assert gate.decide("What's my name?", ENTITIES, GateMode.LLM).reason == (
        "llm_fallback:bad_output;trigger:identity"
    )


def test_unreachable_inferd_falls_back() -> None:
    client = InferenceClient("127.0.0.1:1", deadline_s=1.0)
    try:
        gate = RelevanceGate(LlmGateClassifier(client), llm_timeout_s=0.5)
        decision = gate.decide("How is Mochi?", ENTITIES, GateMode.LLM)
        assert decision.section is Section.PINNED
        assert decision.reason.startswith("llm_fallback:")
    finally:
        client.close()


def test_repeated_failures_rest_the_classifier(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    servicer.script = GateScript(error=UnavailableError("MODEL_UNAVAILABLE", "down"))
    now = [0.0]
    gate = RelevanceGate(LlmGateClassifier(client, max_failures=2, cooldown_s=30, clock=lambda: now[0]))
    for _ in range(2):
        gate.decide("hello there", ENTITIES, GateMode.LLM)
    assert len(servicer.recorded.generate) == 2
    resting = gate.decide("hello there", ENTITIES, GateMode.LLM)
    assert resting.reason == "llm_fallback:cooling_down;none:no_trigger"
    assert len(servicer.recorded.generate) == 2
    now[0] = 31.0
    servicer.script = GateScript(reply=lambda _p: reply("identity"))
    assert gate.decide("hello there", ENTITIES, GateMode.LLM).section is Section.IDENTITY
    assert len(servicer.recorded.generate) == 3


def test_read_path_in_llm_mode(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    servicer.script = GateScript(reply=lambda _p: reply("pinned", "asks about own cat"))
    reader = InMemoryReader(entities={"a": ["Mochi"]})
    reader.add("a", Section.PINNED, "The furball is called Mochi and eats salmon")
    path = ReadPath(
        reader,
        lambda: ReadPathSettings(gate_mode=GateMode.LLM),
        classifier=LlmGateClassifier(client),
        llm_timeout_s=2.0,
    )
    assembly = path.assemble("a", "What does my furball eat?")
    assert (assembly.section, assembly.reason) == (Section.PINNED, "llm:asks_about_own_cat")
    assert "eats salmon" in assembly.block
    assert path.assemble("a", "What does my furball eat?").cached is True
    assert len(servicer.recorded.generate) == 1
