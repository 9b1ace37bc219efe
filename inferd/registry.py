"""Model residency: which models are configured, loaded or failed; lazy load, LoadModel/UnloadModel, idle unload."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from inferd.backends.base import Backend, LoadedInfo, ModelLoadError
from inferd.config import ModelSpec
from inferd.worker import InferenceWorker
from servicekit.errors import (
    FailedPreconditionError,
    InvalidArgumentError,
    NotFoundError,
    UnavailableError,
)

_log = logging.getLogger("inferd.registry")

State = Literal["unloaded", "loading", "ready", "failed"]
#: After a failed load, implicit loads (from Generate/Embed) answer MODEL_UNAVAILABLE at once for this long
#: instead of retrying a conversion or a remote probe on every call; LoadModel always retries.
RETRY_FAILED_LOAD_AFTER_S = 30.0
#: Builds a loaded backend for a spec; raises ModelLoadError (or anything) when it cannot.
Loader = Callable[[ModelSpec], Backend]


@dataclass(frozen=True)
class ModelSnapshot:
    """A model's status at one instant, for GetModelStatus."""

    spec: ModelSpec
    state: State
    error: str
    info: LoadedInfo
    queue_depth: int
    is_default: bool


@dataclass
class _Slot:
    spec: ModelSpec
    state: State = "unloaded"
    error: str = ""
    backend: Backend | None = None
    worker: InferenceWorker | None = None
    info: LoadedInfo = field(default_factory=LoadedInfo)
    failed_at_s: float = 0.0
    lock: threading.Lock = field(default_factory=threading.Lock)


