"""OpenAI-compatible remote backend (Ollama, LM Studio, vLLM, hosted APIs): chat completions and embeddings."""

from __future__ import annotations

import json
import logging
import math
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
import numpy.typing as npt

from inferd.backends.base import (
    Finished,
    FinishReason,
    GenerateCall,
    GenerationEvent,
    LoadedInfo,
    ModelLoadError,
    ShouldStop,
    TextDelta,
)
from inferd.config import RemoteSettings
from inferd.jsonschema_lite import validate
from servicekit.errors import FailedPreconditionError, ResourceExhaustedError, ServiceError, UnavailableError

_log = logging.getLogger("inferd.openai")
_FINISH: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "content_filter": "stop",
    "tool_calls": "stop",
}
#: A schema reply that does not validate is asked for again this many times in total.
_SCHEMA_ATTEMPTS = 2


class _Http:
    """Minimal JSON-over-HTTP client (stdlib only) that maps failures to typed errors."""

    def __init__(self, remote: RemoteSettings) -> None:
        self._remote = remote

    @property
    def timeout_s(self) -> float:
        return self._remote.timeout_s

    def open(
        self, method: str, path: str, body: Mapping[str, Any] | None = None, timeout_s: float | None = None
    ) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self._remote.api_key:
            headers["Authorization"] = f"Bearer {self._remote.api_key}"
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self._remote.base_url + path, data=data, headers=headers, method=method
        )
        try:
            return urllib.request.urlopen(request, timeout=timeout_s or self._remote.timeout_s)
        except urllib.error.HTTPError as error:
            mapped = _http_error(error)
            error.close()  # it holds the response and its socket
            raise mapped from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as error:
            reason = getattr(error, "reason", error)
            raise UnavailableError(
                "REMOTE_UNAVAILABLE", f"remote endpoint unreachable: {reason}", retry_after_s=5.0
            ) from None

    def json(self, method: str, path: str, body: Mapping[str, Any] | None = None) -> Any:
        with self.open(method, path, body) as response:
            try:
                return json.loads(response.read())
            except (json.JSONDecodeError, UnicodeDecodeError):
                raise UnavailableError("REMOTE_BAD_RESPONSE", "remote endpoint returned non-JSON") from None


def _http_error(error: urllib.error.HTTPError) -> ServiceError:
    status = error.code
    retry_after = error.headers.get("Retry-After") if error.headers else None
    retry_s = float(retry_after) if retry_after and retry_after.replace(".", "", 1).isdigit() else 5.0
    if status == 429:
        return ResourceExhaustedError(
            "REMOTE_RATE_LIMITED", "remote endpoint rate-limited the call", retry_after_s=retry_s
        )
    if status in (401, 403):
        return FailedPreconditionError(
            "REMOTE_AUTH_FAILED", f"remote endpoint refused the credentials (HTTP {status})"
        )
    if 400 <= status < 500:
        return FailedPreconditionError(
            "REMOTE_REJECTED", f"remote endpoint rejected the call (HTTP {status})"
        )
    return UnavailableError("REMOTE_ERROR", f"remote endpoint failed (HTTP {status})", retry_after_s=retry_s)


def _probe(http: _Http) -> None:
    """Fail the load when nothing answers at base_url; any HTTP answer (even 404 on /models) counts as alive."""
    try:
        with http.open("GET", "/models", timeout_s=min(10.0, http.timeout_s)):
            pass
    except UnavailableError as error:
        raise ModelLoadError(error.message) from None
    except ServiceError:
        return


