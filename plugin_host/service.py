"""PluginHostService servicer. Every RPC is planned for the plugin-host issue and answers NOT_YET_AVAILABLE."""

from __future__ import annotations

from osaurus.plugin.v1 import plugin_pb2_grpc as pb_grpc
from servicekit.planned import planned_rpcs

SERVICE_NAME = "osaurus.plugin.v1.PluginHostService"


@planned_rpcs(pb_grpc.PluginHostServiceServicer, SERVICE_NAME)
class PluginHostServicer(pb_grpc.PluginHostServiceServicer):  # type: ignore[misc]
    """Lists, invokes and reloads plugins, and runs agents (RunAgent)."""
