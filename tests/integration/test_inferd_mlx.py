"""inferd with the real offline models (SmolLM2-135M GGUF via mlx-lm, all-MiniLM-L6-v2 in MLX) over gRPC."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import grpc
import numpy as np
import pytest
from tokenizers import Tokenizer

from inferd.app import App, close_all, start
from inferd.backends.base import ChatTurn, GenerateCall, SamplingParams, TextDelta
from inferd.backends.gguf_convert import MARKER
from inferd.backends.mlx_embed import FAST_PATH_MAX_TOKENS
from inferd.backends.mlx_llm import load_mlx_llm
from inferd.client import GenerateOptions, InferenceClient, Message
from inferd.config import DEFAULT_EMBEDDING, DEFAULT_LLM, MINILM_SOURCE, for_tests
from inferd.jsonschema_lite import validate
from inferd.loaders import resolve_source
from memoryd.write.digest_schema import DISTILLATION_SCHEMA, DISTILLATION_SCHEMA_JSON
from osaurus.inference.v1 import inference_pb2 as pb
from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.errors import InvalidArgumentError
from servicekit.server import RunningServer

pytestmark = pytest.mark.model

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
SYSTEM = (
    "You distill a chat session into a JSON digest: a short factual summary, topics, decisions, action items, "
    "entities, facts worth pinning and facts about the user. Do not invent facts."
)
SESSIONS = [
    "User: I moved to Lisbon last month and I love cycling.\nAssistant: Lisbon is hilly!\n"
    "User: Yes, so I decided to buy an e-bike next week.",
    "User: We picked Postgres over MySQL for the billing service.\nAssistant: Good choice for JSONB.\n"
    "User: Alice will write the migration by Friday.",
    "User: hi\nAssistant: Hello! How can I help?\nUser: nothing, just saying hi",
    "User: Je m'appelle Zoë et je suis allergique aux arachides.\nAssistant: Merci, je m'en souviendrai.",
    "User: Remind me that the quarterly budget report is due on March 3rd.\nAssistant: Noted.\n"
    "User: Also Bob moved the team offsite to next Friday.",
]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[RunningServer, App, Path]]:
    home = tmp_path_factory.mktemp("inferd-mlx")
    running, app = start(for_tests(home, fake=False))
    yield running, app, home
    close_all(running, app, grace_s=1)


@pytest.fixture(scope="module")
def client(served: tuple[RunningServer, App, Path]) -> Iterator[InferenceClient]:
    c = InferenceClient(served[0].target, deadline_s=300)
    yield c
    c.close()


def test_embeddings_match_sentence_transformers(client: InferenceClient) -> None:
    reference = json.loads((FIXTURES / "minilm_reference.json").read_text())
    emb = client.embed(reference["sentences"])
    assert emb.model == DEFAULT_EMBEDDING and emb.dimension == 384
    expected = np.asarray(reference["vectors"], dtype=np.float32)
    cosines = (emb.vectors * expected).sum(axis=1) / np.linalg.norm(expected, axis=1)
    assert cosines.min() >= 0.999, cosines
    assert np.allclose(np.linalg.norm(emb.vectors, axis=1), 1.0, atol=1e-5)


def test_embedding_order_and_batching_do_not_change_vectors(client: InferenceClient) -> None:
    texts = [
        "short",
        "a much longer sentence about coffee, tea and the morning routine of the user",
        "mid size text",
    ]
    together = client.embed(texts).vectors
    alone = np.vstack([client.embed([t]).vectors for t in texts])
    assert np.allclose(together, alone, atol=1e-5)


def test_single_query_fast_path_matches_the_reference_and_the_batch_path(client: InferenceClient) -> None:
    # One short text takes the numpy query path (bert_numpy.py); batches take MLX. Stored vectors come from
    # batches and query vectors from single texts, so the two must agree, and both must match the reference.
    reference = json.loads((FIXTURES / "minilm_reference.json").read_text())
    expected = np.asarray(reference["vectors"], dtype=np.float32)
    expected /= np.linalg.norm(expected, axis=1, keepdims=True)
    batch = client.embed(reference["sentences"]).vectors
    alone = np.vstack([client.embed([s]).vectors for s in reference["sentences"]])
    assert (alone * expected).sum(axis=1).min() >= 0.999
    assert (alone * batch).sum(axis=1).min() >= 0.99999
    assert np.allclose(np.linalg.norm(alone, axis=1), 1.0, atol=1e-5)
    long_text = " ".join(["the quarterly budget review with Alice and Bob about the Lisbon office"] * 8)
    tokenizer = Tokenizer.from_file(str(resolve_source(MINILM_SOURCE) / "tokenizer.json"))
    assert len(tokenizer.encode(long_text).ids) > FAST_PATH_MAX_TOKENS  # one text, but over the fast path
    single = client.embed([long_text]).vectors
    paired = client.embed([long_text, "short"]).vectors
    assert np.allclose(single[0], paired[0], atol=1e-5)


def test_a_query_does_not_wait_behind_an_indexing_batch(client: InferenceClient) -> None:
    batch = [
        f"turn {i}: " + "we talked about the budget, the Lisbon office and the release plan " * 3
        for i in range(256)
    ]
    started = time.monotonic()
    with ThreadPoolExecutor(1) as pool:
        indexing = pool.submit(lambda: client.embed(batch))
        time.sleep(0.2)  # the batch is running on the model thread
        query_started = time.monotonic()
        client.embed(["what did we say about the budget?"])
        query_s = time.monotonic() - query_started
        indexing.result()
    batch_s = time.monotonic() - started
    assert batch_s > 1.0 and query_s < batch_s / 4, (query_s, batch_s)


def test_answers_a_simple_question(client: InferenceClient) -> None:
    reply = client.generate([Message("user", "What is the capital of France?")])
    assert "Paris" in reply.text
    assert reply.model == DEFAULT_LLM and reply.finish_reason == "stop"
    assert reply.prompt_tokens > 10 and 0 < reply.completion_tokens < 40


def test_converted_once_into_the_models_dir(
    client: InferenceClient, served: tuple[RunningServer, App, Path]
) -> None:
    client.load_model(DEFAULT_LLM)
    marker = served[2] / "models" / DEFAULT_LLM / MARKER
    first = marker.stat().st_mtime_ns
    client.unload_model(DEFAULT_LLM)
    started = time.monotonic()
    status = client.load_model(DEFAULT_LLM)
    assert status.state == "ready" and status.context_window_tokens == 8192
    assert marker.stat().st_mtime_ns == first  # reloaded, not re-converted
    assert time.monotonic() - started < 30


def test_any_mlx_lm_folder_loads_quantized_too(
    client: InferenceClient, served: tuple[RunningServer, App, Path]
) -> None:
    client.load_model(DEFAULT_LLM)
    folder = served[2] / "models" / DEFAULT_LLM  # written by the GGUF conversion; a plain mlx-lm folder
    llm = load_mlx_llm("folder-model", folder, served[2] / "unused", {"dequantize": False})
    try:
        call = GenerateCall(
            (ChatTurn("user", "What is the capital of France?"),), SamplingParams(max_tokens=8)
        )
        text = "".join(e.text for e in llm.generate(call, lambda: False) if isinstance(e, TextDelta))
        assert "Paris" in text
    finally:
        llm.close()
    assert not (served[2] / "unused").exists()  # a folder source is used in place, never converted


def test_stream_matches_generate_and_ends_with_usage(client: InferenceClient) -> None:
    messages = [Message("user", "Name three colors.")]
    whole = client.generate(messages, options=GenerateOptions(max_tokens=40))
    events = list(client.stream(messages, options=GenerateOptions(max_tokens=40)))
    deltas = [e.delta for e in events[:-1]]
    assert len(deltas) > 2 and all(deltas)
    assert "".join(deltas) == whole.text
    final = events[-1]
    assert final.finish_reason in (pb.FINISH_REASON_STOP, pb.FINISH_REASON_LENGTH)
    assert (
        final.usage.completion_tokens == whole.completion_tokens
        and final.usage.prompt_tokens == whole.prompt_tokens
    )


def test_max_tokens_and_stop_sequence(client: InferenceClient) -> None:
    short = client.generate(
        [Message("user", "Write a long story about a dragon.")], options=GenerateOptions(max_tokens=5)
    )
    assert short.finish_reason == "length" and short.completion_tokens == 5
    counted = client.generate(
        [Message("user", "Count from 1 to 10, one number per line.")], options=GenerateOptions(stop=["4"])
    )
    assert counted.finish_reason == "stop" and "4" not in counted.text and "3" in counted.text


def test_count_tokens_uses_the_model_tokenizer(client: InferenceClient) -> None:
    counts = client.count_tokens(["Hello world 12345", "", "<|im_start|>"])
    assert counts == [
        8,
        0,
        1,
    ]  # digits split one per token (SmolLM pre-tokenizer); chat specials are one token


def test_prompt_longer_than_the_window_is_invalid_argument(client: InferenceClient) -> None:
    with pytest.raises(InvalidArgumentError) as caught:
        client.generate([Message("user", "7 " * 9000)])
    assert caught.value.reason == "PROMPT_TOO_LONG"


@pytest.mark.parametrize("session", range(len(SESSIONS)))
def test_distillation_json_always_parses_and_validates(client: InferenceClient, session: int) -> None:
    messages = [
        Message("system", SYSTEM),
        Message(
            "user", f"Conversation turns:\n{SESSIONS[session]}\n\nDistill this session into the JSON digest."
        ),
    ]
    reply = client.generate(
        messages,
        json_schema=DISTILLATION_SCHEMA_JSON,
        options=GenerateOptions(max_tokens=120, temperature=0.3, seed=7),
    )
    digest = json.loads(reply.text)
    assert validate(digest, DISTILLATION_SCHEMA) == []
    assert digest["episode"]["summary"].strip()


def test_distillation_json_is_valid_even_when_the_budget_is_tiny(client: InferenceClient) -> None:
    messages = [Message("system", SYSTEM), Message("user", f"Conversation turns:\n{SESSIONS[1]}\n\nDistill.")]
    reply = client.generate(
        messages, json_schema=DISTILLATION_SCHEMA_JSON, options=GenerateOptions(max_tokens=24)
    )
    assert validate(json.loads(reply.text), DISTILLATION_SCHEMA) == []
    assert reply.finish_reason == "length"


def test_streamed_json_is_valid_when_joined(client: InferenceClient) -> None:
    schema = {
        "type": "object",
        "properties": {
            "answer": {"type": "string", "maxLength": 40},
            "confidence": {"type": "integer", "minimum": 1, "maximum": 5},
        },
        "required": ["answer", "confidence"],
        "additionalProperties": False,
    }
    events = list(
        client.stream([Message("user", "What is the capital of France?")], json_schema=json.dumps(schema))
    )
    value = json.loads("".join(e.delta for e in events))
    assert validate(value, schema) == []
    assert events[-1].finish_reason == pb.FINISH_REASON_STOP


def test_cancelled_stream_frees_the_model_quickly(
    client: InferenceClient, served: tuple[RunningServer, App, Path]
) -> None:
    with grpc.insecure_channel(served[0].target) as channel:
        stub = pb_grpc.InferenceServiceStub(channel)
        request = pb.GenerateStreamRequest(
            messages=[pb.ChatMessage(role=pb.ROLE_USER, content="Write a very long essay about the sea.")],
            options=pb.GenerationOptions(max_tokens=2000),
        )
        call = stub.GenerateStream(request, timeout=120)
        next(call)
        call.cancel()
    started = time.monotonic()
    reply = client.generate([Message("user", "Say hi.")], options=GenerateOptions(max_tokens=5))
    assert reply.completion_tokens > 0
    assert time.monotonic() - started < 10  # the cancelled essay did not keep the inference thread busy
