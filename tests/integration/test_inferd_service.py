"""inferd over real gRPC on 127.0.0.1:0 with the deterministic fake models: RPCs, validation, queue, residency."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import replace
from pathlib import Path

import grpc
import numpy as np
import pytest

from inferd.app import App, close_all, start
from inferd.backends.base import (
    Backend,
    GenerateCall,
    GenerationEvent,
    LoadedInfo,
    ModelLoadError,
    ShouldStop,
)
from inferd.client import GenerateOptions, InferenceClient, Message
from inferd.config import FAKE_LLM, ModelSpec, Settings, builtin_models, for_tests
from inferd.jsonschema_lite import validate
from inferd.loaders import BackendLoader
from memoryd.write.digest_schema import DISTILLATION_SCHEMA, DISTILLATION_SCHEMA_JSON
from osaurus.inference.v1 import inference_pb2 as pb
from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    ResourceExhaustedError,
    UnavailableError,
    from_rpc_error,
)
from servicekit.server import RunningServer


class _CrashingLLM:
    """A model that dies mid-reply, as a broken backend would."""

    def info(self) -> LoadedInfo:
        return LoadedInfo(context_window_tokens=100)

    def generate(self, call: GenerateCall, should_stop: ShouldStop) -> Iterator[GenerationEvent]:
        raise RuntimeError("boom inside the model")
        yield  # pragma: no cover

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [1 for _ in texts]

    def close(self) -> None:
        return None


class _TestLoader(BackendLoader):
    """The real loader, plus two models that cannot work: one crashes when used, one fails to load."""

    def __call__(self, spec: ModelSpec) -> Backend:
        if spec.name == "crashy":
            return _CrashingLLM()
        if spec.name == "broken":
            raise ModelLoadError("weights file is truncated")
        return super().__call__(spec)


def _settings(home: Path, **changes: object) -> Settings:
    extra = (
        ModelSpec("slow-llm", "llm", "fake", queue_capacity=1, options={"token_delay_s": 0.05}),
        ModelSpec("crashy", "llm", "fake"),
        ModelSpec("broken", "llm", "fake"),
        ModelSpec("idle-llm", "llm", "fake", idle_unload_s=0.3),
    )
    return replace(for_tests(home), models=builtin_models() + extra, **changes)  # type: ignore[arg-type]


@pytest.fixture
def server(tmp_path: Path) -> Iterator[tuple[RunningServer, App]]:
    running, app = start(_settings(tmp_path), loader=_TestLoader(tmp_path / "models"))
    yield running, app
    close_all(running, app, grace_s=1)


@pytest.fixture
def client(server: tuple[RunningServer, App]) -> Iterator[InferenceClient]:
    c = InferenceClient(server[0].target, deadline_s=20)
    yield c
    c.close()


def _user(text: str) -> list[Message]:
    return [Message("user", text)]


def test_generate_stream_and_usage(client: InferenceClient) -> None:
    reply = client.generate([Message("system", "be brief"), *_user("hello brave new world")])
    assert reply.text == "echo: hello brave new world"
    assert (reply.finish_reason, reply.model) == ("stop", FAKE_LLM)
    assert reply.prompt_tokens > 0 and reply.completion_tokens == 5
    events = list(client.stream(_user("one two three")))
    assert [e.delta for e in events[:-1]] == ["echo:", " one", " two", " three"]
    final = events[-1]
    assert final.delta == "" and final.finish_reason == pb.FINISH_REASON_STOP
    assert final.usage.completion_tokens == 4 and final.model == FAKE_LLM


def test_max_tokens_and_stop_sequences(client: InferenceClient) -> None:
    short = client.generate(_user("a b c d e f"), options=GenerateOptions(max_tokens=3))
    assert (short.text, short.finish_reason) == ("echo: a b", "length")
    stopped = client.generate(_user("alpha beta gamma"), options=GenerateOptions(stop=[" gam"]))
    assert (stopped.text, stopped.finish_reason) == ("echo: alpha beta", "stop")


def test_json_schema_reply_validates(client: InferenceClient) -> None:
    reply = client.generate(_user("we chose postgres"), json_schema=DISTILLATION_SCHEMA_JSON)
    assert validate(json.loads(reply.text), DISTILLATION_SCHEMA) == []


def test_embed_count_tokens_and_status(client: InferenceClient) -> None:
    emb = client.embed(["coffee in the morning", "coffee in the morning", "tax forms"])
    assert emb.vectors.shape == (3, 384) and emb.dimension == 384 and emb.model == "fake-embedding"
    assert np.allclose(np.linalg.norm(emb.vectors, axis=1), 1.0, atol=1e-5)
    assert float(emb.vectors[0] @ emb.vectors[1]) == pytest.approx(1.0, abs=1e-5)
    assert client.count_tokens(["hello world", ""]) == [2, 0]
    models = {m.name: m for m in client.models()}
    assert models[FAKE_LLM].state == "ready" and models[FAKE_LLM].is_default
    assert models["fake-embedding"].embedding_dimension == 384
    assert models["smollm2-135m-instruct"].state == "unloaded"  # real models stay lazy
    assert models["slow-llm"].queue_capacity == 1


@pytest.mark.parametrize(
    ("request_", "field", "reason"),
    [
        (pb.GenerateRequest(), "messages", "MISSING_FIELD"),
        (pb.GenerateRequest(messages=[pb.ChatMessage(content="hi")]), "messages[0].role", "MISSING_FIELD"),
        (
            pb.GenerateRequest(messages=[pb.ChatMessage(role=9, content="hi")]),
            "messages[0].role",
            "INVALID_ROLE",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")],
                options=pb.GenerationOptions(max_tokens=9000),
            ),
            "options.max_tokens",
            "OUT_OF_RANGE",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")],
                options=pb.GenerationOptions(temperature=-1),
            ),
            "options.temperature",
            "OUT_OF_RANGE",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")], json_schema="{nope"
            ),
            "json_schema",
            "INVALID_JSON_SCHEMA",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")], json_schema='{"type": "tuple"}'
            ),
            "json_schema",
            "INVALID_JSON_SCHEMA",
        ),
        (
            pb.GenerateRequest(model="x" * 300, messages=[pb.ChatMessage(role=1, content="hi")]),
            "model",
            "INVALID_MODEL_NAME",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")],
                json_schema='{"type": "object", "properties": {"a": {"enum": []}}, "required": ["a"]}',
            ),
            "json_schema",
            "INVALID_JSON_SCHEMA",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")],
                json_schema='{"type": "object", "properties": {"n": {"type": "number", "minimum": 5, "maximum": 1}}, "required": ["n"]}',
            ),
            "json_schema",
            "INVALID_JSON_SCHEMA",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")],
                json_schema='{"type": "object", "properties": {"s": {"type": "string", "minLength": 100000000}}, "required": ["s"]}',
            ),
            "json_schema",
            "INVALID_JSON_SCHEMA",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")],
                json_schema='{"type": "object", "properties": {"s": {"type": "string", "minLength": 9, "maxLength": 2}}}',
            ),
            "json_schema",
            "INVALID_JSON_SCHEMA",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")],
                json_schema='{"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": {"type": "string", "minLength": 1000}}}',
            ),
            "json_schema",
            "INVALID_JSON_SCHEMA",
        ),
        (
            pb.GenerateRequest(
                messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi")],
                json_schema='{"type": "object", "properties": {"s": {"type": "string", "minLength": -1}}}',
            ),
            "json_schema",
            "INVALID_JSON_SCHEMA",
        ),
    ],
)
def test_generate_validation(
    server: tuple[RunningServer, App], request_: pb.GenerateRequest, field: str, reason: str
) -> None:
    with grpc.insecure_channel(server[0].target) as channel:
        stub = pb_grpc.InferenceServiceStub(channel)
        with pytest.raises(grpc.RpcError) as caught:
            stub.Generate(request_, timeout=10)
    error = from_rpc_error(caught.value)
    assert isinstance(error, InvalidArgumentError)
    assert error.reason == reason and error.domain == "inference.osaurus.dev"
    assert field in [v.field for v in error.field_violations]


def test_embed_validation(client: InferenceClient) -> None:
    for texts, reason in (
        ([], "MISSING_FIELD"),
        (["x"] * 257, "TOO_MANY_TEXTS"),
        (["x" * 50_001], "FIELD_TOO_LONG"),
        ([""], "MISSING_FIELD"),
    ):
        with pytest.raises(InvalidArgumentError) as caught:
            client.embed(texts)
        assert caught.value.reason == reason


def test_unknown_and_wrong_kind_models(client: InferenceClient) -> None:
    with pytest.raises(NotFoundError) as caught:
        client.generate(_user("hi"), model="no-such-model")
    assert caught.value.reason == "MODEL_NOT_FOUND"
    with pytest.raises(InvalidArgumentError) as wrong:
        client.embed(["hi"], model=FAKE_LLM)
    assert wrong.value.reason == "WRONG_MODEL_KIND"


def test_full_queue_is_resource_exhausted_with_retry_info(server: tuple[RunningServer, App]) -> None:
    target = server[0].target
    with grpc.insecure_channel(target) as channel:
        stub = pb_grpc.InferenceServiceStub(channel)
        long_request = pb.GenerateStreamRequest(
            model="slow-llm", messages=[pb.ChatMessage(role=pb.ROLE_USER, content="w " * 100)]
        )
        running = stub.GenerateStream(long_request, timeout=30)
        next(running)  # the first call is on the inference thread now
        queued = stub.GenerateStream(long_request, timeout=30)  # fills the one queue slot
        _wait_for(lambda: _depth(stub, "slow-llm") == 1)
        with pytest.raises(grpc.RpcError) as caught:
            stub.Generate(pb.GenerateRequest(model="slow-llm", messages=long_request.messages), timeout=10)
        error = from_rpc_error(caught.value)
        assert isinstance(error, ResourceExhaustedError) and error.reason == "QUEUE_FULL"
        assert error.retry_after_s is not None and error.retry_after_s > 0
        # A cancelled queued request leaves the queue at once and frees its slot.
        queued.cancel()
        _wait_for(lambda: _depth(stub, "slow-llm") == 0)
        running.cancel()
        reply = stub.Generate(
            pb.GenerateRequest(model="slow-llm", messages=[pb.ChatMessage(role=pb.ROLE_USER, content="ok")]),
            timeout=10,
        )
        assert reply.text == "echo: ok"


def test_expired_request_leaves_the_queue(server: tuple[RunningServer, App]) -> None:
    with grpc.insecure_channel(server[0].target) as channel:
        stub = pb_grpc.InferenceServiceStub(channel)
        messages = [pb.ChatMessage(role=pb.ROLE_USER, content="w " * 40)]
        running = stub.GenerateStream(
            pb.GenerateStreamRequest(model="slow-llm", messages=messages), timeout=30
        )
        next(running)
        started = time.monotonic()
        with pytest.raises(grpc.RpcError) as caught:
            stub.Generate(pb.GenerateRequest(model="slow-llm", messages=messages), timeout=0.5)
        assert caught.value.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert time.monotonic() - started < 3
        _wait_for(lambda: _depth(stub, "slow-llm") == 0)
        running.cancel()


def test_model_crash_is_unavailable_not_a_hang(client: InferenceClient) -> None:
    started = time.monotonic()
    with pytest.raises(UnavailableError) as caught:
        client.generate(_user("hi"), model="crashy")
    assert caught.value.reason == "MODEL_CRASHED" and "boom" not in caught.value.message
    assert time.monotonic() - started < 5
    assert client.generate(_user("still fine")).text == "echo: still fine"


def test_failed_load_is_reported(client: InferenceClient) -> None:
    with pytest.raises(FailedPreconditionError) as caught:
        client.generate(_user("hi"), model="broken")
    assert caught.value.reason == "MODEL_UNAVAILABLE" and "truncated" in caught.value.message
    status = {m.name: m for m in client.models()}["broken"]
    assert status.state == "failed" and "truncated" in status.error
    started = time.monotonic()
    with pytest.raises(
        FailedPreconditionError
    ):  # no reload attempt on every call: answered from the failed state
        client.generate(_user("again"), model="broken")
    assert time.monotonic() - started < 1
    with pytest.raises(FailedPreconditionError):  # LoadModel always retries
        client.load_model("broken")


def test_residency_load_unload_and_only_if_resident(client: InferenceClient) -> None:
    with pytest.raises(FailedPreconditionError) as caught:
        client.generate(_user("hi"), only_if_resident=True, agent_id="agent-1")
    assert caught.value.reason == "MODEL_NOT_RESIDENT"
    assert client.load_model(FAKE_LLM).state == "ready"
    assert client.generate(_user("hi"), only_if_resident=True).text == "echo: hi"
    assert client.unload_model(FAKE_LLM).state == "unloaded"
    with pytest.raises(FailedPreconditionError):
        client.embed(["x"], only_if_resident=True)
    assert client.generate(_user("cold again")).text == "echo: cold again"  # lazy reload


def test_unload_fails_queued_requests_with_model_unloaded(server: tuple[RunningServer, App]) -> None:
    client = InferenceClient(server[0].target, deadline_s=20)
    errors: list[Exception] = []

    def call() -> None:
        try:
            client.generate(_user("w " * 200), model="slow-llm")
        except Exception as error:
            errors.append(error)

    thread = threading.Thread(target=call)
    thread.start()
    _wait_for(lambda: {m.name: m for m in client.models()}["slow-llm"].state == "ready")
    time.sleep(0.2)
    client.unload_model("slow-llm")
    thread.join(10)
    assert not thread.is_alive()
    assert (
        len(errors) == 1 and isinstance(errors[0], UnavailableError) and errors[0].reason == "MODEL_UNLOADED"
    )


def test_idle_model_is_unloaded(client: InferenceClient) -> None:
    client.generate(_user("hi"), model="idle-llm")
    _wait_for(lambda: {m.name: m for m in client.models()}["idle-llm"].state == "unloaded", timeout_s=5)


def test_agent_id_does_not_change_the_reply(client: InferenceClient) -> None:
    plain = client.generate(_user("same words"))
    tagged = client.generate(_user("same words"), agent_id="agent-42")
    assert plain.text == tagged.text  # inferd never injects memory


def _depth(stub: pb_grpc.InferenceServiceStub, name: str) -> int:
    reply = stub.GetModelStatus(pb.GetModelStatusRequest(), timeout=5)
    return next(m.queue_depth for m in reply.models if m.name == name)


def _wait_for(predicate: Callable[[], bool], timeout_s: float = 5.0) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.02)
    raise AssertionError("condition not reached in time")


def test_unset_default_model_is_a_distinct_error(tmp_path: Path) -> None:
    running, app = start(_settings(tmp_path, default_llm=""))
    try:
        client = InferenceClient(running.target, deadline_s=10)
        with pytest.raises(FailedPreconditionError) as caught:
            client.generate(_user("hi"))
        assert caught.value.reason == "MODEL_UNSET"
        assert client.generate(_user("named"), model=FAKE_LLM).text == "echo: named"
        assert not any(m.is_default for m in client.models() if m.kind == "llm")
    finally:
        close_all(running, app, grace_s=1)
