"""POST /agents/{id}/run with SSE streams the model's deltas as they are generated (plugin_host's RunAgentStream).

The stack is real servers on 127.0.0.1:0: a fake memoryd and a paced fake inferd (tests.fakes.fake_plugin_peers,
real gRPC), the real plugin_host and the real gateway. The paced model sends its first delta and then waits until
the HTTP client has received that delta as an SSE event; only then does it send the rest. A gateway (or a
plugin_host) that buffered the reply would leave the model waiting until its timeout, and the test fails.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import grpc
import httpx
import pytest

from gateway.config import Settings
from gateway.embedded import EmbeddedGateway
from osaurus.inference.v1 import inference_pb2 as ipb
from osaurus.inference.v1 import inference_pb2_grpc as ipb_grpc
from osaurus.memory.v1 import memory_pb2_grpc as mpb_grpc
from servicekit.server import ServerOptions, ServiceBinding, build_server
from tests.fakes.fake_plugin_peers import FakeInference, FakeMemory, FakePeers, memory_block
from tests.support.plugin_host_stack import HostStack, start_host

#: How long the paced model waits for the client to see its first delta; a buffering path hits it.
RELEASE_WAIT_S = 10.0


class PacedInference(FakeInference):
    """Streams "ECHO: <latest user message>" in two parts, the second only once `release` is set."""

    def __init__(self) -> None:
        super().__init__()
        self.release = threading.Event()
        self.released_in_time: bool | None = None

    def GenerateStream(
        self, request: ipb.GenerateStreamRequest, context: grpc.ServicerContext
    ) -> Iterator[ipb.GenerateStreamResponse]:
        text = self._reply(list(request.messages))
        half = len(text) // 2
        yield ipb.GenerateStreamResponse(delta=text[:half], model="fake-llm")
        self.released_in_time = self.release.wait(RELEASE_WAIT_S)
        yield ipb.GenerateStreamResponse(delta=text[half:], model="fake-llm")
        yield ipb.GenerateStreamResponse(
            finish_reason=ipb.FINISH_REASON_STOP,
            usage=ipb.Usage(prompt_tokens=11, completion_tokens=5),
            model="fake-llm",
        )


class Running:
    """The paced stack."""

    def __init__(self, home: Path) -> None:
        self.memory, self.inference = FakeMemory(), PacedInference()
        memory_server = build_server(
            ServerOptions("127.0.0.1:0", "memory.osaurus.dev", max_workers=8),
            [ServiceBinding("osaurus.memory.v1.MemoryService",
                            lambda s: mpb_grpc.add_MemoryServiceServicer_to_server(self.memory, s))],
        )  # fmt: skip
        inference_server = build_server(
            ServerOptions("127.0.0.1:0", "inference.osaurus.dev", max_workers=8),
            [ServiceBinding("osaurus.inference.v1.InferenceService",
                            lambda s: ipb_grpc.add_InferenceServiceServicer_to_server(self.inference, s))],
        )  # fmt: skip
        self.peers = FakePeers(self.memory, self.inference, memory_server, inference_server)
        self.host: HostStack = start_host(home / "plugin_host", self.peers, [], {})
        settings = Settings(
            listen="127.0.0.1:0",
            memoryd_addr=self.peers.memory_target,
            inferd_addr=self.peers.inference_target,
            plugin_host_addr=self.host.running.target,
        )
        self.gateway = EmbeddedGateway(settings).start()

    def close(self) -> None:
        self.inference.release.set()
        self.gateway.stop()
        self.host.close()
        self.peers.stop()


@pytest.fixture
def running(tmp_path: Path) -> Iterator[Running]:
    stack = Running(tmp_path)
    yield stack
    stack.close()


def test_sse_delivers_the_first_delta_while_the_model_is_still_generating(running: Running) -> None:
    block = memory_block("User grows tomatoes")
    running.memory.blocks["gardener"] = block
    body = {
        "conversation_id": "g1",
        "stream": True,
        "messages": [{"role": "user", "content": "When to water?"}],
    }
    events: list[tuple[str, Any]] = []
    name = "message"
    with (
        httpx.Client(base_url=running.gateway.url, timeout=30) as http,
        http.stream("POST", "/agents/gardener/run", json=body) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("event: "):
                name = line.removeprefix("event: ")
            elif line.startswith("data: "):
                events.append((name, json.loads(line.removeprefix("data: "))))
                if len(events) == 1:
                    # The first delta is here and the model has not produced the rest: let it go on.
                    assert running.inference.released_in_time is None
                    running.inference.release.set()
    assert running.inference.released_in_time is True
    assert [n for n, _ in events] == ["delta", "delta", "done"]
    expected = f"ECHO: {block}\n\nWhen to water?"  # memory injected exactly as RunAgent does
    assert events[0][1]["delta"] + events[1][1]["delta"] == expected
    done = events[2][1]
    assert done["reply"] == expected and done["agent_id"] == "gardener" and done["conversation_id"] == "g1"
    assert done["memory"]["injected"] is True and done["memory"]["recorded"] is True
    assert done["usage"] == {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}
    turn = running.memory.buffered_for("gardener")[-1]
    assert (turn.user_message, turn.assistant_message) == ("When to water?", expected)


def test_bad_run_is_an_http_error_not_a_stream(running: Running) -> None:
    body = {"conversation_id": "g1", "stream": True, "messages": [{"role": "system", "content": "no user"}]}
    with httpx.Client(base_url=running.gateway.url, timeout=30) as http:
        response = http.post("/agents/gardener/run", json=body)
    assert response.status_code == 400, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert response.json()["error"]["reason"] == "MISSING_USER_MESSAGE"
