"""A plugin that raises, exits or hangs is contained and restarted while another plugin keeps answering."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import grpc
import pytest

from osaurus.plugin.v1 import plugin_pb2 as ppb
from plugin_host.config import SupervisorSettings
from servicekit.errors import ServiceError
from tests.fakes.fake_plugin_peers import FakePeers, start_fake_peers
from tests.support.plugin_host_stack import HostStack, start_host

HANG_TIMEOUT_S = 1.5
GRANTS = {
    "echo": {"permissions": ["inference"], "agents": ["*"]},
    "crashy": {"agents": ["*"], "call_timeout_s": HANG_TIMEOUT_S},
    "flaky-start": {"agents": ["*"]},
    "broken": {"agents": ["*"]},
}


@pytest.fixture(scope="module")
def peers() -> Iterator[FakePeers]:
    started = start_fake_peers()
    yield started
    started.stop()


@pytest.fixture(scope="module")
def stack(peers: FakePeers, tmp_path_factory: pytest.TempPathFactory) -> Iterator[HostStack]:
    home: Path = tmp_path_factory.mktemp("home")
    settings = SupervisorSettings(backoff_initial_s=0.1, backoff_max_s=0.5, max_failures=20)
    started = start_host(home, peers, ["echo", "crashy"], GRANTS, supervisor=settings)
    yield started
    started.close()


def _running(stack: HostStack, name: str, restarts_at_least: int) -> ppb.PluginInfo:
    return stack.wait_state(
        name, ppb.PLUGIN_STATE_RUNNING, predicate=lambda i: i.restart_count >= restarts_at_least
    )


def test_exception_in_a_command_is_a_typed_error_and_the_process_lives_on(stack: HostStack) -> None:
    pid = stack.invoke("crashy", "ping")["pid"]

    error = stack.invoke_error("crashy", "raise")

    assert (error.code, error.reason) == (grpc.StatusCode.INTERNAL, "PLUGIN_ERROR")
    assert "ValueError" in error.message and "secret" not in error.message
    assert stack.invoke("crashy", "ping")["pid"] == pid
    assert stack.invoke("echo", "ping")["pong"] is True


def test_unserialisable_result_is_a_plugin_error(stack: HostStack) -> None:
    error = stack.invoke_error("crashy", "unserialisable")
    assert (error.code, error.reason) == (grpc.StatusCode.INTERNAL, "PLUGIN_ERROR")


@pytest.mark.parametrize("command", ["exit", "sys-exit"])
def test_process_exit_is_contained_and_restarted(stack: HostStack, command: str) -> None:
    pid = stack.invoke("crashy", "ping")["pid"]
    restarts = stack.plugin("crashy").restart_count

    error = stack.invoke_error("crashy", command)

    assert (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, "PLUGIN_CRASHED")
    assert stack.invoke("echo", "ping")["pong"] is True
    info = _running(stack, "crashy", restarts + 1)
    assert info.last_error.startswith("exited with code")
    assert stack.invoke("crashy", "ping")["pid"] != pid


def test_hung_plugin_is_killed_and_restarted_while_another_answers(stack: HostStack) -> None:
    pid = stack.invoke("crashy", "ping")["pid"]
    restarts = stack.plugin("crashy").restart_count
    outcome: dict[str, object] = {}

    def hang() -> None:
        started = time.monotonic()
        try:
            stack.invoke("crashy", "hang", timeout_s=30)
        except ServiceError as error:
            outcome["error"] = error
        outcome["elapsed_s"] = time.monotonic() - started

    caller = threading.Thread(target=hang)
    caller.start()
    answered = 0
    while caller.is_alive():
        begun = time.monotonic()
        assert stack.invoke("echo", "ping", timeout_s=5)["pong"] is True
        assert time.monotonic() - begun < 1.0, "the other plugin must keep answering while one hangs"
        answered += 1
        time.sleep(0.05)
    caller.join()

    assert answered >= 5
    error = outcome["error"]
    assert isinstance(error, ServiceError)
    assert (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, "PLUGIN_TIMEOUT")
    assert error.retry_after_s is not None
    assert HANG_TIMEOUT_S <= float(outcome["elapsed_s"]) < HANG_TIMEOUT_S + 2.0  # type: ignore[arg-type]
    info = _running(stack, "crashy", restarts + 1)
    assert "no answer" in info.last_error
    assert stack.invoke("crashy", "ping")["pid"] != pid


def test_command_abandoned_by_its_caller_still_gets_the_plugin_restarted(stack: HostStack) -> None:
    pid = stack.invoke("crashy", "ping")["pid"]
    restarts = stack.plugin("crashy").restart_count

    error = stack.invoke_error("crashy", "hang", timeout_s=0.3)

    assert error.code == grpc.StatusCode.DEADLINE_EXCEEDED, "the caller's own deadline, not the plugin's"
    info = _running(stack, "crashy", restarts + 1)
    assert info.last_error == "a command ran past its deadline; the plugin stopped itself"
    assert stack.invoke("crashy", "ping")["pid"] != pid


def test_calls_during_backoff_are_unavailable_with_retry_info(peers: FakePeers, tmp_path: Path) -> None:
    settings = SupervisorSettings(backoff_initial_s=1.0, backoff_max_s=1.0, max_failures=5)
    stack = start_host(tmp_path / "home", peers, ["crashy"], GRANTS, supervisor=settings)
    try:
        stack.invoke_error("crashy", "exit")
        stack.wait_state("crashy", ppb.PLUGIN_STATE_BACKOFF)
        error = stack.invoke_error("crashy", "ping")
        assert (error.code, error.reason) == (grpc.StatusCode.UNAVAILABLE, "PLUGIN_UNAVAILABLE")
        assert error.retry_after_s is not None and 0 < error.retry_after_s <= 1.0
    finally:
        stack.close()


def test_startup_failures_restart_then_give_up(peers: FakePeers, tmp_path: Path) -> None:
    settings = SupervisorSettings(backoff_initial_s=0.05, backoff_max_s=0.2, max_failures=3)
    stack = start_host(
        tmp_path / "home", peers, ["echo", "flaky-start", "broken"], GRANTS, supervisor=settings
    )
    try:
        flaky = _running(stack, "flaky-start", 1)
        assert flaky.last_error == "load failed: RuntimeError"
        assert stack.invoke("flaky-start", "ping") == {"pong": True}

        broken = stack.wait_state("broken", ppb.PLUGIN_STATE_FAILED)
        assert broken.restart_count == 2
        assert broken.last_error == "load failed: ImportError"
        error = stack.invoke_error("broken", "ping")
        assert (error.code, error.reason) == (grpc.StatusCode.FAILED_PRECONDITION, "PLUGIN_FAILED")
        assert stack.invoke("echo", "ping")["pong"] is True
        log = (stack.home / "logs" / "plugins" / "broken.log").read_text()
        assert "plugin failed to load: ImportError" in log
    finally:
        stack.close()
