"""The policy wire format: openpi's msgpack-numpy, one msgpack message per binary WebSocket
message, so ``openpi_client`` and recallbench read each other's arrays.

An array is the map ``{b"__ndarray__": True, b"data": <raw bytes, C order>, b"dtype": "<u1",
b"shape": [224, 224, 3]}``, a numpy scalar ``{b"__npgeneric__": True, b"data": v, b"dtype": s}``
(openpi_client.msgpack_numpy). Decoding checks what openpi's own decoder trusts: only bool,
integer and float dtypes, a shape whose size matches the bytes, a bounded number of dimensions
(docs/remote-policy.md is the full protocol).
"""

from __future__ import annotations

import math
from typing import Any

import msgpack
import numpy as np

# 2: the server speaks first (its metadata, as openpi servers do); requests are openpi
# observation dicts, the "type" messages of version 1 remain for LL policies and stats.
PROTOCOL_VERSION = 2
ARRAY_TAG, SCALAR_TAG = b"__ndarray__", b"__npgeneric__"
# One message may carry three 224x224 RGB images and the memory frames (a few MB); 64 MiB
# leaves room for depth maps and larger cameras while refusing a runaway peer.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
MAX_DIMS = 6
NUMERIC_KINDS = "biuf"


def _encode(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        if value.dtype.kind not in NUMERIC_KINDS:  # object arrays' bytes would be pointers
            raise TypeError(f"arrays of dtype {value.dtype} cannot be sent to a policy")
        array = np.ascontiguousarray(value)
        return {ARRAY_TAG: True, b"data": array.tobytes(), b"dtype": array.dtype.str,
                b"shape": list(array.shape)}
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot send {type(value).__name__} to a policy")


def _field(obj: dict[Any, Any], name: str) -> Any:
    for key in (name.encode(), name):
        if key in obj:
            return obj[key]
    raise ValueError(f"array without {name!r}")


def _decode(obj: dict[Any, Any]) -> Any:
    if obj.get(ARRAY_TAG) is True or obj.get(ARRAY_TAG.decode()) is True:
        dtype = np.dtype(str(_field(obj, "dtype")))
        if dtype.kind not in NUMERIC_KINDS:
            raise ValueError(f"arrays of dtype {dtype} are not allowed on the wire")
        shape = _field(obj, "shape")
        data = _field(obj, "data")
        if (not isinstance(shape, (list, tuple)) or len(shape) > MAX_DIMS
                or not all(isinstance(n, int) and n >= 0 for n in shape)):
            raise ValueError(f"array shape {shape!r}: at most {MAX_DIMS} sizes >= 0")
        if not isinstance(data, bytes) or len(data) != math.prod(shape) * dtype.itemsize:
            raise ValueError(f"array of shape {list(shape)} and dtype {dtype} does not match "
                             "its bytes")
        return np.frombuffer(data, dtype=dtype).reshape(shape)
    if obj.get(SCALAR_TAG) is True or obj.get(SCALAR_TAG.decode()) is True:
        dtype = np.dtype(str(_field(obj, "dtype")))
        if dtype.kind not in NUMERIC_KINDS:
            raise ValueError(f"scalars of dtype {dtype} are not allowed on the wire")
        return dtype.type(_field(obj, "data"))
    return obj


def pack(message: Any) -> bytes:
    return msgpack.packb(message, default=_encode, use_bin_type=True)


def unpack(data: bytes | str) -> dict[str, Any]:
    """A message as sent (a map); arrays come back read-only views over the received bytes."""
    if isinstance(data, str):
        raise ValueError("text message: the protocol sends binary msgpack messages only")
    message = msgpack.unpackb(data, object_hook=_decode, raw=False)
    if not isinstance(message, dict):
        raise ValueError("message is not a msgpack map")
    return message
