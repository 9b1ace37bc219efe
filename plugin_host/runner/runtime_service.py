"""PluginRuntimeService servicer inside the plugin process: Describe and Invoke, with errors mapped for the host."""

from __future__ import annotations

import logging
import os
import time
import traceback
from pathlib import Path
from typing import Any

import grpc

from osaurus.plugin.v1 import plugin_pb2 as ppb
from osaurus.plugin.v1 import plugin_pb2_grpc as ppb_grpc
from plugin_host.runner import convert
from plugin_host.runner.bridge import BridgeConnection, BridgeContext
from plugin_host.runner.watchdog import Watchdog
from plugin_host.sdk import (
    HostError,
    InvalidPayloadError,
    PermissionDeniedError,
    Plugin,
    PluginError,
    UnavailableError,
)
from plugin_host.sdk._plugin import decode_payload, encode_result
from servicekit.errors import (
    InternalError,
    InvalidArgumentError,
    NotFoundError,
    ServiceError,
)
from servicekit.errors import (
    PermissionDeniedError as PermissionDeniedStatus,
)
from servicekit.errors import (
    UnavailableError as UnavailableStatus,
)

SERVICE_NAME = "osaurus.plugin.v1.PluginRuntimeService"
_log = logging.getLogger("plugin_host.runner")


class RuntimeServicer(ppb_grpc.PluginRuntimeServiceServicer):
    """Runs the plugin's commands for the host."""

    def __init__(
        self, plugin: Plugin, plugin_name: str, bridge: BridgeConnection, data_dir: Path, watchdog: Watchdog
    ) -> None:
        self._plugin = plugin
        self._watchdog = watchdog
        self._name = plugin_name
        self._bridge = bridge
        self._data_dir = data_dir

    def Describe(self, request: ppb.DescribeRequest, context: grpc.ServicerContext) -> ppb.DescribeResponse:
        specs = self._plugin.command_specs()
        return ppb.DescribeResponse(
            commands=[convert.command_to_proto(specs[name]) for name in sorted(specs)]
        )

    def Invoke(self, request: ppb.InvokeRequest, context: grpc.ServicerContext) -> ppb.InvokeResponse:
        if request.command not in self._plugin.command_specs():
            raise NotFoundError(
                "COMMAND_NOT_FOUND", f"plugin {self._name!r} has no command {request.command!r}"
            )
        try:
            payload = decode_payload(request.payload_json)
        except InvalidPayloadError as error:
            raise InvalidArgumentError("INVALID_PAYLOAD", error.message) from None
        remaining = context.time_remaining()
        ctx = BridgeContext(
            self._bridge,
            plugin_name=self._name,
            agent_id=request.agent_id,
            conversation_id=request.conversation_id,
            invocation=request.invocation,
            data_dir=self._data_dir,
            deadline_monotonic=None if remaining is None else time.monotonic() + remaining,
        )
        with self._watchdog.track(request.command):
            result = self._run(ctx, request.command, payload)
        try:
            return ppb.InvokeResponse(result_json=encode_result(result))
        except (TypeError, ValueError):
            raise InternalError(
                "PLUGIN_ERROR", f"command {request.command!r} returned a result that is not JSON-serialisable"
            ) from None

    def _run(self, ctx: BridgeContext, command: str, payload: dict[str, Any]) -> Any:
        try:
            return self._plugin.invoke(ctx, command, payload)
        except PluginError as error:
            raise status_for(error) from None
        except (SystemExit, KeyboardInterrupt) as error:
            # A command that exits takes the process with it, as os._exit would; the supervisor restarts it.
            _log.error("command %r called exit; stopping the plugin process", command)
            code = error.code if isinstance(error, SystemExit) and isinstance(error.code, int) else 1
            os._exit(code or 1)
        except Exception as error:
            frame = traceback.extract_tb(error.__traceback__)[-1] if error.__traceback__ else None
            where = f"{frame.filename}:{frame.lineno}" if frame else "?"
            _log.error("command %r raised %s at %s", command, type(error).__name__, where)
            _log.debug("traceback of command %r", command, exc_info=error)
            raise InternalError(
                "PLUGIN_ERROR", f"command {command!r} of plugin {self._name!r} raised {type(error).__name__}"
            ) from None


def status_for(error: PluginError) -> ServiceError:
    """An SDK error escaping a command as the typed status the host receives."""
    if isinstance(error, InvalidPayloadError):
        return InvalidArgumentError("INVALID_PAYLOAD", error.message)
    if isinstance(error, PermissionDeniedError):
        return PermissionDeniedStatus(error.reason, error.message)
    if isinstance(error, UnavailableError):
        return UnavailableStatus(error.reason, error.message, retry_after_s=error.retry_after_s)
    if isinstance(error, HostError):
        # A peer's refusal the command did not handle is the plugin's failure (docs/plugins.md): PLUGIN_ERROR, with
        # the peer's code and reason (tokens, never content) as metadata for whoever debugs it.
        return InternalError(
            "PLUGIN_ERROR",
            f"the command raised HostError ({error.code} {error.reason})",
            metadata={"downstream_code": str(error.code), "downstream_reason": error.reason},
        )
    return InternalError(error.reason or "PLUGIN_ERROR", error.message)
