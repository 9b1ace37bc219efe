"""MemoryClient's round_robin option spreads calls over every replica of the target (fake MemoryService peers on
real ports); without it gRPC's pick_first keeps to one."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from memoryd.client import MemoryClient
from servicekit.channel import balanced_target
from tests.fakes.counting_memory import CountingMemory, serve_counting


@pytest.fixture
def replicas() -> Iterator[tuple[list[CountingMemory], list[grpc.Server], str]]:
    started = [serve_counting(), serve_counting()]
    servers = [server for _, server, _ in started]
    yield [s for s, _, _ in started], servers, ",".join(address for _, _, address in started)
    for server in servers:
        server.stop(None)


def test_round_robin_spreads_calls_over_both_replicas(
    replicas: tuple[list[CountingMemory], list[grpc.Server], str],
) -> None:
    servicers, _, target = replicas
    with MemoryClient(target, round_robin=True, deadline_s=5) as client:
        for _ in range(20):
            assert client.list_agents() == []
    assert sum(s.calls for s in servicers) == 20
    assert min(s.calls for s in servicers) >= 7  # even once both subchannels are ready


def test_round_robin_skips_a_replica_that_went_away(
    replicas: tuple[list[CountingMemory], list[grpc.Server], str],
) -> None:
    servicers, servers, target = replicas
    with MemoryClient(target, round_robin=True, deadline_s=5) as client:
        client.list_agents()
        client.list_agents()
        servers[0].stop(None)
        before = servicers[1].calls
        answered = 0
        for _ in range(20):
            try:
                client.list_agents()
                answered += 1
            except Exception:
                pass  # a call already on its way to the stopped replica fails once
        assert answered >= 18 and servicers[1].calls - before == answered


def test_without_round_robin_one_replica_gets_every_call(
    replicas: tuple[list[CountingMemory], list[grpc.Server], str],
) -> None:
    servicers, _, target = replicas
    with MemoryClient(balanced_target(target), deadline_s=5) as client:
        for _ in range(10):
            client.list_agents()
    assert sorted(s.calls for s in servicers) == [0, 10]


def test_balanced_target_forms() -> None:
    assert balanced_target("127.0.0.1:1,127.0.0.1:2") == "ipv4:127.0.0.1:1,127.0.0.1:2"
    assert balanced_target("[::1]:1,[::1]:2") == "ipv6:[::1]:1,[::1]:2"
    assert balanced_target("dns:///memoryd:50061") == "dns:///memoryd:50061"
    assert balanced_target("127.0.0.1:1") == "127.0.0.1:1"
