"""Token counting for the memory budget: the core model's tokenizer through inferd, else a safe estimate."""

from __future__ import annotations

import logging
import math
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from typing import Protocol, runtime_checkable

_log = logging.getLogger("memoryd.retrieval.tokens")

#: Bytes of UTF-8 per token assumed by the estimate. Real BPE vocabularies average ~4 bytes per token on
#: English; 3.2 leaves a 25% margin, and counting bytes (not characters) keeps accented and CJK text on
#: the safe side.
ESTIMATE_BYTES_PER_TOKEN = 3.2
#: inferd's error reason when a call made only_if_resident finds its model not loaded.
MODEL_NOT_RESIDENT = "MODEL_NOT_RESIDENT"


def estimate_tokens(text: str) -> int:
    """Conservative token estimate: ceil(utf-8 bytes / 3.2) — chars/4 with a 25% margin for ASCII."""
    if not text:
        return 0
    return math.ceil(len(text.encode("utf-8")) / ESTIMATE_BYTES_PER_TOKEN)


class TokenCounter(Protocol):
    """Counts tokens of several texts at once; `source` names the tokenizer ("estimate" or "model:<name>")."""

    def count(self, texts: Sequence[str]) -> list[int]: ...

    @property
    def source(self) -> str: ...


class EstimatingCounter:
    """The chars/4-with-margin estimate; never fails, never calls anything."""

    def count(self, texts: Sequence[str]) -> list[int]:
        """One estimate per text."""
        return [estimate_tokens(text) for text in texts]

    @property
    def source(self) -> str:
        """Always "estimate"."""
        return "estimate"


class CountTokensClient(Protocol):
    """What this module needs from inferd.client.InferenceClient."""

    def count_tokens(
        self, texts: Sequence[str], *, model: str = "", timeout_s: float | None = None
    ) -> list[int]: ...


@runtime_checkable
class ReportingClient(Protocol):
    """A CountTokensClient that also says which model counted (inferd.client.InferenceClient does)."""

    def count_tokens_of(
        self,
        texts: Sequence[str],
        *,
        model: str = "",
        timeout_s: float | None = None,
        only_if_resident: bool = False,
    ) -> tuple[list[int], str]: ...


class InferdTokenCounter:
    """Counts with the core model's tokenizer through inferd's CountTokens, caching every count.

    When inferd fails (down, model unknown, deadline), the batch is estimated instead and inferd is not asked
    again for `retry_after_s`, so a dead peer costs one timeout, not one per turn.
    """

    def __init__(
        self,
        client: CountTokensClient,
        model: Callable[[], str] | str = "",
        *,
        timeout_s: float = 0.5,
        cache_entries: int = 8192,
        retry_after_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._client = client
        self._model = model if callable(model) else (lambda: model)
        self._timeout_s = timeout_s
        self._cache_entries = cache_entries
        self._retry_after_s = retry_after_s
        self._clock = clock
        self._cache: OrderedDict[tuple[str, str], int] = OrderedDict()
        self._lock = threading.Lock()
        self._down_until = 0.0
        self._last_source = "estimate"

    @property
    def source(self) -> str:
        """ "model:<name>" when the last count came from inferd, else "estimate"."""
        return self._last_source

    @property
    def model(self) -> str:
        """The model counts are asked for now ("" = inferd's default)."""
        return self._model()

    def count_exact(
        self, texts: Sequence[str], model: str | None = None, *, only_if_resident: bool = False
    ) -> tuple[list[int], str] | None:
        """inferd's counts of `texts` for `model` (None: the current one) and the model that counted them, as inferd
        names it (the model asked for when the client cannot say); not cached, never estimated: None while inferd
        fails (and backs off). For line_tokens.py, whose counts are kept per counting model.

        only_if_resident: the model is not loaded for this (work in the background); None when it is not resident,
        without a back-off (the request path still counts, and loads it).
        """
        asked = self._model() if model is None else model
        with self._lock:
            if self._clock() < self._down_until:
                return None
        try:
            if isinstance(self._client, ReportingClient):
                counts, counted_by = self._client.count_tokens_of(
                    texts, model=asked, timeout_s=self._timeout_s, only_if_resident=only_if_resident
                )
            else:
                counts, counted_by = (
                    self._client.count_tokens(texts, model=asked, timeout_s=self._timeout_s),
                    "",
                )
        except Exception as error:  # any inferd failure: back off, as the request path does
            if only_if_resident and getattr(error, "reason", "") == MODEL_NOT_RESIDENT:
                return None  # not loaded, and not loaded for this: no failure of inferd
            self._failed(error)
            return None
        if len(counts) != len(texts):
            _log.warning("CountTokens returned %d counts for %d texts", len(counts), len(texts))
            return None
        return list(counts), counted_by or asked

    def _failed(self, error: Exception) -> None:
        _log.warning(
            "CountTokens failed (%s); estimating for %.0fs", type(error).__name__, self._retry_after_s
        )
        with self._lock:
            self._down_until = self._clock() + self._retry_after_s

    def count(self, texts: Sequence[str]) -> list[int]:
        """Token counts in input order; cached texts cost nothing, the rest cost one CountTokens call."""
        model = self._model()
        counts: list[int | None] = []
        missing: dict[str, None] = {}
        with self._lock:
            for text in texts:
                if not text:
                    counts.append(0)
                    continue
                cached = self._cache.get((model, text))
                if cached is None:
                    missing[text] = None
                else:
                    self._cache.move_to_end((model, text))
                counts.append(cached)
            is_down = self._clock() < self._down_until
        if missing:
            fetched = self._fetch(model, list(missing)) if not is_down else None
            if fetched is None:
                self._last_source = "estimate"
                return [
                    c if c is not None else estimate_tokens(t) for c, t in zip(counts, texts, strict=True)
                ]
            counts = [c if c is not None else fetched.get(t, 0) for c, t in zip(counts, texts, strict=True)]
        self._last_source = f"model:{model or 'default'}"
        return [c or 0 for c in counts]

    def _fetch(self, model: str, texts: list[str]) -> dict[str, int] | None:
        try:
            reply = self._client.count_tokens(texts, model=model, timeout_s=self._timeout_s)
        except Exception as error:  # any inferd failure: estimate, and back off
            self._failed(error)
            return None
        if len(reply) != len(texts):
            _log.warning("CountTokens returned %d counts for %d texts; estimating", len(reply), len(texts))
            return None
        result = dict(zip(texts, reply, strict=True))
        with self._lock:
            for text, n in result.items():
                self._cache[(model, text)] = n
            while len(self._cache) > self._cache_entries:
                self._cache.popitem(last=False)
        return result


__all__ = ["EstimatingCounter", "InferdTokenCounter", "TokenCounter", "estimate_tokens"]
