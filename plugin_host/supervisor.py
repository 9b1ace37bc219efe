"""Supervises one plugin process: start, readiness, crash and hang handling, restart with backoff, state."""

from __future__ import annotations

import logging
import os
import secrets
import signal
import threading
import time
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path

from plugin_host.config import SupervisorSettings
from plugin_host.runtime_client import CommandInfo, RuntimeClient
from plugin_host.spawn import RunnerSpec, Spawned, kill_group, private_dir, read_status, spawn_runner
from servicekit.errors import FailedPreconditionError, ServiceError, UnavailableError
from servicekit.server import RunningServer

HOST_SOCKET = "host.sock"
PLUGIN_SOCKET = "plugin.sock"
#: The runner's exit code when the plugin failed to import or its setup() raised.
EXIT_LOAD_FAILED = 78
#: The runner's exit code when its watchdog saw a command run past the hang limit.
EXIT_HUNG = 75
_log = logging.getLogger("plugin_host.supervisor")

#: Starts the host's bridge server for one process: (token, socket path) -> running server.
BridgeFactory = Callable[[str, Path], RunningServer]


class PluginState(StrEnum):
    """A plugin process's state, as ListPlugins reports it."""

    STOPPED = "stopped"
    STARTING = "starting"
    RUNNING = "running"
    BACKOFF = "backoff"
    FAILED = "failed"


def backoff_delay(failures: int, initial_s: float, max_s: float) -> float:
    """Delay before restart number `failures` (1-based): initial, doubling, capped."""
    return float(min(max_s, initial_s * (2 ** max(0, failures - 1))))


