"""What a local worker process and the driver say to each other, and how the driver reads it.

Driver to worker (trusted: its own tasks): a pickled list of ``(key, payload)``, or None to stop.
Worker to driver: JSON only, one message per finished task as it ends, so nothing a handler
returns can run code in the driver: ``["ready", pid]`` once, then ``["done", key, error, wall
seconds, value]`` where ``value`` is the handler's result as strict JSON (``results``).

The driver reads a worker's socket directly, every whole message waiting in one system call
(``FrameReader``), instead of one ``recv_bytes`` and one ``poll`` per message: a cheap task's
result then costs the driver a few microseconds to receive. The frames are multiprocessing's
(``Connection.send_bytes``): a 4-byte big-endian length, or -1 and an 8-byte length.
"""

from __future__ import annotations

import json
import os
import struct
from typing import Any

from recallbench.executor.results import RESULT_CAP, cap_result, decode_result, encode_result

# The most one read takes from a worker's socket; what does not fit waits for the next read.
READ_BYTES = 1 << 20


def ready_message(pid: int) -> bytes:
    return json.dumps(["ready", pid]).encode()


def done_message(key: str, value: Any, error: str | None, wall: float) -> bytes:
    """The whole message encoded at once (``results.encode_result``); a ``value`` that is not
    strict JSON is sent as null, with why as the task's error, one over ``RESULT_CAP`` cut."""
    text, unencodable = encode_result(["done", key, error, wall, value])
    if unencodable is None and len(text) <= RESULT_CAP:  # nearly always: no second pass
        return text.encode()
    if unencodable is None:  # over the cap: the value cut to fit (``cap_result``)
        value_text, unencodable = cap_result(value, encode_result(value)[0])
        if unencodable is None:
            head = json.dumps(["done", key, error, wall, None])[:-5]
            return f"{head}{value_text}]".encode()
    return json.dumps(["done", key, unencodable, wall, None]).encode()


def decode_message(data: bytes) -> list[Any]:
    """["ready", pid] or ["done", key, value, error, wall]; ValueError for anything else."""
    msg = decode_result(data)
    if isinstance(msg, list) and len(msg) == 2 and msg[0] == "ready":
        return msg
    if not (isinstance(msg, list) and len(msg) == 5 and msg[0] == "done"
            and isinstance(msg[1], str) and isinstance(msg[2], (str, type(None)))
            and isinstance(msg[3], (int, float)) and not isinstance(msg[3], bool)):
        raise ValueError("not a worker message")
    return ["done", msg[1], msg[4], msg[2], float(msg[3])]


class FrameReader:
    """The whole messages a worker has written so far, from its socket's file descriptor."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._buf = bytearray()

    def read(self) -> list[bytes] | None:
        """Every message now complete (one read; call when the descriptor is readable), or None
        when the worker closed its end (a message it was writing is then lost with it)."""
        data = os.read(self.fd, READ_BYTES)
        if not data:
            return None
        buf = self._buf
        buf += data
        out: list[bytes] = []
        pos = 0
        while len(buf) - pos >= 4:
            (size,) = struct.unpack_from("!i", buf, pos)
            head = 4
            if size == -1:
                if len(buf) - pos < 12:
                    break
                (size,) = struct.unpack_from("!Q", buf, pos + 4)
                head = 12
            elif size < 0:
                raise ValueError("a bad frame length")
            if len(buf) - pos - head < size:
                break
            out.append(bytes(buf[pos + head:pos + head + size]))
            pos += head + size
        del buf[:pos]
        return out
