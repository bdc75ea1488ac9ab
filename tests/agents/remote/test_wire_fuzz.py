"""Fuzzing the policy wire (issue 35): generated msgpack-numpy messages (every numpy dtype code,
shapes that disagree with their bytes, huge declared sizes, deep nesting, extension types,
non-map messages, truncations) thrown at the client's decoder (replies and metadata, as the
runner's pre-check and the env workers read them) and at a real `recallbench serve-policy`.

What must hold: each message decodes or is refused in one line (``WireError``, a
``ProtocolError`` for a reply that is no chunk, an error text from the server); never a crash,
never an unexpected exception, memory bounded, seeded and bounded in count and time.
"""

from __future__ import annotations

import contextlib
import json
import random
import resource
import struct
import time
from typing import Any

import msgpack
import numpy as np

from recallbench.agents.remote.openpi_connection import ProtocolError, check_chunk
from recallbench.agents.remote.stored_metadata import stored_json
from recallbench.agents.remote.wire import WireError, pack, unpack
from support.policy_server import free_port, start_server, stop

SEED = 35
MESSAGES = 300
VOID_BOMB = 1_500_000_000
# every numpy type character, and the spellings a peer may send instead
DTYPES = [*np.typecodes["All"], "V8", "|V1", "|O", "O8", "(2,)f8", "f8,i4", "<M8[ns]", "U5",
          "S3", "a", "c", "float32", "<f8", ">i4", "|b1", "f" * 40, "", "xx", "int", "object",
          "[('a', '<f8')]"]
SCALARS = [VOID_BOMB, -1, 0, 1, 2**64 - 1, -(2**63), 1.5, float("nan"), "nan", b"x", None, True,
           [1], {"a": 1}]


def _shape(rng: random.Random, count: int) -> object:
    return rng.choice([
        [count], [count, 1], [count + 1], [rng.randrange(0, 2**31), rng.randrange(0, 2**31)],
        [2**63 - 1], [-1], [1] * rng.randrange(0, 12), [True], ["3"], 3, None, [1.5], {},
    ])


