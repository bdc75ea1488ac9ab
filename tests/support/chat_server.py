"""A real chat-completions HTTP server on loopback for protocol tests (the paid model replaced,
the protocol kept): ``http.server.ThreadingHTTPServer`` on 127.0.0.1 with a random port.

Replies are scripted: a list consumed in request order (then ``default``), or a function of the
request body. Every request is recorded (path, headers, JSON body, arrival time) and the number of
requests in flight at once is tracked. The server shuts itself down after ``lifetime`` seconds
even if a test forgets to, and delays are bounded and interrupted by shutdown.
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    """One scripted response. ``content`` becomes the assistant message of a well-formed
    chat.completion; ``raw`` (bytes) replaces the whole body, for broken servers."""

    content: str | None = None
    status: int = 200
    delay: float = 0.0
    headers: dict[str, str] = field(default_factory=dict)
    raw: bytes | None = None
    prompt_tokens: int = 1000
    completion_tokens: int = 50


@dataclass
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict[str, Any]
    received: float

    def images(self) -> list[str]:
        """Data URLs of every image part, in order."""
        return [
            part["image_url"]["url"]
            for message in self.body["messages"]
            if isinstance(message.get("content"), list)
            for part in message["content"]
            if part.get("type") == "image_url"
        ]

    def text(self) -> str:
        """All text parts (and plain string contents) joined."""
        out = []
        for message in self.body["messages"]:
            content = message.get("content")
            if isinstance(content, str):
                out.append(content)
            else:
                out += [p["text"] for p in content if p.get("type") == "text"]
        return "\n".join(out)


def completion(content: str, model: str, reply: Reply) -> bytes:
    return json.dumps(
        {
            "id": "chatcmpl-test",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": reply.prompt_tokens,
                "completion_tokens": reply.completion_tokens,
                "total_tokens": reply.prompt_tokens + reply.completion_tokens,
            },
        }
    ).encode()


class ChatServer:
    """Use as a context manager; ``base_url`` ends in ``/v1`` like a vLLM server."""

    def __init__(
        self,
        replies: list[Reply] | Callable[[Recorded], Reply],
        default: Reply | None = None,
        lifetime: float = 60.0,
    ) -> None:
        self._script = list(replies) if isinstance(replies, list) else None
        self._fn = replies if callable(replies) else None
        self._default = default
        self.requests: list[Recorded] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler_class())
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.05,), daemon=True
        )
        self._timer = threading.Timer(lifetime, self.close)
        self._timer.daemon = True

    @property
    def port(self) -> int:
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> ChatServer:
        self._thread.start()
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._stop.is_set():
            return
        self._stop.set()
        self._timer.cancel()
        self._server.shutdown()
        self._server.server_close()

    def _next_reply(self, request: Recorded) -> Reply:
        if self._fn is not None:
            return self._fn(request)
        with self._lock:
            if self._script:
                return self._script.pop(0)
        if self._default is not None:
            return self._default
        return Reply(status=500, raw=b'{"error": "test script exhausted"}')

    def _handler_class(self) -> type[BaseHTTPRequestHandler]:
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format: str, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                length = int(self.headers.get("Content-Length", 0))
                body = json.loads(self.rfile.read(length) or b"{}")
                request = Recorded(self.path, dict(self.headers), body, time.monotonic())
                with server._lock:
                    server.requests.append(request)
                    server.in_flight += 1
                    server.max_in_flight = max(server.max_in_flight, server.in_flight)
                try:
                    reply = server._next_reply(request)
                    # Bounded and interruptible: a stopped server never holds a thread.
                    server._stop.wait(min(reply.delay, 30.0))
                finally:
                    # Counted out before answering: once the client has the answer it may send
                    # its next request, which must not overlap this one in the count.
                    with server._lock:
                        server.in_flight -= 1
                # The client may have given up (timeout tests): then nothing is answered.
                with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                    self._send(reply, body.get("model", ""))

            def _send(self, reply: Reply, model: str) -> None:
                if reply.raw is not None:
                    data = reply.raw
                elif reply.status == 200:
                    data = completion(reply.content or "", model, reply)
                else:
                    data = json.dumps({"error": {"message": f"scripted {reply.status}"}}).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

        return Handler
