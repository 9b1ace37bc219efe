"""An ASGI request body read whole, then handed on: middleware that must see the body before the app does."""

from __future__ import annotations

from gateway.guard import Message, Receive


async def read_body(receive: Receive) -> tuple[bytes, bool]:
    """The whole request body, and False when the client went away before sending it."""
    chunks: list[bytes] = []
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"", False
        chunks.append(message.get("body", b""))
        if not message.get("more_body", False):
            return b"".join(chunks), True


def replay(body: bytes, receive: Receive) -> Receive:
    """A receive() that hands the already-read body over once, then defers to the real one."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def again() -> Message:
        if pending:
            return pending.pop()
        return await receive()

    return again
