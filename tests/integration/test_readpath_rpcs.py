"""AssembleContext and InjectMemory over gRPC (the ReadPathRpcs mixin on a real port): fields, validation."""

from __future__ import annotations

from collections.abc import Iterator

import grpc
import pytest

from memoryd.api.read_rpcs import ReadPathRpcs
from memoryd.read.assemble import ReadPath, ReadPathSettings
from memoryd.retrieval.gate_features import FEATURE_NAMES
from memoryd.retrieval.items import IdentitySnapshot, Section
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.channel import make_channel, typed_errors
from servicekit.errors import InvalidArgumentError
from servicekit.server import ServerOptions, ServiceBinding, build_server
from tests.fakes.memory_reader import InMemoryReader

UUID = "3f2a8c1e-5b6d-4e7f-8a9b-0c1d2e3f4a5b"


class ReadPathServicer(ReadPathRpcs, pb_grpc.MemoryServiceServicer):  # type: ignore[misc]
    """How the lead mixes it in: the servicer sets read_path."""

    def __init__(self, read_path: ReadPath) -> None:
        self.read_path = read_path


@pytest.fixture
def reader() -> InMemoryReader:
    r = InMemoryReader(
        identity_snapshot=IdentitySnapshot(overrides=("Always reply in English",)),
        entities={UUID.upper(): ["Mochi"]},
    )
    r.add(UUID.upper(), Section.PINNED, "Mochi is a tabby cat")
    return r


@pytest.fixture
def stub(reader: InMemoryReader) -> Iterator[pb_grpc.MemoryServiceStub]:
    servicer = ReadPathServicer(ReadPath(reader, ReadPathSettings, use_default_gate_model=False))
    server = build_server(
        ServerOptions(address="127.0.0.1:0", domain="memory.osaurus.dev", max_workers=4),
        [
            ServiceBinding(
                "osaurus.memory.v1.MemoryService",
                lambda s: pb_grpc.add_MemoryServiceServicer_to_server(servicer, s),
            )
        ],
    )
    channel = make_channel(server.target, deadline_s=5.0)
    try:
        yield pb_grpc.MemoryServiceStub(channel)
    finally:
        channel.close()
        server.stop(0)


def test_assemble_context_reports_the_decision(stub: pb_grpc.MemoryServiceStub) -> None:
    reply = stub.AssembleContext(pb.AssembleContextRequest(agent_id=UUID, query="How is Mochi?"))
    assert reply.section == pb.SECTION_PINNED
    assert reply.reason == "trigger:entity"
    assert reply.block.startswith("[Memory]\nCurrent date: ")
    assert "- Always reply in English" in reply.block
    assert "- Mochi is a tabby cat" in reply.block
    assert list(reply.placed) == [pb.ItemRef(kind=pb.ITEM_KIND_PINNED_FACT, id="1")]
    assert reply.block_tokens > reply.overrides_tokens > 0
    assert (reply.items_considered, reply.items_dropped, reply.cached) == (1, 0, False)
    # The decision carries the features the gate computed (no model here: no scores, no version).
    names = [f.name for f in reply.decision.features]
    assert names == list(FEATURE_NAMES)
    assert {f.name: f.value for f in reply.decision.features}["trig_entity"] == 1.0
    assert (reply.decision.model_version, list(reply.decision.scores)) == ("", [])
    assert reply.decision.budget_tokens == 800
    again = stub.AssembleContext(pb.AssembleContextRequest(agent_id=UUID.upper(), query="how is mochi?"))
    assert again.cached is True


def test_inject_memory_rewrites_only_the_latest_user_message(stub: pb_grpc.MemoryServiceStub) -> None:
    image = pb.Attachment(mime_type="image/png", data=b"\x89PNG")
    messages = [
        pb.ChatMessage(role=pb.ROLE_SYSTEM, content="Be brief."),
        pb.ChatMessage(role=pb.ROLE_USER, content="Look at this", attachments=[image]),
        pb.ChatMessage(role=pb.ROLE_ASSISTANT, content="A cat."),
        pb.ChatMessage(role=pb.ROLE_USER, content="Is that Mochi?"),
    ]
    reply = stub.InjectMemory(
        pb.InjectMemoryRequest(agent_id=UUID, messages=messages, model_context_tokens=32768)
    )
    assert reply.injected is True
    assert reply.section == pb.SECTION_PINNED
    assert list(reply.messages)[:3] == messages[:3]
    assert reply.messages[3].content.endswith("[/Memory]\n\nIs that Mochi?")
    assert reply.block_tokens > 0
    small = stub.InjectMemory(
        pb.InjectMemoryRequest(agent_id=UUID, messages=messages, model_context_tokens=1024)
    )
    assert (small.injected, small.reason, list(small.messages)) == (False, "context_too_small:1024", messages)
    assert not small.HasField("decision")
    multimodal = stub.InjectMemory(pb.InjectMemoryRequest(agent_id=UUID, messages=messages[:2]))
    assert (multimodal.injected, multimodal.reason) == (False, "multimodal")
    assert list(multimodal.messages) == messages[:2]


def _invalid(call: grpc.UnaryUnaryMultiCallable, request: object) -> InvalidArgumentError:
    with pytest.raises(InvalidArgumentError) as caught, typed_errors():
        call(request)
    return caught.value


@pytest.mark.parametrize(
    ("request_", "reason", "fields"),
    [
        (pb.AssembleContextRequest(query="q"), "INVALID_AGENT_ID", ["agent_id"]),
        (pb.AssembleContextRequest(agent_id="has space", query="q"), "INVALID_AGENT_ID", ["agent_id"]),
        (pb.AssembleContextRequest(agent_id="a"), "MISSING_FIELD", ["query"]),
        (
            pb.AssembleContextRequest(agent_id="a", query="q", budget_tokens=-5),
            "BUDGET_OUT_OF_RANGE",
            ["budget_tokens"],
        ),
        (
            pb.AssembleContextRequest(agent_id="a", query="q", budget_tokens=4001),
            "BUDGET_OUT_OF_RANGE",
            ["budget_tokens"],
        ),
        (pb.AssembleContextRequest(agent_id="a", query="x" * 50_001), "FIELD_TOO_LONG", ["query"]),
    ],
)
def test_assemble_context_validation(
    stub: pb_grpc.MemoryServiceStub, request_: pb.AssembleContextRequest, reason: str, fields: list[str]
) -> None:
    error = _invalid(stub.AssembleContext, request_)
    assert error.reason == reason
    assert [v.field for v in error.field_violations] == fields
    assert error.domain == "memory.osaurus.dev"


def test_inject_memory_validation(stub: pb_grpc.MemoryServiceStub) -> None:
    assert _invalid(stub.InjectMemory, pb.InjectMemoryRequest(agent_id="a")).reason == "MISSING_FIELD"
    error = _invalid(
        stub.InjectMemory,
        pb.InjectMemoryRequest(
            agent_id="a",
            messages=[pb.ChatMessage(role=pb.ROLE_USER, content="hi"), pb.ChatMessage(content="no role")],
            model_context_tokens=-1,
        ),
    )
    assert [v.field for v in error.field_violations] == ["messages[1].role", "model_context_tokens"]
