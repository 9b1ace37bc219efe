"""Server reflection that serves our .proto files WITH their comments, so `grpcurl describe` shows the API docs.

grpcio's reflection rebuilds file descriptors with CopyToProto, which drops source_code_info (the comments). We
answer from the committed descriptor set (protoc --include_source_info) instead, for the files it contains.
"""

from __future__ import annotations

from collections.abc import Iterable
from importlib import resources
from typing import Any

import grpc
from google.protobuf import descriptor_pb2, descriptor_pool
from grpc_reflection.v1alpha import reflection, reflection_pb2, reflection_pb2_grpc

DESCRIPTOR_SET_RESOURCE = ("osaurus", "descriptor_set.binpb")


def load_commented_files() -> dict[str, bytes]:
    """File name → serialized FileDescriptorProto with comments, from the generated descriptor set."""
    package, name = DESCRIPTOR_SET_RESOURCE
    try:
        raw = resources.files(package).joinpath(name).read_bytes()
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    files = descriptor_pb2.FileDescriptorSet.FromString(raw).file
    return {f.name: f.SerializeToString() for f in files}


class CommentedReflectionServicer(reflection.ReflectionServicer):
    """ReflectionServicer whose file descriptors keep their comments."""

    def __init__(self, service_names: Iterable[str], commented: dict[str, bytes]) -> None:
        # Our own reference to the pool the base class searches (it keeps it in an undeclared `_pool`).
        self._descriptors = descriptor_pool.Default()
        super().__init__(tuple(service_names), self._descriptors)
        self._commented = commented

    def _respond(self, descriptor: Any, request: Any) -> reflection_pb2.ServerReflectionResponse:
        seen: dict[str, Any] = {}
        _collect(descriptor, seen)
        serialized = []
        for name, file_descriptor in seen.items():
            if name in self._commented:
                serialized.append(self._commented[name])
            else:
                proto = descriptor_pb2.FileDescriptorProto()
                file_descriptor.CopyToProto(proto)
                serialized.append(proto.SerializeToString())
        return reflection_pb2.ServerReflectionResponse(
            file_descriptor_response=reflection_pb2.FileDescriptorResponse(file_descriptor_proto=serialized),
            original_request=request,
        )

    def _file_by_filename(self, request: Any, filename: str) -> reflection_pb2.ServerReflectionResponse:
        try:
            descriptor = self._descriptors.FindFileByName(filename)
        except KeyError:
            # The base's private handlers are not in types-grpcio-reflection.
            return super()._file_by_filename(request, filename)  # type: ignore[misc, no-any-return]
        return self._respond(descriptor, request)

    def _file_containing_symbol(self, request: Any, symbol: str) -> reflection_pb2.ServerReflectionResponse:
        try:
            descriptor = self._descriptors.FindFileContainingSymbol(symbol)
        except KeyError:
            return super()._file_containing_symbol(request, symbol)  # type: ignore[misc, no-any-return]
        return self._respond(descriptor, request)


def _collect(descriptor: Any, seen: dict[str, Any]) -> None:
    seen[descriptor.name] = descriptor
    for dependency in descriptor.dependencies:
        if dependency.name not in seen:
            _collect(dependency, seen)


def enable_commented_reflection(service_names: Iterable[str], server: grpc.Server) -> None:
    """Register reflection (v1alpha, which grpcurl 1.8 uses) answering with commented descriptors."""
    names = (*service_names, reflection.SERVICE_NAME)
    servicer = CommentedReflectionServicer(names, load_commented_files())
    # Generated registration function, unannotated in types-grpcio-reflection.
    reflection_pb2_grpc.add_ServerReflectionServicer_to_server(servicer, server)  # type: ignore[no-untyped-call]
