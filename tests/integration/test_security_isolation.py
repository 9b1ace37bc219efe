"""Agent isolation as a property: random distinctive facts in many agents, every agent-scoped RPC probed for leaks.

Each agent gets made-up words of its own (pronounceable, so redaction leaves them alone) in pinned facts, episodes,
buffered turns and ingested turns, all around the same shared words and in the same conversation id. Then, for
every agent, every RPC that takes an agent is asked about every other agent's words and about the shared words:
SearchMemory (three scopes), AssembleContext and InjectMemory (gate off and heuristic), console Search with the
agent filter, PreviewContext, Export of that agent, and through plugin_host RunAgent and a plugin's
ctx.search_memory. Not one foreign word may come back. Identity is global by design and is not seeded.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from osaurus.memory.v1 import console_pb2 as cpb
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.app import App as HostApp
from plugin_host.app import start as start_plugin_host
from plugin_host.config import load_settings
from servicekit.server import RunningServer, ServerOptions, ServiceBinding, build_server
from tests.fakes.fake_plugin_peers import FakeInference as EchoInference
from tests.support.console_rig import ConsoleRig, console_rig
from tests.support.memoryd_server import enable_recall
from tests.support.plugin_host_stack import TEST_PLUGINS, write_grants
from tests.support.tenant_world import CONVERSATION, SHARED, SYLLABLES

AGENTS = 7


@dataclass(frozen=True)
class Agent:
    """One agent and its private words (one per layer)."""

    agent_id: str
    words: tuple[str, ...]


def _world(seed: int) -> list[Agent]:
    rng = random.Random(seed)
    used: set[str] = set()

    def word() -> str:
        while True:
            candidate = "".join(rng.choice(SYLLABLES) for _ in range(4))
            if candidate not in used and not any(candidate in u or u in candidate for u in used):
                used.add(candidate)
                return candidate

    ids = rng.sample(["ada", "bo", "cyd", "dee", "eli", "fox", "gus", "hal", "ivy", "jun"], AGENTS)
    return [Agent(f"{i}-{rng.randrange(1000)}", tuple(word() for _ in range(4))) for i in ids]


def _seed(rig: ConsoleRig, agents: list[Agent], rng: random.Random) -> None:
    for agent in agents:
        pinned, episode, turn, ingested = agent.words
        rig.pinned(agent.agent_id, f"The {SHARED} of this user is {pinned}")
        rig.episode(agent.agent_id, f"Talked about the {SHARED}: {episode}", conversation=CONVERSATION)
        rig.turn(
            agent.agent_id,
            f"my {SHARED} is {turn}, {rng.choice(['really', 'honestly', 'truly'])}",
            conversation=CONVERSATION,
        )
        rig.client.ingest(
            agent.agent_id,
            CONVERSATION,
            [(f"remember the {SHARED} {ingested}", "noted")],
            skip_extraction=True,
        )
        enable_recall(rig.memoryd.memory, agent.agent_id)
    assert rig.index() > 0  # vectors too: hybrid search goes through each agent's faiss index


def _queries(agent: Agent, agents: list[Agent]) -> list[str]:
    foreign = [w for other in agents if other is not agent for w in other.words]
    return [
        *(f"what do you remember about {w}" for w in foreign),
        f"what did we discuss about the {SHARED}",
        f"what did I say about my {SHARED}",
        SHARED,
        " ".join(foreign),
        " ".join(agent.words),
    ]


class Collector:
    """Every text an agent's probes returned, checked against the other agents' words."""

    def __init__(self, agent: Agent, agents: list[Agent]) -> None:
        self.agent = agent
        self.foreign = {w: other.agent_id for other in agents if other is not agent for w in other.words}
        self.seen: list[str] = []
        self.probes = 0

    def add(self, where: str, *texts: str) -> None:
        self.probes += 1
        for text in texts:
            leaked = [w for w in self.foreign if w in text]
            assert not leaked, (
                f"{where} for {self.agent.agent_id} leaked {leaked} of {[self.foreign[w] for w in leaked]}"
            )
            self.seen.append(text)

    def own_words_seen(self) -> set[str]:
        return {w for w in self.agent.words if any(w in t for t in self.seen)}


def _probe_memoryd(rig: ConsoleRig, agent: Agent, queries: list[str], out: Collector) -> None:
    memory, console = rig.memoryd.memory, rig.memoryd.console
    a = agent.agent_id
    for query in queries:
        for scope in (mpb.SCOPE_PINNED, mpb.SCOPE_EPISODES, mpb.SCOPE_TRANSCRIPT):
            reply = memory.SearchMemory(
                mpb.SearchMemoryRequest(agent_id=a, scope=scope, query=query, limit=20), timeout=10
            )
            out.add("SearchMemory", *(h.text for h in reply.hits))
        assembled = memory.AssembleContext(
            mpb.AssembleContextRequest(
                agent_id=a, query=query, budget_tokens=2000, conversation_id=CONVERSATION
            ),
            timeout=10,
        )
        out.add("AssembleContext", assembled.block)
        injected = memory.InjectMemory(
            mpb.InjectMemoryRequest(
                agent_id=a,
                conversation_id=CONVERSATION,
                messages=[mpb.ChatMessage(role=mpb.ROLE_USER, content=query)],
                model_context_tokens=32768,
            ),
            timeout=10,
        )
        out.add("InjectMemory", *(m.content.replace(query, "") for m in injected.messages))  # minus the echo
        hits = console.Search(
            cpb.SearchRequest(query=query, agent_id=a, limit=50, include_disabled=True), timeout=10
        )
        out.add("console Search", *(h.preview for h in hits.hits))
        preview = console.PreviewContext(
            cpb.PreviewContextRequest(agent_id=a, query=query, max_tokens=2000), timeout=10
        )
        out.add("PreviewContext", preview.block)
    exported = [r.line for r in console.Export(cpb.ExportRequest(agent_id=a), timeout=30)]
    out.add("Export", *exported)


@dataclass
class Host:
    """plugin_host (echo test plugin granted memory_search) in front of the rig's memoryd and an echo model."""

    stub: ppb_grpc.PluginHostServiceStub
    running: RunningServer
    app: HostApp
    channel: grpc.Channel
    inferd: RunningServer


