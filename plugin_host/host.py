"""PluginHost: discovered plugins, their grants and processes; list, reload and invoke."""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from plugin_host.config import SupervisorSettings
from plugin_host.discovery import Candidate, discover
from plugin_host.grants import NO_ACCESS, Access, Grant, GrantsError, effective_access, load_grants
from plugin_host.invocations import Invocations
from plugin_host.manifest import Manifest
from plugin_host.runtime_client import CommandInfo
from plugin_host.sdk import Permission
from plugin_host.spawn import RunnerSpec, private_dir, probe_manifest
from plugin_host.supervisor import BridgeFactory, PluginProcess, PluginState, backoff_delay
from servicekit.errors import (
    DeadlineExceededError,
    FailedPreconditionError,
    InternalError,
    NotFoundError,
    PermissionDeniedError,
    ServiceError,
    UnavailableError,
    error_class_for,
)
from servicekit.tenancy import DEFAULT_TENANT

DOMAIN = "plugin.osaurus.dev"
#: Longest unix socket path the kernel accepts (sun_path is 108 bytes with the NUL).
MAX_SOCKET_PATH = 107
#: A plugin stops itself this long after a command outlived its call timeout (the host normally kills it first).
HANG_GRACE_S = 2.0
_log = logging.getLogger("plugin_host.host")
#: Status codes a plugin may report for its own command (anything else becomes PLUGIN_ERROR).
_PASS_THROUGH = frozenset(
    {"INVALID_ARGUMENT", "NOT_FOUND", "PERMISSION_DENIED", "FAILED_PRECONDITION", "UNAVAILABLE",
     "RESOURCE_EXHAUSTED", "INTERNAL", "ALREADY_EXISTS", "ABORTED", "OUT_OF_RANGE"}
)  # fmt: skip
_TRANSPORT_FAILURES = frozenset({"UNAVAILABLE", "CANCELLED", "UNKNOWN", "INTERNAL"})

#: Builds the bridge factory of one plugin from its name and access.
BridgeBuilder = Callable[[str, Access], BridgeFactory]


@dataclass(frozen=True)
class HostPaths:
    """Where plugins are found and where their sockets, data and logs go."""

    plugin_dirs: tuple[Path, ...]
    grants_file: Path
    run_dir: Path
    data_root: Path
    log_root: Path
    entry_point_paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class PluginStatus:
    """One plugin as ListPlugins reports it."""

    name: str
    version: str
    state: PluginState
    requested_permissions: tuple[Permission, ...]
    granted_permissions: tuple[Permission, ...]
    allowed_agents: tuple[str, ...]
    commands: tuple[CommandInfo, ...]
    restart_count: int
    last_error: str
    source: str


@dataclass
class _Entry:
    candidate: Candidate
    grant: Grant | None
    access: Access
    fingerprint: str
    note: str = ""
    process: PluginProcess | None = None
    commands: tuple[CommandInfo, ...] = field(default_factory=tuple)