def _array_map(rng: random.Random) -> dict:
    dtype = rng.choice(DTYPES)
    data = bytes(rng.randrange(256) for _ in range(rng.choice([0, 1, 8, 16, 24, 64])))
    one_char = len(dtype) == 1 and dtype in np.typecodes["All"]
    itemsize = max(1, np.dtype(dtype).itemsize) if one_char else 8
    raw: object = data if rng.random() < 0.9 else rng.choice(["text", 7, None, [1, 2]])
    key = rng.choice([b"__ndarray__", "__ndarray__"])
    return {key: rng.choice([True, True, False, 1]), "data": raw,
            "dtype": dtype if rng.random() < 0.95 else rng.choice([7, None, b"<f8", [1]]),
            "shape": _shape(rng, len(data) // itemsize)}


def _scalar_map(rng: random.Random) -> dict:
    return {rng.choice([b"__npgeneric__", "__npgeneric__"]): True,
            "data": rng.choice(SCALARS), "dtype": rng.choice(DTYPES)}


def _deep(rng: random.Random) -> bytes:
    n = rng.choice([1, 15, 17, 100, 1000, 1100, 5000])
    inner = rng.choice([b"\x91", b"\x81\xa1a"])
    return b"\x81\xa7actions" + inner * n + b"\xc0"


def _huge_header(rng: random.Random) -> bytes:
    """A container or string declaring far more than follows."""
    code = rng.choice([b"\xdd", b"\xdf", b"\xdb", b"\xc6", b"\xc9"])
    size = rng.choice([2**32 - 1, 2**31, 10**8, 70_000])
    body = struct.pack(">I", size) + (b"\x01" if code == b"\xc9" else b"") + b"\x00" * 16
    return b"\x81\xa1x" + code + body


def _ext(rng: random.Random) -> bytes:
    if rng.random() < 0.3:  # msgpack's own timestamp (type -1), which skips the ext hook
        return msgpack.packb({"t": msgpack.Timestamp(rng.randrange(2**32))})
    return b"\x81\xa1e\xd6" + struct.pack("b", rng.randrange(-128, 128)) + b"\0" * 4


def hostile(rng: random.Random) -> bytes:
    """One generated message."""
    kind = rng.randrange(10)
    if kind in (0, 1, 2):
        body = {"actions": _array_map(rng)}
        if rng.random() < 0.3:
            body = {"meta": {"nested": [body]}}
        return msgpack.packb(body, use_bin_type=True)
    if kind == 3:
        return msgpack.packb(rng.choice([{"actions": _scalar_map(rng)}, _scalar_map(rng)]),
                             use_bin_type=True)
    if kind == 4:
        return _deep(rng)
    if kind == 5:
        return _huge_header(rng)
    if kind == 6:
        return _ext(rng)
    if kind == 7:
        return msgpack.packb(rng.choice([1, [1, 2], "text", b"bin", None, 1.5, [[{}]]]))
    if kind == 8:
        good = pack({"actions": np.ones((rng.randrange(1, 8), 2), np.float32)})
        return good if rng.random() < 0.3 else good[: rng.randrange(len(good))]
    return bytes(rng.randrange(256) for _ in range(rng.randrange(0, 200)))


def _messages() -> list[bytes]:
    rng = random.Random(SEED)
    return [hostile(rng) for _ in range(MESSAGES)]


def _max_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def test_the_client_decoder_refuses_in_one_line_or_decodes() -> None:
    start, rss = time.monotonic(), _max_rss_mb()
    decoded = 0
    for i, data in enumerate(_messages()):
        try:
            message = unpack(data)
        except WireError as exc:
            assert "\n" not in str(exc) and len(str(exc)) < 500, (i, str(exc)[:500])
            continue
        decoded += 1
        json.dumps(stored_json(message), allow_nan=False)  # what the manifest would keep
        try:
            chunk = check_chunk(message, 2)
        except ProtocolError as exc:
            assert "\n" not in str(exc), (i, str(exc))
        else:
            assert chunk.dtype == np.float64 and chunk.shape[1] == 2
    assert 0 < decoded < MESSAGES  # the generator makes both kinds
    assert _max_rss_mb() - rss < 200
    assert time.monotonic() - start < 10


def test_serve_policy_answers_every_hostile_message_and_stays_up() -> None:
    from websockets.exceptions import ConnectionClosed
    from websockets.sync.client import connect

    port = free_port()
    server = start_server("Idle", port)
    url, answered, reconnects = f"ws://127.0.0.1:{port}", 0, 0

    def connected(stack: contextlib.ExitStack) -> Any:
        ws = stack.enter_context(connect(url, compression=None, max_size=None))
        unpack(ws.recv(timeout=10))  # its metadata
        return ws

    try:
        with contextlib.ExitStack() as stack:
            ws = connected(stack)
            for i, data in enumerate(_messages()):
                try:
                    ws.send(data)
                    reply = ws.recv(timeout=10)
                except ConnectionClosed:  # allowed, but the server must still be there
                    reconnects += 1
                    assert server.poll() is None, f"message {i} ended the server"
                    ws = connected(stack)
                    continue
                answered += 1
                if isinstance(reply, str):
                    assert "\n" not in reply.strip() and len(reply) < 5000, (i, reply[:500])
                else:
                    unpack(reply)  # a real answer: an action chunk
        assert server.poll() is None
        with open(f"/proc/{server.pid}/status") as f:
            peak = next(int(line.split()[1]) for line in f if line.startswith("VmHWM"))
    finally:
        stop(server)
    stderr = server.stderr.read() if server.stderr else ""
    assert "Traceback" not in stderr, stderr[-3000:]
    assert answered >= MESSAGES - 5 and reconnects <= 5
    assert peak / 1024 < 1000  # MB: the server's whole peak, its imports included
