"""A real WebSocket server on 127.0.0.1 that says whatever a test hands it: hand-built msgpack
bytes as its greeting (openpi's metadata) and as its replies, to attack a policy client."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Awaitable, Callable, Iterator
from typing import Any

from support.policy_server import free_port


@contextlib.contextmanager
def threaded_server(handler: Callable[[Any], Awaitable[None]],
                    max_size: int | None = None) -> Iterator[str]:
    """A real ``websockets`` server running ``handler`` per connection on its own thread;
    yields ``ws://127.0.0.1:PORT`` and stops it on exit."""
    from websockets.asyncio.server import serve

    ready = threading.Event()
    port = free_port()
    done: list[asyncio.Event] = []

    async def main() -> None:
        done.append(asyncio.Event())
        async with serve(handler, "127.0.0.1", port, compression=None, max_size=max_size):
            ready.set()
            await done[0].wait()

    loop = asyncio.new_event_loop()
    thread = threading.Thread(target=loop.run_until_complete, args=(main(),), daemon=True)
    thread.start()
    assert ready.wait(10), "the test server did not start"
    try:
        yield f"ws://127.0.0.1:{port}"
    finally:
        loop.call_soon_threadsafe(done[0].set)
        thread.join(10)


@contextlib.contextmanager
def hostile_server(greeting: bytes | str | None, reply: bytes | str | None = None,
                   max_size: int | None = None) -> Iterator[str]:
    """Yields ``ws://127.0.0.1:PORT``; every connection gets ``greeting`` (None: silence), then
    each request gets ``reply`` (None: silence)."""

    async def handler(ws):  # type: ignore[no-untyped-def]
        with contextlib.suppress(Exception):  # the client hanging up is its right
            if greeting is not None:
                await ws.send(greeting)
            async for _ in ws:
                if reply is not None:
                    await ws.send(reply)

    with threaded_server(handler, max_size) as url:
        yield url