class PluginHost:
    """Owns every plugin. Thread-safe; reload() swaps the set of plugins atomically."""

    def __init__(
        self,
        paths: HostPaths,
        settings: SupervisorSettings,
        build_bridge: BridgeBuilder,
        *,
        load_entry_points: bool,
        plugin_env: dict[str, str],
        log_level: str = "INFO",
        invocations: Invocations | None = None,
    ) -> None:
        self._paths = paths
        #: Handles of running commands → their tenants; the bridges read them (shared with build_bridge).
        self.invocations = invocations if invocations is not None else Invocations()
        self._settings = settings
        self._build_bridge = build_bridge
        self._load_entry_points = load_entry_points
        self._plugin_env = plugin_env
        self._log_level = log_level
        self._entries: dict[str, _Entry] = {}
        self._lock = threading.Lock()
        self._reload_lock = threading.Lock()
        longest = len(str(paths.run_dir / ("x" * 12) / "plugin.sock"))
        if longest > MAX_SOCKET_PATH:
            raise ValueError(
                f"plugin run directory {paths.run_dir} is too long for unix sockets "
                f"({longest} > {MAX_SOCKET_PATH} characters); choose a shorter --plugin-run-dir"
            )
        private_dir(paths.run_dir)

    # -- discovery and lifecycle ---------------------------------------------------------------------------------
    def reload(self, wait_s: float = 0.0) -> list[PluginStatus]:
        """Rediscover plugins and grants; start new ones, stop removed ones, restart changed or failed ones."""
        with self._reload_lock:
            grants, grants_note = self._grants()
            candidates = discover(
                self._paths.plugin_dirs,
                entry_points=self._load_entry_points,
                entry_point_paths=self._paths.entry_point_paths,
                probe=self._probe,
            )
            with self._lock:
                old = dict(self._entries)
            fresh: dict[str, _Entry] = {}
            to_stop: list[PluginProcess] = []
            to_start: list[PluginProcess] = []
            for candidate in candidates:
                entry = self._entry(candidate, grants.get(candidate.name), grants_note)
                previous = old.pop(candidate.name, None)
                if previous is not None and previous.process is not None:
                    keep = (
                        previous.fingerprint == entry.fingerprint
                        and previous.process.state != PluginState.FAILED
                    )
                    if keep:
                        fresh[candidate.name] = previous
                        continue
                    to_stop.append(previous.process)
                if entry.process is not None:
                    to_start.append(entry.process)
                fresh[candidate.name] = entry
            to_stop.extend(e.process for e in old.values() if e.process is not None)
            for process in to_stop:
                process.stop()
            with self._lock:
                self._entries = fresh
            for process in to_start:
                process.start()
            deadline = time.monotonic() + wait_s
            for process in to_start:
                process.wait_settled(max(0.0, deadline - time.monotonic()))
        return self.statuses()

    def close(self) -> None:
        """Stop every plugin process."""
        with self._lock:
            entries = list(self._entries.values())
            self._entries = {}
        for entry in entries:
            if entry.process is not None:
                entry.process.stop()

    def process(self, name: str) -> PluginProcess | None:
        """The supervisor of a plugin's process, if it has one."""
        with self._lock:
            entry = self._entries.get(name)
        return entry.process if entry is not None else None

    def statuses(self) -> list[PluginStatus]:
        """Every discovered plugin, by name."""
        with self._lock:
            entries = sorted(self._entries.values(), key=lambda e: e.candidate.name)
        return [_status(e) for e in entries]

    # -- invocation ----------------------------------------------------------------------------------------------
    def invoke(
        self,
        name: str,
        command: str,
        payload_json: str,
        agent_id: str,
        conversation_id: str,
        remaining_s: float | None,
        tenant: str = DEFAULT_TENANT,
    ) -> str:
        """Run a command in the plugin's process for `tenant` (its bridge calls act for it); returns the result
        JSON. Raises typed errors."""
        started = time.monotonic()
        with self._lock:
            entry = self._entries.get(name)
        if entry is None:
            raise NotFoundError("PLUGIN_NOT_FOUND", f"no plugin named {name!r}")
        if not entry.access.allows_agent(agent_id):
            raise PermissionDeniedError(
                "AGENT_NOT_ALLOWED", f"plugin {name!r} may not act for agent {agent_id!r}"
            )
        if entry.process is None:
            raise FailedPreconditionError(
                "PLUGIN_NOT_RUNNING", f"plugin {name!r} is not running: {entry.note}"
            )
        process = entry.process
        wait_s = (
            self._settings.start_timeout_s
            if remaining_s is None
            else min(remaining_s, self._settings.start_timeout_s)
        )
        client, commands = process.acquire(wait_s)
        pid = process.pid
        if command not in {c.name for c in commands}:
            raise NotFoundError("COMMAND_NOT_FOUND", f"plugin {name!r} has no command {command!r}")
        limit_s = self._call_timeout_s(entry.grant)
        left_s = None if remaining_s is None else remaining_s - (time.monotonic() - started)
        plugin_bound = left_s is None or limit_s <= left_s
        budget_s = limit_s if plugin_bound or left_s is None else max(0.0, left_s)
        try:
            with self.invocations.running(name, tenant) as invocation:
                result = client.invoke(
                    command,
                    payload_json,
                    agent_id,
                    conversation_id,
                    timeout_s=budget_s,
                    invocation=invocation,
                )
        except DeadlineExceededError:
            if not plugin_bound:
                raise
            process.kill_hung(f"no answer to {command!r} within {limit_s:g}s", pid)
            retry = backoff_delay(1, self._settings.backoff_initial_s, self._settings.backoff_max_s)
            raise UnavailableError(
                "PLUGIN_TIMEOUT",
                f"plugin {name!r} did not answer within {limit_s:g}s and was restarted",
                retry_after_s=retry,
            ) from None
        except ServiceError as error:
            raise _plugin_failure(name, command, error) from None
        try:
            json.loads(result)
        except ValueError:
            raise InternalError(
                "PLUGIN_ERROR", f"plugin {name!r} returned a result that is not JSON"
            ) from None
        return result

    # -- helpers -------------------------------------------------------------------------------------------------
    def _grants(self) -> tuple[dict[str, Grant], str]:
        try:
            return load_grants(self._paths.grants_file), ""
        except GrantsError as error:
            _log.error("plugin grants ignored: %s", error)
            return {}, f"config/plugins.json is invalid ({error})"

    def _probe(self, entry_point: str, import_paths: Sequence[str]) -> dict[str, Any]:
        return probe_manifest(
            entry_point, import_paths, env=self._plugin_env, timeout_s=self._settings.start_timeout_s
        )

    def _entry(self, candidate: Candidate, grant: Grant | None, grants_note: str) -> _Entry:
        manifest = candidate.manifest
        access = effective_access(manifest, grant) if manifest is not None else NO_ACCESS
        identity = f"{candidate.fingerprint}|{grant!r}|{access!r}"
        fingerprint = hashlib.sha256(identity.encode()).hexdigest()[:16]
        entry = _Entry(candidate, grant, access, fingerprint)
        entry.note = _not_started_note(candidate, grant, access, grants_note)
        if manifest is not None and not entry.note:
            entry.process = PluginProcess(
                self._runner_spec(candidate, manifest, self._call_timeout_s(grant)),
                self._settings,
                self._build_bridge(manifest.name, access),
            )
        return entry

    def _call_timeout_s(self, grant: Grant | None) -> float:
        """The plugin's per-command deadline: its grant's call_timeout_s, else the host default."""
        if grant is not None and grant.call_timeout_s:
            return grant.call_timeout_s
        return self._settings.call_timeout_s

    def _runner_spec(self, candidate: Candidate, manifest: Manifest, call_timeout_s: float) -> RunnerSpec:
        slot = hashlib.sha256(manifest.name.encode()).hexdigest()[:12]
        return RunnerSpec(
            name=manifest.name,
            entry_point=manifest.entry_point,
            import_paths=candidate.import_paths,
            socket_dir=self._paths.run_dir / slot,
            data_dir=self._paths.data_root / manifest.name,
            log_path=self._paths.log_root / f"{manifest.name}.log",
            env=self._plugin_env,
            log_level=self._log_level,
            workers=self._settings.workers_per_plugin,
            hang_limit_s=call_timeout_s + HANG_GRACE_S,
        )


