"""The real stack for gateway tests: inferd (fake backend), memoryd and plugin_host in-process on 127.0.0.1:0,
and the gateway served by uvicorn on 127.0.0.1:0 in a thread."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from gateway.config import Settings
from gateway.embedded import EmbeddedGateway
from inferd.app import close_all
from inferd.app import start as start_inferd
from inferd.config import ModelSpec, builtin_models, for_tests
from memoryd.app import start as start_memoryd
from memoryd.config import ServiceSettings
from plugin_host.app import start as start_plugin_host
from plugin_host.config import load_settings as plugin_host_settings
from servicekit.tls import TransportSecurity

#: The spec's OpenAI example asks for this model; the stack configures it (fake backend) so it runs verbatim.
SPEC_MODEL = "your-model-name"


@dataclass
class GatewayStack:
    """Addresses of the running services and the gateway's base URL."""

    url: str
    port: int
    memoryd_target: str
    inferd_target: str
    plugin_host_target: str
    gateway: EmbeddedGateway


@contextmanager
def running_stack(home: Path, *, token: str | None = None) -> Iterator[GatewayStack]:
    """inferd → memoryd → plugin_host → gateway, all on loopback; stopped in reverse order on exit."""
    with ExitStack() as stack:
        models = (*builtin_models(), ModelSpec(SPEC_MODEL, "llm", "fake"))
        inferd_server, inferd_app = start_inferd(for_tests(home / "inferd", models=models))
        stack.callback(close_all, inferd_server, inferd_app, 1.0)
        memoryd_server, memoryd_app = start_memoryd(
            ServiceSettings(listen="127.0.0.1:0", home=home / "memoryd", inferd_addr=inferd_server.target)
        )
        stack.callback(memoryd_app.close)
        stack.callback(memoryd_server.stop, 2.0)
        host_settings = plugin_host_settings(
            ["--listen", "127.0.0.1:0", "--home", str(home / "plugin_host"), "--memoryd", memoryd_server.target,
             "--inferd", inferd_server.target, "--no-entry-points"],
            env={"PATH": "/usr/bin:/bin"},
        )  # fmt: skip
        host_server, host_app = start_plugin_host(host_settings)
        stack.callback(host_app.close)
        stack.callback(host_server.stop, 1.0)
        settings = Settings(
            listen="127.0.0.1:0",
            memoryd_addr=memoryd_server.target,
            inferd_addr=inferd_server.target,
            plugin_host_addr=host_server.target,
            transport=TransportSecurity(token=token),
        )
        gateway = EmbeddedGateway(settings).start()
        stack.callback(gateway.stop)
        yield GatewayStack(
            url=gateway.url,
            port=int(gateway.address.rsplit(":", 1)[1]),
            memoryd_target=memoryd_server.target,
            inferd_target=inferd_server.target,
            plugin_host_target=host_server.target,
            gateway=gateway,
        )


def with_listen(settings: Settings, listen: str) -> Settings:
    """The same settings on another address."""
    return replace(settings, listen=listen)
