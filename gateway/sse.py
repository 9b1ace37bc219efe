"""Server-sent events: framing and the streaming response every streaming route returns."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from starlette.responses import StreamingResponse

MEDIA_TYPE = "text/event-stream"
#: Keep proxies (and curl) from buffering the stream.
HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def event(data: Any, name: str | None = None) -> bytes:
    """One SSE event whose data is `data` as compact JSON (or text as is), with an optional event name."""
    text = data if isinstance(data, str) else json.dumps(data, separators=(",", ":"), ensure_ascii=False)
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {text}\n\n".encode()


def wants_stream(flag: bool, accept: str | None) -> bool:
    """Stream when the body asks for it or the client accepts only an event stream."""
    return flag or (accept is not None and MEDIA_TYPE in accept and "application/json" not in accept)


def streaming(events: AsyncIterator[bytes]) -> StreamingResponse:
    """An SSE response over already-framed events."""
    return StreamingResponse(events, media_type=MEDIA_TYPE, headers=dict(HEADERS))
