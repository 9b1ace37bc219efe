"""Property-based Import: a real export (turns, episodes, facts, identity, vectors) with one or two records mutated
(edge numbers, NaN, wrong types, NULs, unknown or missing fields, duplicates, a dropped end record) is imported
into an emptied store or refused with INVALID_ARGUMENT; never INTERNAL, and the store passes its integrity checks."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import grpc
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memoryd.app import start
from memoryd.config import ServiceSettings
from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import console_pb2_grpc as cpb_grpc
from osaurus.memory.v1 import memory_pb2 as pb
from osaurus.memory.v1 import memory_pb2_grpc as pb_grpc
from servicekit.errors import from_rpc_error
from tests.fakes.fake_writer_inferd import digest
from tests.support.reliability_rig import Audit, integrity, memory_config, start_recording_inferd, turn_text

EDGE_VALUES: tuple[Any, ...] = (
    2**63,
    -(2**63) - 1,
    2**70,
    -1,
    0,
    1.5,
    1e308,
    float("nan"),
    float("inf"),
    "",
    "\x00",
    "x" * 70_000,
    None,
    True,
    [],
    {"nested": [1, 2]},
    "'; DROP TABLE transcript; --",
)


@dataclass
class Rig:
    console: cpb_grpc.MemoryConsoleServiceStub
    export: list[dict[str, Any]]
    db: Path


@pytest.fixture(scope="module")
def rig(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Rig]:
    home: Path = tmp_path_factory.mktemp("import-fuzz")
    (home / "config").mkdir()
    (home / "config" / "memory.json").write_text(json.dumps(memory_config()))
    inferd_server, inferd = start_recording_inferd()
    inferd.scripted.append(
        digest("Planned the trip.", pinned=[("Sam likes trains", 0.8)], identity=("User is Sam",))
    )
    running, app = start(ServiceSettings(listen="127.0.0.1:0", home=home, inferd_addr=inferd_server.target))
    channel = grpc.insecure_channel(running.target, options=[("grpc.max_send_message_length", 64 << 20)])
    memory, console = pb_grpc.MemoryServiceStub(channel), cpb_grpc.MemoryConsoleServiceStub(channel)
    try:
        memory.AddOverride(pb.AddOverrideRequest(text="Call me Sam."), timeout=10)
        # A fact the user states, so the export carries a pinned fact (facts come from what the user said).
        memory.BufferTurn(
            pb.BufferTurnRequest(
                agent_id="alpha",
                conversation_id="trip",
                user_message="I prefer trains over planes for every trip in Europe.",
                assistant_message="Trains it is.",
            ),
            timeout=10,
        )
        for i in range(3):
            memory.BufferTurn(
                pb.BufferTurnRequest(
                    agent_id="alpha",
                    conversation_id="trip",
                    user_message=turn_text(f"t{i}", "user"),
                    assistant_message=turn_text(f"t{i}", "assistant"),
                ),
                timeout=10,
            )
        memory.EndSession(
            pb.EndSessionRequest(agent_id="alpha", conversation_id="trip", wait=True), timeout=30
        )
        memory.BufferTurn(
            pb.BufferTurnRequest(agent_id="beta", conversation_id="b", user_message="still pending"),
            timeout=10,
        )
        app.indexer.run_once()
        lines = [r.line for r in console.Export(cpb.ExportRequest(), timeout=30)]
        yield Rig(console, [json.loads(line) for line in lines], home / "memory" / "memory.sqlite")
    finally:
        channel.close()
        running.stop(1)
        app.close()
        inferd_server.stop(0)


@st.composite
def mutated_exports(draw: st.DrawFn, records: list[dict[str, Any]]) -> list[str]:
    """The export with one to three edits: a field set to an edge value, dropped or added; a record duplicated,
    retyped or removed."""
    out = [dict(r) for r in records]
    for _ in range(draw(st.sampled_from((1, 1, 1, 2, 3)))):
        index = draw(st.integers(0, len(out) - 1))
        record = out[index]
        edit = draw(st.sampled_from(("set", "set", "set", "drop", "add", "duplicate", "retype", "remove")))
        fields = sorted(k for k in record if k != "type") or ["type"]
        if edit == "set":
            record[draw(st.sampled_from(fields))] = draw(st.sampled_from(EDGE_VALUES))
        elif edit == "drop":
            record.pop(draw(st.sampled_from(fields)), None)
        elif edit == "add":
            record[draw(st.sampled_from(("extra", "id", "agent_id", "vector", "status")))] = draw(
                st.sampled_from(EDGE_VALUES)
            )
        elif edit == "duplicate":
            out.insert(index, dict(record))
        elif edit == "retype":
            record["type"] = draw(
                st.sampled_from(("header", "end", "agent", "episode", "vector", "bogus", 7))
            )
        elif len(out) > 1:
            out.pop(index)
    return [json.dumps(r, allow_nan=True) for r in out]


def test_the_export_round_trips(rig: Rig) -> None:
    kinds = {r["type"] for r in rig.export}
    assert {"header", "agent", "transcript", "episode", "pinned_fact", "end"} <= kinds, kinds
    reply = rig.console.Import(iter(cpb.ImportRequest(line=json.dumps(r)) for r in rig.export), timeout=60)
    assert reply is not None


def test_mutated_imports_are_refused_or_imported_never_internal(rig: Rig) -> None:
    seen: set[str] = set()

    @settings(
        max_examples=300,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(lines=mutated_exports(rig.export))
    def one_import(lines: list[str]) -> None:
        rig.console.ClearAll(cpb.ClearAllRequest(confirm=True), timeout=30)  # so every record is inserted
        try:
            rig.console.Import(iter(cpb.ImportRequest(line=line) for line in lines), timeout=60)
            seen.add("OK")
        except grpc.RpcError as error:
            typed = from_rpc_error(error)
            assert typed.code in {grpc.StatusCode.INVALID_ARGUMENT, grpc.StatusCode.FAILED_PRECONDITION}, (
                typed.code,
                typed.reason,
                str(typed)[:300],
            )
            seen.add(typed.reason)

    one_import()
    audit = Audit()
    integrity(rig.db, audit)
    assert not audit.problems, audit.problems
    assert "OK" in seen and len(seen) > 3, seen
