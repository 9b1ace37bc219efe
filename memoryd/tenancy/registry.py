"""Open tenants: the default one always, others opened on first use and kept up to a cap.

Beyond `max_open` open tenants the least recently used idle one is closed (its writer, indexer, scheduler and store
closed cleanly; buffered turns stay in its store and the writer's resume path picks them up when it is reopened).
A tenant busy with a call is never closed under it: while every open tenant is busy the cap is exceeded, and the
extra ones close as soon as they fall idle and a later open needs room. A tenant being closed is not reopened
until its close has finished, so two service graphs never share one store.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from memoryd.tenancy.handlers import TenantServices
from servicekit.errors import FailedPreconditionError, UnavailableError
from servicekit.tenancy import DEFAULT_TENANT

_log = logging.getLogger("memoryd.tenancy")


@dataclass
class _Entry:
    services: TenantServices
    users: int = 0


class TenantRegistry:
    """Hands out a tenant's services for the length of a call (use), opening and closing tenants as needed."""

    def __init__(
        self,
        default: TenantServices,
        open_tenant: Callable[[str], TenantServices],
        *,
        max_open: int,
    ) -> None:
        self._default = default
        self._open_tenant = open_tenant
        self._max_open = max_open
        self._lock = threading.Lock()
        self._opening = threading.Lock()  # opens (and the closes they cause) run one at a time
        self._open: OrderedDict[str, _Entry] = OrderedDict()
        self._closing: dict[str, threading.Event] = {}
        self._closed = False
        #: How many times a tenant was opened and closed, and the seconds all closes took (tests and the bench).
        self.opens = 0
        self.closes = 0
        self.close_seconds = 0.0

    @property
    def default(self) -> TenantServices:
        """The default tenant's services (always open)."""
        return self._default

    @property
    def open_tenants(self) -> list[str]:
        """The non-default tenants open now, least recently used first."""
        with self._lock:
            return list(self._open)

    @contextmanager
    def use(self, tenant: str) -> Iterator[TenantServices]:
        """The tenant's services, kept open until the block ends."""
        if tenant == DEFAULT_TENANT:
            yield self._default
            return
        entry = self._acquire(tenant)
        try:
            yield entry.services
        finally:
            with self._lock:
                entry.users -= 1

    def _acquire(self, tenant: str) -> _Entry:
        if self._max_open <= 0:
            raise FailedPreconditionError(
                "TENANTS_DISABLED",
                "this memoryd serves the default tenant only (OSAURUS_MEMORYD_MAX_OPEN_TENANTS=0)",
            )
        with self._lock:
            entry = self._take_locked(tenant)
        if entry is not None:
            return entry
        with self._opening:
            self._wait_closed(tenant)
            with self._lock:
                entry = self._take_locked(tenant)
            if entry is not None:
                return entry
            victims = self._make_room()
            for name, victim in victims:
                self._close(name, victim)
            services = self._open_services(tenant)
            with self._lock:
                if self._closed:
                    services.close()
                    raise UnavailableError("SHUTTING_DOWN", "memoryd is shutting down")
                entry = _Entry(services, users=1)
                self._open[tenant] = entry
                self.opens += 1
            return entry

    def _take_locked(self, tenant: str) -> _Entry | None:
        if self._closed:
            raise UnavailableError("SHUTTING_DOWN", "memoryd is shutting down")
        entry = self._open.get(tenant)
        if entry is None:
            return None
        self._open.move_to_end(tenant)
        entry.users += 1
        return entry

    def _wait_closed(self, tenant: str) -> None:
        with self._lock:
            closing = self._closing.get(tenant)
        if closing is not None:
            closing.wait()

    def _make_room(self) -> list[tuple[str, _Entry]]:
        """Take least recently used idle tenants out of the open set until one more fits (marked as closing)."""
        victims: list[tuple[str, _Entry]] = []
        with self._lock:
            excess = len(self._open) + 1 - self._max_open
            for name, entry in list(self._open.items()):
                if excess <= 0:
                    break
                if entry.users == 0:
                    del self._open[name]
                    self._closing[name] = threading.Event()
                    victims.append((name, entry))
                    excess -= 1
            if excess > 0:
                _log.warning("all %d open tenants are busy; opening one more beyond the cap", len(self._open))
        return victims

    def _open_services(self, tenant: str) -> TenantServices:
        try:
            return self._open_tenant(tenant)
        except Exception as error:
            _log.error("opening a tenant failed: %s", type(error).__name__)
            raise UnavailableError(
                "TENANT_UNAVAILABLE",
                "the tenant's store could not be opened; see the server log",
                retry_after_s=1.0,
            ) from error

    def _close(self, tenant: str, entry: _Entry) -> None:
        started = time.perf_counter()
        try:
            entry.services.close()
        except Exception as error:
            _log.warning("closing a tenant failed: %s", type(error).__name__)
        finally:
            with self._lock:
                self.closes += 1
                self.close_seconds += time.perf_counter() - started
                event = self._closing.pop(tenant, None)
            if event is not None:
                event.set()

    def close(self) -> None:
        """Close every non-default tenant (after the server stopped); the default one belongs to the caller."""
        with self._opening:
            with self._lock:
                self._closed = True
                entries = list(self._open.items())
                self._open.clear()
                for name, _ in entries:
                    self._closing[name] = threading.Event()
            for name, entry in entries:
                self._close(name, entry)


__all__ = ["TenantRegistry"]
