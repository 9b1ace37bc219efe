"""Token counting through inferd's CountTokens on a real port: model counts, caching, fallback, budget."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from inferd.client import InferenceClient
from memoryd.read.assemble import ReadPath, ReadPathSettings
from memoryd.retrieval.items import IdentitySnapshot, Section
from memoryd.retrieval.tokens import InferdTokenCounter, estimate_tokens
from servicekit.errors import NotFoundError
from tests.fakes.fake_gate_inferd import FakeGateInferd, GateScript, running_fake, words_as_tokens
from tests.fakes.memory_reader import InMemoryReader


@pytest.fixture
def fake() -> Iterator[tuple[FakeGateInferd, InferenceClient]]:
    with running_fake() as (servicer, target):
        client = InferenceClient(target, deadline_s=5.0)
        try:
            yield servicer, client
        finally:
            client.close()


def test_counts_come_from_the_model_and_are_cached(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    counter = InferdTokenCounter(client, "core", timeout_s=10.0)  # generous: CI machines are loaded
    assert counter.count(["one two three", "", "four"]) == [4, 0, 2]
    assert counter.source == "model:core"
    assert [list(r.texts) for r in servicer.recorded.count_tokens] == [["one two three", "four"]]
    assert servicer.recorded.count_tokens[0].model == "core"
    assert counter.count(["four", "one two three"]) == [2, 4]
    assert len(servicer.recorded.count_tokens) == 1
    counter.count(["four", "five six"])
    assert [list(r.texts) for r in servicer.recorded.count_tokens][-1] == ["five six"]


def test_failure_estimates_and_backs_off(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    servicer.script = GateScript(count_error=NotFoundError("MODEL_NOT_FOUND", "no such model"))
    now = [0.0]
    counter = InferdTokenCounter(client, "missing", retry_after_s=30, clock=lambda: now[0])
    text = "a fairly long sentence with several words in it"
    assert counter.count([text]) == [estimate_tokens(text)]
    assert counter.source == "estimate"
    counter.count(["another text"])
    assert len(servicer.recorded.count_tokens) == 1  # resting
    servicer.script = GateScript()
    now[0] = 31.0
    assert counter.count([text]) == [words_as_tokens(text)]
    assert len(servicer.recorded.count_tokens) == 2


def test_block_fits_the_budget_as_the_model_counts_it(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    # A tokenizer far greedier than the estimate: one token per character.
    servicer.script = GateScript(count=len)
    reader = InMemoryReader(entities={"a": ["Mochi"]})
    for i in range(40):
        reader.add("a", Section.PINNED, f"Mochi detail {i}: " + " ".join(f"t{i}w{j}" for j in range(6)))
    path = ReadPath(
        reader,
        lambda: ReadPathSettings(budget_tokens=400),
        counter=InferdTokenCounter(client, "core"),
        use_default_gate_model=False,  # the in-memory reader has no retrieval evidence: triggers decide
    )
    assembly = path.assemble("a", "How is Mochi?")
    assert assembly.section is Section.PINNED
    assert 0 < len(assembly.placed) < 40
    assert len(assembly.block) <= 400  # no overrides here, so the whole block is budgeted
    assert assembly.tokens == len(assembly.block)
    assert len(assembly.block) > 400 - 80  # and the budget was used, not wasted


def test_two_counting_calls_per_fresh_assembly(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    reader = InMemoryReader(
        identity_snapshot=IdentitySnapshot(overrides=("Always reply in English",)), entities={"a": ["Mochi"]}
    )
    for i in range(40):
        reader.add("a", Section.PINNED, f"Mochi detail {i}: " + " ".join(f"t{i}w{j}" for j in range(6)))
    path = ReadPath(
        reader,
        lambda: ReadPathSettings(budget_tokens=400),
        counter=InferdTokenCounter(client, "core"),
        use_default_gate_model=False,  # the in-memory reader has no retrieval evidence: triggers decide
    )
    path.assemble("a", "How is Mochi?")
    before = len(servicer.recorded.count_tokens)
    other = path.assemble("a", "Mochi t39w0 t38w0 t37w0")  # brings rows the first query did not fetch
    assert other.placed[0].id in {"38", "39", "40"}
    assert "Always reply in English" in other.block
    # The budget does not bind here: one call counts the new candidate lines together with the body they make when
    # all fit, and the call verifying that body (with block and overrides) finds it cached.
    assert len(servicer.recorded.count_tokens) - before == 1


def test_a_binding_budget_costs_a_second_counting_call(fake: tuple[FakeGateInferd, InferenceClient]) -> None:
    servicer, client = fake
    servicer.script = GateScript(count=len)  # one token per character: 40 facts cannot all fit in 400
    reader = InMemoryReader(entities={"a": ["Mochi"]})
    for i in range(40):
        reader.add("a", Section.PINNED, f"Mochi detail {i}: " + " ".join(f"t{i}w{j}" for j in range(6)))
    path = ReadPath(
        reader,
        lambda: ReadPathSettings(budget_tokens=400),
        counter=InferdTokenCounter(client, "core"),
        use_default_gate_model=False,
    )
    path.assemble("a", "How is Mochi?")
    before = len(servicer.recorded.count_tokens)
    other = path.assemble("a", "Mochi t39w0 t38w0 t37w0")
    assert 0 < len(other.placed) < 40
    # The speculated all-fit body was not the one chosen: the verifying call asks for the chosen body.
    assert len(servicer.recorded.count_tokens) - before == 2
    assert servicer.recorded.count_tokens[-1].texts[0] == other.block
