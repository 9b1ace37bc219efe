"""inferd's OpenAI-compatible backend against a real HTTP server on loopback (chat, SSE streaming, embeddings)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from inferd.app import App, close_all, start
from inferd.client import GenerateOptions, InferenceClient, Message
from inferd.config import ModelSpec, RemoteSettings, builtin_models, for_tests
from inferd.jsonschema_lite import minimal_instance, validate
from memoryd.write.digest_schema import DISTILLATION_SCHEMA, DISTILLATION_SCHEMA_JSON
from osaurus.inference.v1 import inference_pb2 as pb
from servicekit.errors import FailedPreconditionError, ResourceExhaustedError, UnavailableError
from servicekit.server import RunningServer

API_KEY = "sk-loopback"


class _OpenAIish(ThreadingHTTPServer):
    """State of the fake endpoint: what it saw and how it should misbehave next."""

    daemon_threads = True

    def __init__(self) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.requests: list[dict[str, Any]] = []
        self.invalid_json_replies = 0  # schema replies to get wrong before a right one
        self.fail_status = 0

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


class _Handler(BaseHTTPRequestHandler):
    server: _OpenAIish

    def log_message(self, *args: Any) -> None:
        return None

    def _json(self, status: int, body: Any, headers: dict[str, str] | None = None) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:
        if self.path == "/v1/models":
            self._json(200, {"data": [{"id": "tiny-chat"}, {"id": "tiny-embed"}]})
        else:
            self._json(404, {"error": "no"})

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.requests.append(
            {"path": self.path, "auth": self.headers.get("Authorization"), "body": body}
        )
        if self.headers.get("Authorization") != f"Bearer {API_KEY}":
            self._json(401, {"error": "bad key"})
        elif self.server.fail_status:
            self._json(self.server.fail_status, {"error": "nope"}, {"Retry-After": "7"})
        elif self.path == "/v1/embeddings":
            vectors = [[float(len(t)), 1.0, 2.0] for t in body["input"]]
            data = [{"index": i, "embedding": v} for i, v in reversed(list(enumerate(vectors)))]
            self._json(200, {"data": data, "model": body["model"]})
        elif self.path == "/v1/chat/completions":
            self._chat(body)
        else:
            self._json(404, {"error": "no"})

    def _chat(self, body: dict[str, Any]) -> None:
        last = body["messages"][-1]["content"]
        fmt = body.get("response_format")
        if fmt is not None:
            if self.server.invalid_json_replies > 0:
                self.server.invalid_json_replies -= 1
                text = '{"episode": "not an object"'
            else:
                text = json.dumps(minimal_instance(fmt["json_schema"]["schema"], hint=last))
        else:
            text = f"remote says {last}"
        if not body.get("stream"):
            usage = {"prompt_tokens": 11, "completion_tokens": 5, "total_tokens": 16}
            choice = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
            self._json(200, {"choices": [choice], "usage": usage})
            return
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        for word in text.split(" "):
            chunk = {"choices": [{"index": 0, "delta": {"content": word + " "}, "finish_reason": None}]}
            self.wfile.write(f"data: {json.dumps(chunk)}\n\n".encode())
        final = {"choices": [{"index": 0, "delta": {}, "finish_reason": "length"}]}
        self.wfile.write(f"data: {json.dumps(final)}\n\n".encode())
        usage = {"choices": [], "usage": {"prompt_tokens": 9, "completion_tokens": 3}}
        self.wfile.write(f"data: {json.dumps(usage)}\n\ndata: [DONE]\n\n".encode())


@pytest.fixture
def endpoint() -> Iterator[_OpenAIish]:
    httpd = _OpenAIish()
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def _start(home: Path, base_url: str, key: str = API_KEY) -> tuple[RunningServer, App]:
    remote = RemoteSettings(base_url, key, timeout_s=10)
    models = (
        *builtin_models(),
        ModelSpec("remote-chat", "llm", "openai", "tiny-chat", remote=remote),
        ModelSpec("remote-embed", "embedding", "openai", "tiny-embed", remote=remote),
    )
    return start(
        replace(for_tests(home), models=models, default_llm="remote-chat", default_embedding="remote-embed")
    )


@pytest.fixture
def client(tmp_path: Path, endpoint: _OpenAIish) -> Iterator[InferenceClient]:
    running, app = _start(tmp_path, endpoint.base_url)
    c = InferenceClient(running.target, deadline_s=20)
    yield c
    c.close()
    close_all(running, app, grace_s=1)


def test_chat_streams_deltas_usage_and_finish_reason(client: InferenceClient, endpoint: _OpenAIish) -> None:
    events = list(
        client.stream([Message("user", "hello there")], options=GenerateOptions(max_tokens=7, seed=3))
    )
    assert "".join(e.delta for e in events) == "remote says hello there "
    assert events[-1].finish_reason == pb.FINISH_REASON_LENGTH and events[-1].usage.prompt_tokens == 9
    sent = endpoint.requests[-1]
    assert sent["path"] == "/v1/chat/completions" and sent["auth"] == f"Bearer {API_KEY}"
    assert sent["body"]["model"] == "tiny-chat" and sent["body"]["stream"] is True
    assert sent["body"]["max_tokens"] == 7 and sent["body"]["seed"] == 3
    assert "response_format" not in sent["body"]


def test_json_schema_uses_response_format_and_retries_invalid_replies(
    client: InferenceClient, endpoint: _OpenAIish
) -> None:
    endpoint.invalid_json_replies = 1
    reply = client.generate([Message("user", "digest")], json_schema=DISTILLATION_SCHEMA_JSON)
    assert validate(json.loads(reply.text), DISTILLATION_SCHEMA) == []
    assert reply.prompt_tokens == 11 and reply.completion_tokens == 5
    schema_calls = [r for r in endpoint.requests if "response_format" in r["body"]]
    assert len(schema_calls) == 2
    fmt = schema_calls[0]["body"]["response_format"]
    assert fmt["type"] == "json_schema" and fmt["json_schema"]["schema"] == DISTILLATION_SCHEMA
    endpoint.invalid_json_replies = 5
    with pytest.raises(UnavailableError) as caught:
        client.generate([Message("user", "digest")], json_schema=DISTILLATION_SCHEMA_JSON)
    assert caught.value.reason == "INVALID_MODEL_OUTPUT"


def test_embeddings_are_ordered_and_normalised(client: InferenceClient) -> None:
    emb = client.embed(["a", "bbbb"])
    assert emb.dimension == 3 and emb.model == "remote-embed"
    expected = np.array([[1.0, 1.0, 2.0], [4.0, 1.0, 2.0]], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    assert np.allclose(emb.vectors, expected, atol=1e-6)


@pytest.mark.parametrize(
    ("status", "error_type", "reason"),
    [
        (500, UnavailableError, "REMOTE_ERROR"),
        (429, ResourceExhaustedError, "REMOTE_RATE_LIMITED"),
        (404, FailedPreconditionError, "REMOTE_REJECTED"),
    ],
)
def test_http_failures_map_to_typed_errors(
    client: InferenceClient, endpoint: _OpenAIish, status: int, error_type: type[Exception], reason: str
) -> None:
    client.generate([Message("user", "warm up")])
    endpoint.fail_status = status
    with pytest.raises(error_type) as caught:
        client.generate([Message("user", "hi")])
    assert caught.value.reason == reason  # type: ignore[attr-defined]
    if status in (429, 500):
        assert caught.value.retry_after_s == 7.0  # type: ignore[attr-defined]


def test_wrong_key_is_failed_precondition(tmp_path: Path, endpoint: _OpenAIish) -> None:
    running, app = _start(tmp_path, endpoint.base_url, key="wrong")
    try:
        client = InferenceClient(running.target, deadline_s=20)
        with pytest.raises(FailedPreconditionError) as caught:
            client.generate([Message("user", "hi")])
        assert caught.value.reason == "REMOTE_AUTH_FAILED"
    finally:
        close_all(running, app, grace_s=1)


def test_unreachable_endpoint_marks_the_model_failed(tmp_path: Path) -> None:
    running, app = _start(tmp_path, "http://127.0.0.1:9/v1")  # port 9 (discard): nothing listens
    try:
        client = InferenceClient(running.target, deadline_s=20)
        with pytest.raises(FailedPreconditionError) as caught:
            client.generate([Message("user", "hi")])
        assert caught.value.reason == "MODEL_UNAVAILABLE"
        status = {m.name: m for m in client.models()}["remote-chat"]
        assert status.state == "failed" and "unreachable" in status.error
    finally:
        close_all(running, app, grace_s=1)
