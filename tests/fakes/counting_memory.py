"""A stand-in memoryd replica for balancer tests: answers ListAgents with no agents and counts the calls."""

from __future__ import annotations

from concurrent import futures

import grpc

from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc


class CountingMemory(pb_grpc.MemoryServiceServicer):
    """ListAgents → empty page; `calls` counts them."""

    def __init__(self) -> None:
        self.calls = 0

    def ListAgents(
        self, request: pb.ListAgentsRequest, context: grpc.ServicerContext
    ) -> pb.ListAgentsResponse:
        self.calls += 1
        return pb.ListAgentsResponse()


def serve_counting() -> tuple[CountingMemory, grpc.Server, str]:
    """A started CountingMemory on 127.0.0.1:0: the servicer, its server and its address."""
    servicer = CountingMemory()
    server = grpc.server(futures.ThreadPoolExecutor(2))
    pb_grpc.add_MemoryServiceServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return servicer, server, f"127.0.0.1:{port}"
