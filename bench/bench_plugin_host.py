"""plugin_host benchmark (issue 9): per-call cost of the plugin process hop and of the bridge, restart time.

Everything runs against fake peers on real ports (tests/fakes/fake_plugin_peers.py: scripted memory block, echoing
model), so the numbers are plugin_host's own overhead. Measured in one run, sequentially, after a warm-up:
  floor         grpc.health.v1.Health/Check on the host
  RunAgent      host → InjectMemory → Generate → BufferTurn (no plugin)
  plugin ping   InvokePlugin of a command that returns at once (host → plugin process over its unix socket)
  plugin ask    InvokePlugin of a command calling ctx.complete (host → plugin → bridge → the RunAgent path)
Restart time: a plugin calls os._exit; time until it is RUNNING again (restart backoff set to 0).
"""

from __future__ import annotations

import contextlib
import json
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from grpc_health.v1 import health_pb2, health_pb2_grpc

from bench.report import BenchResult
from osaurus.memory.v1 import memory_pb2 as mpb
from osaurus.plugin.v1 import plugin_pb2 as ppb
from plugin_host.config import SupervisorSettings
from plugin_host.supervisor import PluginState
from servicekit.errors import ServiceError
from tests.fakes.fake_plugin_peers import memory_block, start_fake_peers
from tests.support.plugin_host_stack import HostStack, start_host

ISSUE = 9
CALLS = 300
WARMUP = 30
RESTARTS = 5
GRANTS = {"echo": {"permissions": ["inference"], "agents": ["*"]}, "crashy": {"agents": ["*"]}}


def _timed(calls: dict[str, Callable[[], object]], count: int) -> dict[str, list[float]]:
    """Interleave the calls round-robin, so load on the machine hits every kind alike."""
    for call in calls.values():
        for _ in range(WARMUP):
            call()
    samples: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(count):
        for name, call in calls.items():
            started = time.perf_counter()
            call()
            samples[name].append((time.perf_counter() - started) * 1000)
    return samples


def _p(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _restart_ms(stack: HostStack) -> list[float]:
    process = stack.app.host.process("crashy")
    assert process is not None
    results = []
    for _ in range(RESTARTS):
        restarts = process.restart_count
        started = time.perf_counter()
        with contextlib.suppress(ServiceError):
            stack.invoke("crashy", "exit")
        while not (process.state == PluginState.RUNNING and process.restart_count > restarts and process.pid):
            time.sleep(0.002)
        process.acquire(10.0)
        results.append((time.perf_counter() - started) * 1000)
    return results


def run() -> list[BenchResult]:
    """Measure and return the headline rows with a detail table."""
    peers = start_fake_peers()
    peers.memory.blocks["bench"] = memory_block("User benchmarks things")
    home = Path(tempfile.mkdtemp(prefix="bench-plugin-host-"))
    settings = SupervisorSettings(backoff_initial_s=0.0, backoff_max_s=0.0, max_failures=1000)
    cold_started = time.perf_counter()
    stack = start_host(home, peers, ["echo", "crashy"], GRANTS, supervisor=settings)
    cold_ms = (time.perf_counter() - cold_started) * 1000
    try:
        health = health_pb2_grpc.HealthStub(stack.channel)
        run_agent = ppb.RunAgentRequest(
            agent_id="bench",
            conversation_id="c",
            messages=[mpb.ChatMessage(role=mpb.ROLE_USER, content="What do I benchmark?")],
        )

        def invoke(command: str, payload: dict[str, str]) -> Callable[[], object]:
            request = ppb.InvokePluginRequest(
                plugin="echo",
                command=command,
                payload_json=json.dumps(payload),
                agent_id="bench",
                conversation_id="c",
            )
            return lambda: stack.stub.InvokePlugin(request, timeout=30)

        rows = _timed(
            {
                "floor (Health/Check)": lambda: health.Check(health_pb2.HealthCheckRequest(), timeout=5),
                "RunAgent (no plugin)": lambda: stack.stub.RunAgent(run_agent, timeout=30),
                "plugin ping (process hop)": invoke("ping", {}),
                "plugin ask (hop + ctx.complete)": invoke("ask", {"text": "What do I benchmark?"}),
            },
            CALLS,
        )
        restart = _restart_ms(stack)
    finally:
        stack.close()
        peers.stop()
    p50 = {name: statistics.median(samples) for name, samples in rows.items()}
    hop_ms = p50["plugin ping (process hop)"] - p50["floor (Health/Check)"]
    bridge_ms = (
        p50["plugin ask (hop + ctx.complete)"]
        - p50["plugin ping (process hop)"]
        - p50["RunAgent (no plugin)"]
    )
    table = ["| call | p50 ms | p95 ms |", "| --- | --- | --- |"]
    table += [f"| {name} | {p50[name]:.2f} | {_p(samples, 0.95):.2f} |" for name, samples in rows.items()]
    detail = "\n".join(
        [
            f"{CALLS} calls of each kind, interleaved round-robin, after {WARMUP} warm-up calls; fake peers on loopback.",
            "",
            *table,
            "",
            f"- plugin process hop (ping − floor): **{hop_ms:.2f} ms** at p50",
            f"- bridge cost of ctx.complete beyond RunAgent's own path (ask − ping − RunAgent): **{bridge_ms:.2f} ms**",
            f"- restart after os._exit until RUNNING (backoff 0), {RESTARTS} runs: median "
            f"**{statistics.median(restart):.0f} ms**, max {max(restart):.0f} ms",
            f"- host start with 2 plugins until both RUNNING: {cold_ms:.0f} ms",
        ]
    )
    return [
        BenchResult(
            ISSUE, "plugin hop p50 (InvokePlugin ping − Health)", f"{hop_ms:.2f} ms", "< 5 ms", detail
        ),
        BenchResult(ISSUE, "bridge overhead p50 (ctx.complete vs RunAgent)", f"{bridge_ms:.2f} ms", "< 5 ms"),
        BenchResult(
            ISSUE, "plugin restart after crash (median)", f"{statistics.median(restart):.0f} ms", "< 2 s"
        ),
    ]


if __name__ == "__main__":
    for result in run():
        print(f"{result.metric}: {result.value} (target {result.target})")
        if result.detail:
            print(result.detail)
