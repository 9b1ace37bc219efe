"""uvicorn's httptools protocol that sends a response's head and body in one write.

Why: uvicorn writes the status line and headers on `http.response.start` and the body on `http.response.body`, so
every small JSON answer left in two send() calls and two TCP segments. An app sends both messages in the same turn
of the loop (uvicorn's send does not wait unless the socket is full), so a small write is held until the next one
joins it, or until the turn ends if none comes: one send, one segment. Nothing waits past the current turn and
at most one small write is held, so a large or streamed body neither waits nor piles up. Measured in
docs/gateway.md (a few hundredths of a millisecond per request).
"""

from __future__ import annotations

import asyncio
from typing import Any

from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol

#: Only writes up to this size are held (a response head is a few hundred bytes).
HOLD_BYTES = 16 * 1024


class CoalescingTransport(asyncio.Transport):
    """A transport that holds a small write until the next write or the end of the loop turn, and sends them as one.

    A response is head (held) then body: the body's write sends both at once. close(), write_eof() and
    set_protocol() send what is held first; abort() drops it, as the transport would.
    """

    def __init__(self, transport: asyncio.Transport, loop: asyncio.AbstractEventLoop) -> None:
        super().__init__()
        self._transport = transport
        self._loop = loop
        self._held: bytes | None = None

    def write(self, data: bytes | bytearray | memoryview[Any]) -> None:
        if not data:
            return
        held, self._held = self._held, None
        if held is not None:
            self._send(held + data)
        elif len(data) > HOLD_BYTES:
            self._send(data)
        else:
            self._held = bytes(data)
            self._loop.call_soon(self.flush)

    def _send(self, data: bytes | bytearray | memoryview[Any]) -> None:
        if not self._transport.is_closing():
            self._transport.write(data)

    def writelines(self, list_of_data: Any) -> None:
        for data in list_of_data:
            self.write(data)

    def flush(self) -> None:
        """Send what is held now (called when the turn ends)."""
        held, self._held = self._held, None
        if held is not None:
            self._send(held)

    def close(self) -> None:
        self.flush()
        self._transport.close()

    def abort(self) -> None:
        self._held = None
        self._transport.abort()

    def write_eof(self) -> None:
        self.flush()
        self._transport.write_eof()

    def can_write_eof(self) -> bool:
        return self._transport.can_write_eof()

    def is_closing(self) -> bool:
        return self._transport.is_closing()

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return self._transport.get_extra_info(name, default)

    def set_protocol(self, protocol: asyncio.BaseProtocol) -> None:
        self.flush()
        self._transport.set_protocol(protocol)

    def get_protocol(self) -> asyncio.BaseProtocol:
        return self._transport.get_protocol()

    def is_reading(self) -> bool:
        return self._transport.is_reading()

    def pause_reading(self) -> None:
        self._transport.pause_reading()

    def resume_reading(self) -> None:
        self._transport.resume_reading()

    def get_write_buffer_size(self) -> int:
        return self._transport.get_write_buffer_size() + len(self._held or b"")

    def get_write_buffer_limits(self) -> tuple[int, int]:
        return self._transport.get_write_buffer_limits()

    def set_write_buffer_limits(self, high: int | None = None, low: int | None = None) -> None:
        self._transport.set_write_buffer_limits(high, low)


class CoalescingHttpToolsProtocol(HttpToolsProtocol):
    """uvicorn's httptools HTTP/1.1 protocol (`uvicorn.Config(http=…)`) writing through a CoalescingTransport."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(CoalescingTransport(transport, self.loop))
