"""memoryd's query embeddings against a fake inferd on a real port: the LRU cache, the short deadline, the back-off."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from inferd.client import InferenceClient
from memoryd.config import ConfigStore
from memoryd.vectors.embedding import ISSUE_NO_TIME, ISSUE_TIMEOUT, ISSUE_UNAVAILABLE, Embedder
from osaurus.inference.v1 import inference_pb2 as ipb
from tests.fakes.fake_inferd import FakeInferdState, FakeInference
from tests.fakes.inference_server import serving_inference


class DelayedInference(FakeInference):
    """FakeInference whose Embed sleeps `delay_s` first."""

    def __init__(self, state: FakeInferdState) -> None:
        super().__init__(state)
        self.delay_s = 0.0

    def Embed(self, request: ipb.EmbedRequest, context: grpc.ServicerContext) -> ipb.EmbedResponse:
        time.sleep(self.delay_s)
        return super().Embed(request, context)


@pytest.fixture
def rig(tmp_path: Path) -> Iterator[tuple[Embedder, DelayedInference]]:
    servicer = DelayedInference(FakeInferdState())
    with serving_inference(servicer, grace_s=0.1) as server:
        client = InferenceClient(server.target)
        try:
            yield Embedder(client, ConfigStore(tmp_path / "memory.json"), query_timeout_s=0.15), servicer
        finally:
            servicer.delay_s = 0.0
            client.close()


def test_repeated_queries_are_served_from_the_cache_whatever_their_whitespace(
    rig: tuple[Embedder, DelayedInference],
) -> None:
    embedder, inferd = rig
    first = embedder.embed_query("what does my cat  eat?")
    again = embedder.embed_query("  what does my cat\neat? ")
    assert first is not None and again is not None
    assert inferd.state.embed_calls == 1  # one call: the same normalised text
    assert (first[0] == again[0]).all() and first[1] == again[1] == "all-minilm-l6-v2"
    assert embedder.embed_query("What does my cat eat?") is not None
    assert inferd.state.embed_calls == 2  # case is not folded: the model may be cased


def test_a_late_query_embedding_returns_none_in_time_and_says_why(
    rig: tuple[Embedder, DelayedInference],
) -> None:
    embedder, inferd = rig
    inferd.delay_s = 1.0
    started = time.monotonic()
    assert embedder.embed_query("slow one") is None
    assert time.monotonic() - started < 0.6
    assert embedder.query_issue("slow  one") == ISSUE_TIMEOUT
    assert embedder.query_issue("slow one") is None  # read once
    assert embedder.embed_query("no time", timeout_s=0.001) is None
    assert embedder.query_issue("no time") == ISSUE_NO_TIME
    assert embedder.available()  # one late answer is a hiccup, not a back-off
    for n in range(2):
        assert embedder.embed_query(f"slow {n}") is None
    assert not embedder.available()  # three in a row: a slow peer; stop waiting for a while
    started = time.monotonic()
    assert embedder.embed_query("while backing off") is None
    assert time.monotonic() - started < 0.05
    assert embedder.query_issue("while backing off") == ISSUE_UNAVAILABLE
