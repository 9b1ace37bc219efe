"""Run the gateway on a background thread with its own event loop (tests, benchmarks, embedding apps)."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import dataclass, field

import uvicorn

from gateway.app import bound_address, create_app, uvicorn_config
from gateway.config import Settings


@dataclass
class EmbeddedGateway:
    """A gateway served by uvicorn on a daemon thread; `url` is its base URL (http://host:port)."""

    settings: Settings
    server: uvicorn.Server | None = None
    thread: threading.Thread | None = None
    address: str = ""
    error: BaseException | None = field(default=None, repr=False)

    @property
    def url(self) -> str:
        scheme = "https" if self.settings.transport.is_tls else "http"
        return f"{scheme}://{self.address}"

    def start(self, timeout_s: float = 20.0) -> EmbeddedGateway:
        """Start serving; returns once the socket is bound and the lifespan (gRPC channels) is up."""
        self.server = uvicorn.Server(uvicorn_config(self.settings, create_app(self.settings)))
        self.thread = threading.Thread(target=self._run, name="gateway-uvicorn", daemon=True)
        self.thread.start()
        deadline = time.monotonic() + timeout_s
        while not self.server.started:
            if self.error is not None or not self.thread.is_alive():
                raise RuntimeError(f"gateway did not start: {self.error!r}")
            if time.monotonic() > deadline:
                raise TimeoutError("gateway did not start in time")
            time.sleep(0.01)
        self.address = bound_address(self.server)
        return self

    def _run(self) -> None:
        assert self.server is not None
        try:
            asyncio.run(self.server.serve())
        except BaseException as error:  # reported by start()
            self.error = error

    def stop(self, timeout_s: float = 10.0) -> None:
        """Ask uvicorn to exit (closing the gRPC channels) and wait for the thread."""
        if self.server is not None:
            self.server.should_exit = True
        if self.thread is not None:
            self.thread.join(timeout_s)

    def __enter__(self) -> EmbeddedGateway:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
