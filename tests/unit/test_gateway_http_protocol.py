"""gateway/http_protocol.py: a small write waits for the next one (a response head for its body) or for the end of the
loop turn; nothing is lost, reordered or held past the turn. Real sockets and a real event loop."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager

import pytest
import uvloop

from gateway.http_protocol import HOLD_BYTES, CoalescingTransport

# `python -m gateway` serves on uvloop when it is installed and on asyncio's own loop otherwise: both are tested.
LOOPS = pytest.mark.parametrize(
    "loop_factory", [uvloop.new_event_loop, asyncio.new_event_loop], ids=["uvloop", "asyncio"]
)
LoopFactory = Callable[[], asyncio.AbstractEventLoop]


def run(loop_factory: LoopFactory, test: Callable[[], Awaitable[None]]) -> None:
    with asyncio.Runner(loop_factory=loop_factory) as runner:
        runner.run(test())  # type: ignore[arg-type]


HEAD = b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 15\r\n\r\n"
BODY = b'{"status":"ok"}'


@asynccontextmanager
async def connected() -> AsyncIterator[tuple[CoalescingTransport, socket.socket]]:
    """A CoalescingTransport over one end of a real socket pair; the other end for reading (non-blocking)."""
    ours, theirs = socket.socketpair()
    theirs.setblocking(False)
    loop = asyncio.get_running_loop()
    # (uvloop's transports are not asyncio.Transport subclasses, but have its interface, as uvicorn relies on.)
    transport, _ = await loop.connect_accepted_socket(asyncio.Protocol, ours)
    try:
        yield CoalescingTransport(transport, loop), theirs
    finally:
        transport.abort()
        theirs.close()


def arrived(sock: socket.socket, settle_s: float = 0.05) -> bytes:
    """Everything readable on `sock` now, after letting the kernel deliver (blocks the loop on purpose: no turn
    ends while it waits)."""
    time.sleep(settle_s)
    chunks = []
    while True:
        try:
            chunk = sock.recv(1 << 20)
        except BlockingIOError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


async def next_turns(n: int = 3) -> None:
    for _ in range(n):
        await asyncio.sleep(0)


@LOOPS
def test_head_waits_for_its_body_and_both_leave_together(loop_factory: LoopFactory) -> None:
    async def body() -> None:
        async with connected() as (transport, peer):
            transport.write(HEAD)
            assert arrived(peer) == b""  # held within the turn
            transport.write(BODY)
            assert arrived(peer) == HEAD + BODY  # sent by the body's write, before the turn ends

    run(loop_factory, body)


@LOOPS
def test_a_lone_write_leaves_when_the_turn_ends(loop_factory: LoopFactory) -> None:
    async def body() -> None:
        async with connected() as (transport, peer):
            transport.write(b"HTTP/1.1 100 Continue\r\n\r\n")
            await next_turns()
            assert arrived(peer) == b"HTTP/1.1 100 Continue\r\n\r\n"

    run(loop_factory, body)


@LOOPS
def test_a_stream_keeps_its_order_and_holds_at_most_one_write(loop_factory: LoopFactory) -> None:
    async def body() -> None:
        async with connected() as (transport, peer):
            chunks = [f"data: {n}\n\n".encode() for n in range(7)]
            for chunk in chunks:
                transport.write(chunk)
            assert transport.get_write_buffer_size() <= len(chunks[-1])
            await next_turns()
            assert arrived(peer) == b"".join(chunks)

    run(loop_factory, body)


@LOOPS
def test_large_writes_are_not_held(loop_factory: LoopFactory) -> None:
    async def body() -> None:
        async with connected() as (transport, peer):
            big = b"x" * (HOLD_BYTES + 1)
            transport.write(big)
            received = arrived(peer)
            assert received and big.startswith(received)  # on its way without waiting for the turn
            await next_turns()
            received += arrived(peer)
            assert received == big

    run(loop_factory, body)


@LOOPS
def test_close_sends_what_is_held_and_abort_drops_it(loop_factory: LoopFactory) -> None:
    async def body() -> None:
        async with connected() as (transport, peer):
            transport.write(HEAD)
            transport.close()
            await next_turns()
            assert arrived(peer) == HEAD
            assert transport.is_closing()
        async with connected() as (transport, peer):
            transport.write(HEAD)
            transport.abort()
            await next_turns()
            assert arrived(peer) == b""

    run(loop_factory, body)


@LOOPS
def test_empty_writes_and_writes_after_close_are_ignored(loop_factory: LoopFactory) -> None:
    async def body() -> None:
        async with connected() as (transport, peer):
            transport.write(b"")
            transport.write(HEAD)
            transport.write(memoryview(BODY))
            transport.close()
            transport.write(b"late")
            await next_turns()
            assert arrived(peer) == HEAD + BODY

    run(loop_factory, body)