class ModelRegistry:
    """Owns every model's backend and worker. Thread-safe; loads happen on the calling thread, once."""

    def __init__(self, specs: tuple[ModelSpec, ...], defaults: dict[str, str], loader: Loader) -> None:
        self._slots = {spec.name: _Slot(spec) for spec in specs}
        self._defaults = defaults  # kind -> model name ("" means unset)
        self._loader = loader
        self._guard = threading.Lock()
        self._closed = threading.Event()
        self._reaper = threading.Thread(target=self._reap_idle, name="inferd-idle-unload", daemon=True)
        self._reaper.start()

    def resolve(self, name: str, kind: str) -> str:
        """The model a request means: `name`, or the default of `kind` when empty. Typed errors otherwise."""
        if not name:
            name = self._defaults.get(kind, "")
            if not name:
                raise FailedPreconditionError("MODEL_UNSET", f"no default {kind} model is configured")
        slot = self._slots.get(name)
        if slot is None:
            raise NotFoundError(
                "MODEL_NOT_FOUND", f"model {name!r} is not configured", metadata={"model": name}
            )
        if slot.spec.kind != kind:
            raise InvalidArgumentError(
                "WRONG_MODEL_KIND",
                f"model {name!r} is a {slot.spec.kind} model, not {kind}",
                metadata={"model": name},
            )
        return name

    def worker(self, name: str, *, only_if_resident: bool = False) -> InferenceWorker:
        """The worker of a ready model, loading it first unless only_if_resident (then FAILED_PRECONDITION)."""
        slot = self._slot(name)
        if slot.state == "ready" and slot.worker is not None:
            return slot.worker
        if only_if_resident:
            raise FailedPreconditionError(
                "MODEL_NOT_RESIDENT",
                f"model {name!r} is not loaded",
                metadata={"model": name, "state": slot.state},
            )
        if slot.state == "failed" and time.monotonic() - slot.failed_at_s < RETRY_FAILED_LOAD_AFTER_S:
            raise _unavailable(name, slot.error)
        self.load(name)
        if slot.worker is None:  # unloaded again between load() and here
            raise UnavailableError("MODEL_UNLOADED", f"model {name!r} was unloaded", retry_after_s=1.0)
        return slot.worker

    def load(self, name: str) -> ModelSnapshot:
        """Load a model if it is not ready. A failed load leaves state FAILED and raises MODEL_UNAVAILABLE."""
        slot = self._slot(name)
        with slot.lock:
            if slot.state != "ready":
                slot.state, slot.error = "loading", ""
                started = time.monotonic()
                try:
                    backend = self._loader(slot.spec)
                except Exception as error:
                    slot.state, slot.error, slot.failed_at_s = "failed", _describe(error), time.monotonic()
                    _log.warning("model %s failed to load: %s", name, slot.error)
                else:
                    slot.backend, slot.info = backend, backend.info()
                    slot.worker = InferenceWorker(name, slot.spec.queue_capacity)
                    slot.state = "ready"
                    _log.info("model %s loaded in %.2fs", name, time.monotonic() - started)
            if slot.state == "failed":
                raise _unavailable(name, slot.error)
        return self.snapshot(name)

    def unload(self, name: str) -> ModelSnapshot:
        """Free a model; queued requests fail with UNAVAILABLE / MODEL_UNLOADED. A failed model resets to unloaded."""
        slot = self._slot(name)
        with slot.lock:
            self._unload_locked(slot)
        return self.snapshot(name)

    def _unload_locked(self, slot: _Slot) -> None:
        worker, backend = slot.worker, slot.backend
        slot.worker, slot.backend = None, None
        slot.state, slot.error = "unloaded", ""
        if worker is not None:
            worker.stop(
                UnavailableError(
                    "MODEL_UNLOADED", f"model {slot.spec.name!r} was unloaded", retry_after_s=1.0
                )
            )
        if backend is not None:
            backend.close()
            _log.info("model %s unloaded", slot.spec.name)

    def snapshot(self, name: str) -> ModelSnapshot:
        slot = self._slot(name)
        worker = slot.worker
        return ModelSnapshot(
            spec=slot.spec,
            state=slot.state,
            error=slot.error,
            info=slot.info,
            queue_depth=worker.depth if worker is not None else 0,
            is_default=self._defaults.get(slot.spec.kind) == name,
        )

    def snapshots(self) -> list[ModelSnapshot]:
        return [self.snapshot(name) for name in self._slots]

    def backend(self, name: str) -> Backend:
        """The loaded backend (for work that runs on its worker thread)."""
        backend = self._slot(name).backend
        if backend is None:
            raise UnavailableError("MODEL_UNLOADED", f"model {name!r} was unloaded", retry_after_s=1.0)
        return backend

    def close(self) -> None:
        self._closed.set()
        for slot in self._slots.values():
            with slot.lock:
                self._unload_locked(slot)

    def _slot(self, name: str) -> _Slot:
        slot = self._slots.get(name)
        if slot is None:
            raise NotFoundError(
                "MODEL_NOT_FOUND", f"model {name!r} is not configured", metadata={"model": name}
            )
        return slot

    def _reap_idle(self) -> None:
        while not self._closed.wait(1.0):
            now = time.monotonic()
            for slot in self._slots.values():
                worker, idle_s = slot.worker, slot.spec.idle_unload_s
                if worker is None or idle_s <= 0 or worker.is_busy or now - worker.last_used_s < idle_s:
                    continue
                if slot.lock.acquire(blocking=False):
                    try:
                        if slot.worker is worker and not worker.is_busy:
                            _log.info(
                                "model %s idle for %.0fs; unloading", slot.spec.name, now - worker.last_used_s
                            )
                            self._unload_locked(slot)
                    finally:
                        slot.lock.release()


def _unavailable(name: str, reason: str) -> FailedPreconditionError:
    return FailedPreconditionError(
        "MODEL_UNAVAILABLE", f"model {name!r} could not be loaded: {reason}", metadata={"model": name}
    )


def _describe(error: BaseException) -> str:
    if isinstance(error, ModelLoadError | FileNotFoundError | ImportError | ValueError):
        return str(error)[:500] or type(error).__name__
    return f"{type(error).__name__}: {str(error)[:300]}"