@pytest.fixture
def host_factory(tmp_path: Path) -> Iterator[list[Host]]:
    started: list[Host] = []
    yield started
    for h in started:
        h.channel.close()
        h.running.stop(0)
        h.app.close()
        h.inferd.stop(0)


def _start_host(memoryd_target: str, home: Path) -> Host:
    echo = EchoInference()
    inferd = build_server(
        ServerOptions("127.0.0.1:0", "inference.osaurus.dev"),
        [ServiceBinding("osaurus.inference.v1.InferenceService", lambda s: _add_inference(echo, s))],
    )
    write_grants(home, {"echo": {"permissions": ["inference", "memory_search"], "agents": ["*"]}})
    args = ["--listen", "127.0.0.1:0", "--home", str(home), "--no-entry-points", "--memoryd", memoryd_target,
            "--inferd", inferd.target, "--plugin-dir", str(TEST_PLUGINS / "echo")]  # fmt: skip
    running, app = start_plugin_host(load_settings(args, env={"PATH": "/usr/bin:/bin"}))
    channel = grpc.insecure_channel(running.target)
    return Host(ppb_grpc.PluginHostServiceStub(channel), running, app, channel, inferd)


def _add_inference(servicer: EchoInference, server: grpc.Server) -> None:
    from osaurus.inference.v1 import inference_pb2_grpc as ipb_grpc

    ipb_grpc.add_InferenceServiceServicer_to_server(servicer, server)


def _probe_plugin_host(host: Host, agent: Agent, queries: list[str], out: Collector) -> None:
    """ctx.search_memory first; RunAgent last, because it records the question in the agent's own memory."""
    for query in queries:
        for scope in ("pinned", "episodes", "transcript"):
            reply = host.stub.InvokePlugin(
                ppb.InvokePluginRequest(
                    plugin="echo",
                    command="search",
                    payload_json=json.dumps({"scope": scope, "query": query}),
                    agent_id=agent.agent_id,
                    conversation_id=CONVERSATION,
                ),
                timeout=30,
            )
            out.add("ctx.search_memory", *(h["text"] for h in json.loads(reply.result_json)["hits"]))
    # Shared-word questions first (recording them adds no foreign word), one foreign-word question last.
    shared = [q for q in queries if not any(w in q for w in out.foreign)]
    for query in [*shared, queries[0]]:
        run = host.stub.RunAgent(
            ppb.RunAgentRequest(
                agent_id=agent.agent_id,
                conversation_id=CONVERSATION,
                messages=[mpb.ChatMessage(role=mpb.ROLE_USER, content=query)],
            ),
            timeout=30,
        )
        out.add("RunAgent", run.reply.replace(query, ""))  # the echo model repeats the question


@pytest.mark.parametrize("seed", [7, 20261130])
def test_no_agent_ever_sees_another_agents_memory(
    seed: int, tmp_path: Path, host_factory: list[Host]
) -> None:
    agents = _world(seed)
    rng = random.Random(seed)
    with console_rig(tmp_path / "memoryd") as rig:
        _seed(rig, agents, rng)
        host = _start_host(rig.memoryd.target, tmp_path / "host")
        host_factory.append(host)
        probes = 0
        for gate in ("off", "heuristic"):
            rig.client.update_config({"relevance_gate_mode": gate})
            for agent in agents:
                out = Collector(agent, agents)
                queries = _queries(agent, agents)
                _probe_memoryd(rig, agent, queries, out)
                if gate == "heuristic":
                    _probe_plugin_host(host, agent, [*rng.sample(queries[:-4], 3), *queries[-4:]], out)
                # Positive control: the probes do surface the agent's own words, so silence is not vacuous.
                assert len(out.own_words_seen()) == len(agent.words), (agent.agent_id, out.own_words_seen())
                probes += out.probes
    assert probes > 1000