class OpenAILLM:
    """Chat completions; with a schema, response_format json_schema plus a local validation (and one retry)."""

    def __init__(self, remote: RemoteSettings, model: str, options: Mapping[str, Any]) -> None:
        self._http = _Http(remote)
        self._model = model
        self._context = int(options.get("context_window_tokens", 0))
        _probe(self._http)

    def info(self) -> LoadedInfo:
        return LoadedInfo(context_window_tokens=self._context)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        # OpenAI-compatible APIs expose no tokenizer: an estimate (about 4 characters per token).
        return [math.ceil(len(text) / 4) for text in texts]

    def close(self) -> None:
        return None

    def _body(self, call: GenerateCall, stream: bool) -> dict[str, Any]:
        p = call.params
        body: dict[str, Any] = {
            "model": self._model,
            "messages": [{"role": m.role, "content": m.content} for m in call.messages],
            "max_tokens": p.max_tokens,
            "temperature": p.temperature,
            "top_p": p.top_p,
            "stream": stream,
        }
        if p.stop:
            body["stop"] = list(p.stop)
        if p.seed:
            body["seed"] = p.seed
        if stream:
            body["stream_options"] = {"include_usage": True}
        if call.json_schema is not None:
            body["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "response", "schema": call.json_schema, "strict": True},
            }
        return body

    def generate(self, call: GenerateCall, should_stop: ShouldStop) -> Iterator[GenerationEvent]:
        if call.json_schema is not None:
            yield from self._generate_json(call, should_stop)
        else:
            yield from self._generate_stream(call, should_stop)

    def _generate_json(self, call: GenerateCall, should_stop: ShouldStop) -> Iterator[GenerationEvent]:
        assert call.json_schema is not None
        for attempt in range(1, _SCHEMA_ATTEMPTS + 1):
            reply = self._http.json("POST", "/chat/completions", self._body(call, stream=False))
            text, finish, usage = _parse_completion(reply)
            try:
                problems = validate(json.loads(text), call.json_schema)
            except json.JSONDecodeError:
                problems = ["not JSON"]
            if not problems:
                yield TextDelta(text)
                yield Finished(finish, usage.get("prompt_tokens", 0), usage.get("completion_tokens", 0))
                return
            _log.warning("remote reply failed the schema on attempt %d (%d problems)", attempt, len(problems))
            if should_stop():
                break
        raise UnavailableError(
            "INVALID_MODEL_OUTPUT", "the remote model's reply did not satisfy the JSON schema"
        )

    def _generate_stream(self, call: GenerateCall, should_stop: ShouldStop) -> Iterator[GenerationEvent]:
        finish: FinishReason = "stop"
        usage: dict[str, int] = {}
        completion = 0
        with self._http.open("POST", "/chat/completions", self._body(call, stream=True)) as response:
            for raw in response:
                if should_stop():
                    yield Finished("cancelled", usage.get("prompt_tokens", 0), completion)
                    return
                line = raw.decode("utf-8", "replace").strip()
                if not line.startswith("data:"):
                    continue
                data = line[5:].strip()
                if data == "[DONE]":
                    break
                try:
                    chunk = json.loads(data)
                except json.JSONDecodeError:
                    raise UnavailableError("REMOTE_BAD_RESPONSE", "remote stream sent a bad event") from None
                usage = chunk.get("usage") or usage
                for choice in chunk.get("choices") or []:
                    content = (choice.get("delta") or {}).get("content")
                    if content:
                        completion += 1
                        yield TextDelta(content)
                    if choice.get("finish_reason"):
                        finish = _FINISH.get(choice["finish_reason"], "stop")
        yield Finished(finish, usage.get("prompt_tokens", 0), usage.get("completion_tokens", completion))


def _parse_completion(reply: Any) -> tuple[str, FinishReason, dict[str, int]]:
    try:
        choice = reply["choices"][0]
        text = choice["message"]["content"] or ""
    except (KeyError, IndexError, TypeError):
        raise UnavailableError(
            "REMOTE_BAD_RESPONSE", "remote reply has no choices[0].message.content"
        ) from None
    usage = reply.get("usage") or {}
    return str(text), _FINISH.get(choice.get("finish_reason") or "stop", "stop"), usage


class OpenAIEmbedder:
    """POST /embeddings; vectors are L2-normalised here (not every server normalises)."""

    def __init__(self, remote: RemoteSettings, model: str, options: Mapping[str, Any]) -> None:
        self._http = _Http(remote)
        self._model = model
        try:
            self._dimension = int(options.get("dimension") or self.embed(["dimension probe"]).shape[1])
        except ServiceError as error:
            raise ModelLoadError(error.message) from None

    def info(self) -> LoadedInfo:
        return LoadedInfo(embedding_dimension=self._dimension)

    def count_tokens(self, texts: Sequence[str]) -> list[int]:
        return [math.ceil(len(text) / 4) for text in texts]

    def close(self) -> None:
        return None

    def embed(self, texts: Sequence[str]) -> npt.NDArray[np.float32]:
        reply = self._http.json("POST", "/embeddings", {"model": self._model, "input": list(texts)})
        try:
            rows = sorted(reply["data"], key=lambda item: item.get("index", 0))
            vectors = np.asarray([row["embedding"] for row in rows], dtype=np.float32)
        except (KeyError, TypeError, ValueError):
            raise UnavailableError("REMOTE_BAD_RESPONSE", "remote embeddings reply is malformed") from None
        if vectors.ndim != 2 or vectors.shape[0] != len(texts):
            raise UnavailableError("REMOTE_BAD_RESPONSE", "remote returned the wrong number of embeddings")
        norms = np.linalg.norm(vectors, axis=1, keepdims=True)
        normalised: npt.NDArray[np.float32] = (vectors / np.maximum(norms, 1e-12)).astype(np.float32)
        return normalised
