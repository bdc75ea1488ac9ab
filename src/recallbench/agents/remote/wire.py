"""The remote-policy wire format: one msgpack map per binary WebSocket message.

numpy arrays travel as maps ``{"__ndarray__": true, "dtype": "<u1", "shape": [256, 256, 3],
"data": <raw bytes, C order>}`` so any language with msgpack can read them; docs/remote-policy.md
is the full protocol.
"""

from __future__ import annotations

from typing import Any

import msgpack
import numpy as np

PROTOCOL_VERSION = 1
ARRAY_TAG = "__ndarray__"
# One message may carry three 256x256 RGB images (~200 KB); 64 MiB leaves room for depth maps
# and larger cameras while refusing a runaway peer.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024


def _encode(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:  # its bytes would be pointers
            raise TypeError("object arrays cannot be sent to a remote policy")
        array = np.ascontiguousarray(value)
        return {ARRAY_TAG: True, "dtype": array.dtype.str, "shape": list(array.shape),
                "data": array.tobytes()}
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"cannot send {type(value).__name__} to a remote policy")


def _decode(obj: dict[str, Any]) -> Any:
    if obj.get(ARRAY_TAG) is True:
        dtype = np.dtype(obj["dtype"])
        if dtype.hasobject:
            raise ValueError("object arrays are not allowed on the wire")
        return np.frombuffer(obj["data"], dtype=dtype).reshape(obj["shape"])
    return obj


def pack(message: dict[str, Any]) -> bytes:
    return msgpack.packb(message, default=_encode, use_bin_type=True)


def unpack(data: bytes | str) -> dict[str, Any]:
    """A message as sent; arrays come back read-only views over the received bytes."""
    if isinstance(data, str):
        raise ValueError("text message: the protocol sends binary msgpack messages only")
    message = msgpack.unpackb(data, object_hook=_decode, raw=False)
    if not isinstance(message, dict) or "type" not in message:
        raise ValueError("message is not a msgpack map with a 'type'")
    return message
