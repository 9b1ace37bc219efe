"""Invocation handles: which tenant a plugin's bridge calls act for.

A plugin never names a tenant. The host issues an unguessable handle for each command it runs (InvokeRequest's
`invocation`), valid while the command runs; the plugin's ctx sends it back on every bridge call, and the bridge
acts for the tenant of the InvokePlugin call that started that command. A handle is bound to its plugin too, so one
plugin cannot act with another's. A bridge call without a handle acts for the default tenant (a plugin's own work
outside any command, as before tenants); one whose command has returned is refused.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from servicekit.errors import FailedPreconditionError
from servicekit.tenancy import DEFAULT_TENANT


class Invocations:
    """The handles of the commands running now. Thread-safe."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._live: dict[str, tuple[str, str]] = {}

    @contextmanager
    def running(self, plugin: str, tenant: str) -> Iterator[str]:
        """A new handle for one command of `plugin` acting for `tenant`, valid until the block ends."""
        handle = secrets.token_urlsafe(24)
        with self._lock:
            self._live[handle] = (plugin, tenant)
        try:
            yield handle
        finally:
            with self._lock:
                self._live.pop(handle, None)

    def tenant_of(self, plugin: str, handle: str) -> str:
        """The tenant a bridge call of `plugin` carrying `handle` acts for; FailedPreconditionError
        (INVOCATION_ENDED) when the handle is not one of this plugin's running commands."""
        if not handle:
            return DEFAULT_TENANT
        with self._lock:
            entry = self._live.get(handle)
        if entry is None or entry[0] != plugin:
            raise FailedPreconditionError(
                "INVOCATION_ENDED",
                "the command this call was made for has returned; use ctx only while its command runs",
            )
        return entry[1]

    def __len__(self) -> int:
        with self._lock:
            return len(self._live)


__all__ = ["Invocations"]
