"""Look-alike agent ids over gRPC: a fullwidth spelling is the same agent, invisible, bidi-control and mixed-script
ids are refused with INVALID_AGENT_ID on every RPC that takes an agent."""

from __future__ import annotations

from pathlib import Path

import grpc
import pytest

from osaurus.memory.v1 import memory_pb2 as mpb
from tests.support.memoryd_server import buffer, rpc_error, running_memoryd


def test_a_fullwidth_spelling_is_the_same_agent(tmp_path: Path) -> None:
    with running_memoryd(tmp_path) as handle:
        buffer(handle.memory, "alice", "c1", "I like plums")
        buffer(handle.memory, "ａｌｉｃｅ", "c1", "and pears")
        agents = handle.memory.ListAgents(mpb.ListAgentsRequest(), timeout=10).agents
        assert [a.agent_id for a in agents] == ["alice"]


@pytest.mark.parametrize("bad", ["ali\u200bce", "alice\u202e", "аlice", "\u2066alice\u2069"])
def test_look_alike_agent_ids_are_refused(tmp_path: Path, bad: str) -> None:
    with running_memoryd(tmp_path) as handle:
        calls = [
            lambda: buffer(handle.memory, bad, "c1", "hello"),
            lambda: handle.memory.GetAgent(mpb.GetAgentRequest(agent_id=bad), timeout=10),
            lambda: handle.memory.InjectMemory(
                mpb.InjectMemoryRequest(
                    agent_id=bad, messages=[mpb.ChatMessage(role=mpb.ROLE_USER, content="hi")]
                ),
                timeout=10,
            ),
        ]
        for call in calls:
            error = rpc_error(call)
            assert (error.code, error.reason) == (grpc.StatusCode.INVALID_ARGUMENT, "INVALID_AGENT_ID")
        assert list(handle.memory.ListAgents(mpb.ListAgentsRequest(), timeout=10).agents) == []
