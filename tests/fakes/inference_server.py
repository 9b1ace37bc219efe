"""Serve any fake InferenceService servicer on 127.0.0.1:0 with the standard interceptors (ServiceError → status)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from osaurus.inference.v1 import inference_pb2_grpc as pb_grpc
from servicekit.server import RunningServer, ServerOptions, ServiceBinding, build_server


def start_inference(servicer: pb_grpc.InferenceServiceServicer, *, max_workers: int = 8) -> RunningServer:
    """Start serving `servicer`; the caller stops the returned server."""
    binding = ServiceBinding(
        "osaurus.inference.v1.InferenceService",
        lambda server: pb_grpc.add_InferenceServiceServicer_to_server(servicer, server),
    )
    options = ServerOptions("127.0.0.1:0", domain="inference.osaurus.dev", max_workers=max_workers)
    return build_server(options, [binding])


@contextmanager
def serving_inference(
    servicer: pb_grpc.InferenceServiceServicer, *, max_workers: int = 8, grace_s: float = 1.0
) -> Iterator[RunningServer]:
    """Serve `servicer` for the duration of the block."""
    server = start_inference(servicer, max_workers=max_workers)
    try:
        yield server
    finally:
        server.stop(grace_s=grace_s)