class PluginProcess:
    """One plugin's process over its lifetime: a lifecycle thread spawns it again after every exit."""

    def __init__(self, spec: RunnerSpec, settings: SupervisorSettings, make_bridge: BridgeFactory) -> None:
        self.spec = spec
        self._settings = settings
        self._make_bridge = make_bridge
        self._cond = threading.Condition()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._state = PluginState.STOPPED
        self._restart_count = 0
        self._last_error = ""
        self._commands: tuple[CommandInfo, ...] = ()
        self._client: RuntimeClient | None = None
        self._spawned: Spawned | None = None
        self._token: str | None = None
        self._kill_reason = ""
        self._backoff_until = 0.0

    # -- public state --------------------------------------------------------------------------------------------
    @property
    def state(self) -> PluginState:
        with self._cond:
            return self._state

    @property
    def restart_count(self) -> int:
        with self._cond:
            return self._restart_count

    @property
    def last_error(self) -> str:
        with self._cond:
            return self._last_error

    @property
    def commands(self) -> tuple[CommandInfo, ...]:
        with self._cond:
            return self._commands

    @property
    def pid(self) -> int | None:
        """The running process's id, if any."""
        with self._cond:
            return self._spawned.process.pid if self._spawned is not None else None

    @property
    def token(self) -> str | None:
        """The current process's token (rotated on every start). For in-process diagnostics; never log it."""
        with self._cond:
            return self._token

    # -- lifecycle -----------------------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the lifecycle thread (returns at once; the state goes STARTING, then RUNNING)."""
        with self._cond:
            self._state = PluginState.STARTING
            self._cond.notify_all()
        self._thread = threading.Thread(target=self._lifecycle, name=f"plugin:{self.spec.name}", daemon=True)
        self._thread.start()

    def stop(self, timeout_s: float = 5.0) -> None:
        """Stop the process (SIGTERM, then SIGKILL) and the lifecycle thread."""
        self._stop.set()
        with self._cond:
            spawned = self._spawned
            self._cond.notify_all()
        if spawned is not None:
            kill_group(spawned.process, signal.SIGTERM)
        if self._thread is not None:
            self._thread.join(timeout_s)
            if self._thread.is_alive():
                with self._cond:
                    spawned = self._spawned
                if spawned is not None:
                    kill_group(spawned.process, signal.SIGKILL)
                self._thread.join(timeout_s)

    def wait_settled(self, timeout_s: float) -> PluginState:
        """Wait until the state is no longer STARTING (or timeout_s passes); return it."""
        deadline = time.monotonic() + timeout_s
        with self._cond:
            while self._state == PluginState.STARTING:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                self._cond.wait(remaining)
            return self._state

    def acquire(self, wait_s: float) -> tuple[RuntimeClient, tuple[CommandInfo, ...]]:
        """The client of the running process, waiting up to wait_s while it starts. Raises a typed error."""
        deadline = time.monotonic() + wait_s
        with self._cond:
            while not self._is_serving() and self._state in (PluginState.STARTING, PluginState.RUNNING):
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    break
                # A process that just died is noticed by the lifecycle thread; poll briefly until it is.
                self._cond.wait(min(remaining, 0.05))
            if self._client is not None and self._is_serving():
                return self._client, self._commands
            name = self.spec.name
            if self._state == PluginState.FAILED:
                raise FailedPreconditionError(
                    "PLUGIN_FAILED",
                    f"plugin {name!r} failed repeatedly and was given up; fix it and ReloadPlugins",
                )
            if self._state == PluginState.STOPPED:
                raise FailedPreconditionError("PLUGIN_NOT_RUNNING", f"plugin {name!r} is stopped")
            retry = max(0.1, self._backoff_until - time.monotonic())
            raise UnavailableError(
                "PLUGIN_UNAVAILABLE", f"plugin {name!r} is restarting", retry_after_s=retry
            )

    def _is_serving(self) -> bool:
        """A client exists and its process is alive (caller holds the lock)."""
        return self._client is not None and self._spawned is not None and self._spawned.process.poll() is None

    def kill_hung(self, why: str, pid: int | None = None) -> None:
        """Kill the current process (only if it is still `pid`, when given) because it did not answer in time.

        The lifecycle thread restarts it.
        """
        with self._cond:
            spawned = self._spawned
            if spawned is None or (pid is not None and spawned.process.pid != pid):
                return
            self._kill_reason = why
        if spawned is not None:
            _log.warning("plugin %s: %s; killing it", self.spec.name, why)
            kill_group(spawned.process, signal.SIGKILL)

    def backoff_remaining_s(self) -> float:
        """Seconds until the next restart attempt (0 when not in backoff)."""
        with self._cond:
            return (
                max(0.0, self._backoff_until - time.monotonic())
                if self._state == PluginState.BACKOFF
                else 0.0
            )

    # -- lifecycle thread ----------------------------------------------------------------------------------------
    def _lifecycle(self) -> None:
        failures = 0
        while not self._stop.is_set():
            started = time.monotonic()
            error = self._run_once()
            if self._stop.is_set():
                break
            ran_s = time.monotonic() - started
            failures = 1 if ran_s >= self._settings.stable_after_s else failures + 1
            with self._cond:
                self._last_error = error
                if failures >= self._settings.max_failures:
                    self._set(PluginState.FAILED)
                    _log.error(
                        "plugin %s failed %d times in a row (%s); giving up", self.spec.name, failures, error
                    )
                    return
                delay = backoff_delay(
                    failures, self._settings.backoff_initial_s, self._settings.backoff_max_s
                )
                self._backoff_until = time.monotonic() + delay
                self._set(PluginState.BACKOFF)
            _log.warning("plugin %s %s; restarting in %.2fs", self.spec.name, error, delay)
            if self._stop.wait(delay):
                break
            with self._cond:
                self._restart_count += 1
        with self._cond:
            if self._state != PluginState.FAILED:
                self._set(PluginState.STOPPED)

    def _run_once(self) -> str:
        """Spawn, wait until ready, wait for the exit; return why it ended (no memory content, ever)."""
        token = secrets.token_urlsafe(32)
        socket_dir = private_dir(self.spec.socket_dir)
        private_dir(self.spec.data_dir)
        for name in (HOST_SOCKET, PLUGIN_SOCKET):
            (socket_dir / name).unlink(missing_ok=True)
        with self._cond:
            self._kill_reason = ""
            self._set(PluginState.STARTING)
        bridge = self._make_bridge(token, socket_dir / HOST_SOCKET)
        os.chmod(socket_dir / HOST_SOCKET, 0o600)
        client: RuntimeClient | None = None
        spawned: Spawned | None = None
        try:
            try:
                spawned = spawn_runner(self.spec, token)
            except OSError as error:
                return f"could not start: {error.strerror or type(error).__name__}"
            with self._cond:
                self._spawned = spawned
                self._token = token
            if self._stop.is_set():
                return "stopped"
            report = read_status(spawned.status_fd, self._settings.start_timeout_s)
            if report is None or not report.get("ok"):
                kill_group(spawned.process)
                code = spawned.process.wait()
                if report is not None:
                    return str(report.get("error", "failed to start"))
                return self._exit_text(code) if code != -signal.SIGKILL else "did not start in time"
            client = RuntimeClient(socket_dir / PLUGIN_SOCKET, token)
            try:
                commands = client.describe(timeout_s=min(5.0, self._settings.start_timeout_s))
            except ServiceError as error:
                kill_group(spawned.process)
                spawned.process.wait()
                return f"did not answer Describe ({error.reason})"
            with self._cond:
                self._client = client
                self._commands = commands
                self._set(PluginState.RUNNING)
            _log.info("plugin %s running (pid %d)", self.spec.name, spawned.process.pid)
            return self._exit_text(spawned.process.wait())
        finally:
            with self._cond:
                self._client = None
                self._spawned = None
                self._token = None
                self._cond.notify_all()
            if spawned is not None:
                kill_group(spawned.process)
                spawned.process.wait()
                spawned.close_pipes()
            if client is not None:
                client.close()
            bridge.stop(0)

    def _exit_text(self, code: int) -> str:
        with self._cond:
            reason = self._kill_reason
        if reason:
            return reason
        if code == EXIT_LOAD_FAILED:
            return "failed to load (see its log)"
        if code == EXIT_HUNG:
            return "a command ran past its deadline; the plugin stopped itself"
        if code < 0:
            return f"killed by {signal.Signals(-code).name}"
        return f"exited with code {code}"

    def _set(self, state: PluginState) -> None:
        """Change state and wake waiters (caller holds the lock)."""
        self._state = state
        self._cond.notify_all()