def _not_started_note(candidate: Candidate, grant: Grant | None, access: Access, grants_note: str) -> str:
    if candidate.manifest is None:
        return candidate.error
    if grants_note:
        return grants_note
    if grant is None:
        return "not granted in config/plugins.json"
    if not grant.enabled:
        return "disabled in config/plugins.json"
    if not access.has_agents:
        return "no agent granted (the agents requested and granted do not overlap)"
    return ""


def _status(entry: _Entry) -> PluginStatus:
    manifest = entry.candidate.manifest
    process = entry.process
    if process is not None:
        state, restarts, error, commands = (
            process.state,
            process.restart_count,
            process.last_error,
            process.commands,
        )
    else:
        failed = manifest is None
        state = PluginState.FAILED if failed else PluginState.STOPPED
        restarts, error, commands = 0, entry.note, ()
    return PluginStatus(
        name=entry.candidate.name,
        version=manifest.version if manifest else "",
        state=state,
        requested_permissions=manifest.permissions if manifest else (),
        granted_permissions=tuple(p for p in Permission if entry.access.allows(p)),
        allowed_agents=tuple(sorted(entry.access.agents)),
        commands=commands,
        restart_count=restarts,
        last_error=error,
        source=entry.candidate.source,
    )


def _plugin_failure(name: str, command: str, error: ServiceError) -> ServiceError:
    """A failed Invoke as the error InvokePlugin's caller gets."""
    code = error.code.name
    if not error.domain and code in _TRANSPORT_FAILURES:
        return UnavailableError(
            "PLUGIN_CRASHED", f"plugin {name!r} stopped while running {command!r}; it is restarting"
        )
    if code in _PASS_THROUGH and error.domain:
        cls = error_class_for(error.code)
        return cls(
            error.reason,
            error.message,
            domain=DOMAIN,
            metadata=error.metadata,
            field_violations=error.field_violations,
            retry_after_s=error.retry_after_s,
        )
    return InternalError("PLUGIN_ERROR", f"plugin {name!r} failed running {command!r} ({code})")
