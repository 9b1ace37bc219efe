"""Context windows of inferd's models, cached briefly: memory's budget scales with the window (off below 2,048)."""

from __future__ import annotations

import logging
import threading
import time

from plugin_host.peers import InferencePeer
from servicekit.errors import ServiceError

_log = logging.getLogger("plugin_host.context_window")


class ContextWindows:
    """Answers "how large is this model's context?"; 0 (unknown, treated as large) when inferd cannot say."""

    def __init__(self, inference: InferencePeer, *, ttl_s: float = 60.0, timeout_s: float = 2.0) -> None:
        self._inference = inference
        self._ttl_s = ttl_s
        self._timeout_s = timeout_s
        self._cache: dict[str, tuple[float, int]] = {}
        """model -> (expiry on the monotonic clock, tokens)."""
        self._lock = threading.Lock()

    def resolve(self, model: str, given_tokens: int) -> int:
        """`given_tokens` when the caller set it, else inferd's figure for `model` (empty: the default)."""
        if given_tokens > 0:
            return given_tokens
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(model)
        if cached is not None and now < cached[0]:
            return cached[1]
        try:
            tokens = self._inference.context_window(model, timeout_s=self._timeout_s)
        except ServiceError as error:
            _log.info("context window of %r unknown: %s", model or "default model", error.reason)
            tokens = 0
        # An unknown window is retried soon: inferd may just be starting.
        expiry = now + (self._ttl_s if tokens > 0 else min(self._ttl_s, 5.0))
        with self._lock:
            self._cache[model] = (expiry, tokens)
        return tokens
