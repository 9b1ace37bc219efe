"""Deterministic fake models for dev and tests: word-echo generation, schema-valid JSON, hashed bag-of-words vectors."""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

from inferd.backends.base import Finished, GenerateCall, GenerationEvent, LoadedInfo, ShouldStop, TextDelta
from inferd.jsonschema_lite import minimal_instance

_WORD = re.compile(r"\w+|[^\w\s]", re.UNICODE)


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text)


class FakeLLM:
    """Replies "echo: <last user message>" word by word (or a minimal schema-valid JSON), at token_delay_s a word."""

    def __init__(self, context_window_tokens: int = 8192, token_delay_s: float = 0.0) -> None:
        self._context = context_window_tokens
        self._delay_s = token_delay_s

    def info(self) -> LoadedInfo:
        return LoadedInfo(context_window_tokens=self._context)

    def generate(self, call: GenerateCall, should_stop: ShouldStop) -> Iterator[GenerationEvent]:
        prompt_tokens = sum(len(_tokens(m.content)) + 4 for m in call.messages)
        last_user = next((m.content for m in reversed(call.messages) if m.role == "user"), "")
        if call.json_schema is not None:
            pieces = [json.dumps(minimal_instance(call.json_schema, hint=" ".join(_tokens(last_user)[:8])))]
        else:
            words = ["echo:", *last_user.split()]
            pieces = [w if i == 0 else " " + w for i, w in enumerate(words)]
        text_so_far = ""
        for count, piece in enumerate(pieces):
            if should_stop():
                yield Finished("cancelled", prompt_tokens, count)
                return
            if count >= call.params.max_tokens:
                yield Finished("length", prompt_tokens, count)
                return
            stop_at = _first_stop(text_so_far + piece, call.params.stop)
            if stop_at is not None:
                if stop_at > len(text_so_far):
                    yield TextDelta((text_so_far + piece)[len(text_so_far) : stop_at])
                yield Finished("stop", prompt_tokens, count + 1)
                return
            if self._delay_s:
                time.sleep(self._delay_s)
            text_so_far += piece
            yield TextDelta(piece)
        yield Finished("stop", prompt_tokens, len(pieces))

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(_tokens(t)) for t in texts]

    def close(self) -> None:
        return None


def _first_stop(text: str, stops: Sequence[str]) -> int | None:
    found = [text.find(s) for s in stops if s and s in text]
    return min(found) if found else None


class FakeEmbedder:
    """Hashed bag-of-words vectors: equal texts give equal vectors, shared words give positive cosine."""

    def __init__(self, dimension: int = 384, delay_s: float = 0.0) -> None:
        self._dimension = dimension
        self._delay_s = delay_s

    def info(self) -> LoadedInfo:
        return LoadedInfo(context_window_tokens=256, embedding_dimension=self._dimension)

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        if self._delay_s:
            time.sleep(self._delay_s)
        out = np.zeros((len(texts), self._dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            words = [w.lower() for w in _tokens(text)] or [""]
            for word in words:
                digest = hashlib.blake2b(word.encode(), digest_size=8).digest()
                index = int.from_bytes(digest[:4], "little") % self._dimension
                out[row, index] += 1.0 if digest[4] & 1 else -1.0
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:
                out[row, 0] = 1.0
            else:
                out[row] /= norm
        return out

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [len(_tokens(t)) for t in texts]

    def close(self) -> None:
        return None
