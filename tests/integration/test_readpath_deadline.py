"""The read path's one deadline against a slow inferd on a real port, and the planner's transcript fallback.

A late query embedding leaves search on full text and the decision says so; the llm gate's timeout plus the
query-embedding budget bound AssembleContext; a section that yields nothing (no pinned facts before the first
distillation) falls back to the transcript, and the decision says that too.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TypeVar

import grpc
import pytest

from osaurus.inference.v1 import inference_pb2 as ipb
from osaurus.memory.v1 import memory_pb2 as mpb
from tests.fakes.fake_inferd import FakeInferdState, FakeInference
from tests.fakes.inference_server import serving_inference
from tests.support.memoryd_server import MemorydHandle, buffer, running_memoryd

T = TypeVar("T")
AGENT = "deadline-agent"
TURNS = [
    "My cat Miso eats salmon pate every morning and hates dry food.",
    "We talked about sourdough bread and its starter for the bakery plan.",
    "The quarterly report is due next Tuesday, Alice writes the summary.",
]
LITERAL = "what were my exact words about the sourdough starter"


class SlowInference(FakeInference):
    """The memoryd fake inferd with knobs: single-text (query) embeds and Generate (the llm gate) can be slow."""

    def __init__(self, state: FakeInferdState) -> None:
        super().__init__(state)
        self.query_delay_s = 0.0
        self.generate_delay_s = 0.0

    def Embed(self, request: ipb.EmbedRequest, context: grpc.ServicerContext) -> ipb.EmbedResponse:
        if len(request.texts) == 1 and self.query_delay_s:
            time.sleep(self.query_delay_s)
        return super().Embed(request, context)

    def Generate(self, request: ipb.GenerateRequest, context: grpc.ServicerContext) -> ipb.GenerateResponse:
        time.sleep(self.generate_delay_s)
        return ipb.GenerateResponse(
            text='{"section": "transcript", "reason": "asks for earlier words"}',
            finish_reason=ipb.FINISH_REASON_STOP,
            usage=ipb.Usage(prompt_tokens=10, completion_tokens=5),
            model=request.model,
        )


def _timed(call: Callable[[], T]) -> tuple[T, float]:
    started = time.monotonic()
    result = call()
    return result, time.monotonic() - started


def _assemble(handle: MemorydHandle, query: str) -> tuple[mpb.AssembleContextResponse, float]:
    return _timed(
        lambda: handle.memory.AssembleContext(
            mpb.AssembleContextRequest(agent_id=AGENT, query=query), timeout=20
        )
    )


@pytest.fixture
def slow() -> Iterator[tuple[SlowInference, str]]:
    servicer = SlowInference(FakeInferdState())
    with serving_inference(servicer, grace_s=0.1) as server:
        yield servicer, server.target
        servicer.query_delay_s = servicer.generate_delay_s = 0.0  # let parked handlers finish quickly


@contextmanager
def _seeded(home: Path, inferd: str, gate_mode: str = "heuristic") -> Iterator[MemorydHandle]:
    (home / "config").mkdir(parents=True, exist_ok=True)
    (home / "config" / "memory.json").write_text(json.dumps({"relevanceGateMode": gate_mode}))
    with running_memoryd(home, inferd_addr=inferd) as handle:
        for text in TURNS:
            buffer(handle.memory, AGENT, "c1", text, "Noted.")
        assert handle.app.indexer.run_once() == 2 * len(TURNS)  # batch embeds: not slowed
        yield handle


def test_a_late_query_embedding_leaves_search_on_full_text_and_the_decision_says_so(
    tmp_path: Path, slow: tuple[SlowInference, str]
) -> None:
    inferd, target = slow
    with _seeded(tmp_path, target) as handle:
        healthy, _ = _assemble(handle, f"{LITERAL} (healthy)?")
        assert healthy.section == mpb.SECTION_TRANSCRIPT and "sourdough" in healthy.block
        assert healthy.reason == "evidence:transcript"  # hybrid search: nothing to report

        inferd.query_delay_s = 2.0  # far beyond the 150 ms query-embedding budget
        late = [_assemble(handle, f"{LITERAL} ({n})?") for n in range(4)]
        for reply, took in late:
            assert took < 1.0, [round(t, 2) for _, t in late]  # was ~3 s (the old query timeout)
            assert (
                reply.section == mpb.SECTION_TRANSCRIPT and "sourdough" in reply.block
            )  # full text found it
        # The evidence gate still finds the literal-recall request on full text and names the fallback.
        assert [r.reason for r, _ in late[:3]] == ["evidence:transcript;fts_only:embedding_timeout"] * 3
        # Three late answers in a row are a slow peer: the embedder backs off and stops waiting at all.
        assert late[3][0].reason == "evidence:transcript;fts_only:embeddings_unavailable"
        assert late[3][1] < 0.5

        # SearchMemory obeys the same budget.
        handle.memory.UpsertAgent(
            mpb.UpsertAgentRequest(agent_id=AGENT, search_memory_enabled=True), timeout=5
        )
        inferd.query_delay_s = 0.0
        deadline = time.monotonic() + 10
        while not handle.app.embedder.available():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        inferd.query_delay_s = 2.0
        found, took = _timed(
            lambda: handle.memory.SearchMemory(
                mpb.SearchMemoryRequest(
                    agent_id=AGENT, scope=mpb.SCOPE_TRANSCRIPT, query="sourdough starter"
                ),
                timeout=20,
            )
        )
        assert found.method == "fts" and found.hits and took < 1.0

        # inferd healthy again: hybrid, and no note.
        inferd.query_delay_s = 0.0
        deadline = time.monotonic() + 10
        while not handle.app.embedder.available():
            assert time.monotonic() < deadline
            time.sleep(0.05)
        again, _ = _assemble(handle, f"{LITERAL} (again)?")
        assert again.reason == "evidence:transcript"


def test_llm_gate_and_query_embedding_share_one_bounded_deadline(
    tmp_path: Path, slow: tuple[SlowInference, str]
) -> None:
    inferd, target = slow
    with _seeded(tmp_path, target, gate_mode="llm") as handle:
        healthy, _ = _assemble(handle, f"{LITERAL} (healthy)?")
        assert healthy.reason.startswith("llm:")
        inferd.generate_delay_s = 3.5  # beyond the gate's 2.5 s
        inferd.query_delay_s = 3.5  # beyond the query-embedding budget
        reply, took = _assemble(handle, f"{LITERAL} (slow)?")
        # Gate 2.5 s + query embedding 0.15 s (+ work); it was 2.5 + 3 s before one deadline covered both.
        assert took < 3.3, took
        assert reply.reason == "llm_fallback:timeout;evidence:transcript;fts_only:embedding_timeout"
        assert "sourdough" in reply.block


def test_inject_before_any_distillation_finds_the_transcript(
    tmp_path: Path, slow: tuple[SlowInference, str]
) -> None:
    _, target = slow
    with _seeded(tmp_path, target) as handle:
        question = "what does my cat Miso eat?"
        reply = handle.memory.InjectMemory(
            mpb.InjectMemoryRequest(
                agent_id=AGENT,
                messages=[mpb.ChatMessage(role=mpb.ROLE_USER, content=question)],
                model_context_tokens=32_000,
            ),
            timeout=10,
        )
        assert reply.injected, reply
        assert reply.section == mpb.SECTION_TRANSCRIPT
        assert reply.reason == "evidence:transcript"  # the evidence is in the transcript: no fallback needed
        assert "salmon" in reply.messages[0].content and reply.messages[0].content.endswith(question)

        nothing = handle.memory.AssembleContext(
            mpb.AssembleContextRequest(agent_id=AGENT, query="do you remember my favourite xylophone brand?"),
            timeout=10,
        )
        # Nothing in memory shares a word with it: the evidence gate says none (the trigger phrase "do you remember
        # my" alone used to pick pinned, then fall back to an empty transcript search).
        assert (nothing.block, nothing.section) == ("", mpb.SECTION_NONE)
        assert nothing.reason == "none:no_evidence"
