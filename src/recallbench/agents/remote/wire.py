"""The policy wire format: openpi's msgpack-numpy, one msgpack message per binary WebSocket
message, so ``openpi_client`` and recallbench read each other's arrays.

An array is the map ``{b"__ndarray__": True, b"data": <raw bytes, C order>, b"dtype": "<u1",
b"shape": [224, 224, 3]}``, a numpy scalar ``{b"__npgeneric__": True, b"data": v, b"dtype": s}``
(openpi_client.msgpack_numpy). Everything decoded here comes from a peer and is untrusted:
openpi's own decoder builds whatever dtype the peer names (an object array of the peer's
pointers, a 1.5 GB void scalar from 30 bytes), so recallbench decodes with its own checks: bool,
integer and float dtypes only, a shape whose size matches the bytes (checked before any array
exists), a cap per message, per array, per container and in total items, a nesting depth, no
msgpack extension types (docs/remote-policy.md is the full protocol).
"""

from __future__ import annotations

import functools
import math
import warnings
from typing import Any

import msgpack
import numpy as np

# 2: the server speaks first (its metadata, as openpi servers do); requests are openpi
# observation dicts, the "type" messages of version 1 remain for LL policies and stats.
PROTOCOL_VERSION = 2
ARRAY_TAG, SCALAR_TAG = b"__ndarray__", b"__npgeneric__"
# One message may carry three 224x224 RGB images and the memory frames (a few MB); 64 MiB
# leaves room for depth maps and larger cameras while refusing a runaway peer. It is also every
# connection's ``max_size`` (openpi_client connects with none).
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# The most actions one chunk may hold, on both sides (openpi's models return 10 to 50)
MAX_HORIZON = 1024
MAX_ARRAY_BYTES = 32 * 1024 * 1024  # one array: 4096 x 2730 RGB
MAX_DIMS = 6
# Containers: msgpack builds a list of the declared length before its items arrive, and each
# small object costs ~40 bytes, so items are capped per container and in total (a message of
# empty lists would otherwise cost 60x its size).
MAX_CONTAINER_ITEMS = 65_536
MAX_ITEMS = 200_000
MAX_DEPTH = 16  # nested maps and lists
NUMERIC_KINDS = "biuf"
_LEAVES = (str, bytes, int, float, bool, type(None), np.ndarray, np.generic)


class WireError(ValueError):
    """A message that is not what the protocol allows: one line saying why."""


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
    raise WireError(f"array without {name!r}")


def _tagged(obj: dict[Any, Any], tag: bytes) -> bool:
    # openpi's decoder acts on the key's presence, whatever its value: so do these checks
    return tag in obj or tag.decode() in obj


def wire_dtype(name: Any) -> np.dtype:
    """A numeric dtype named by the peer (bool, int, uint, float; one value, no fields)."""
    if isinstance(name, bytes):
        name = name.decode("ascii", "replace")
    if not isinstance(name, str) or len(name) > 16:
        raise WireError(f"dtype {str(name)[:40]!r} is not a numeric dtype")
    return _numeric_dtype(name)


@functools.lru_cache(maxsize=256)  # a few names recur in every message; refusals not cached
def _numeric_dtype(name: str) -> np.dtype:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dtype = np.dtype(name)
    except Exception:
        raise WireError(f"dtype {name!r} is not a numpy dtype") from None
    if (dtype.kind not in NUMERIC_KINDS or dtype.fields is not None or dtype.subdtype is not None
            or dtype.hasobject):
        raise WireError(f"dtype {name!r} is not allowed on the wire (bool, int, uint, float only)")
    return dtype


def _array(obj: dict[Any, Any]) -> np.ndarray:
    dtype = wire_dtype(_field(obj, "dtype"))
    shape, data = _field(obj, "shape"), _field(obj, "data")
    if (not isinstance(shape, list) or len(shape) > MAX_DIMS
            or not all(type(n) is int and n >= 0 for n in shape)):
        raise WireError(f"array shape {str(shape)[:80]}: at most {MAX_DIMS} sizes >= 0")
    nbytes = math.prod(shape) * dtype.itemsize  # exact (Python integers), nothing allocated
    if nbytes > MAX_ARRAY_BYTES:
        raise WireError(f"array of shape {shape} and dtype {dtype}: {nbytes} bytes, over the "
                        f"{MAX_ARRAY_BYTES} limit")
    if not isinstance(data, bytes) or len(data) != nbytes:
        raise WireError(f"array of shape {shape} and dtype {dtype} does not match its bytes")
    return np.frombuffer(data, dtype=dtype).reshape(shape)  # a view: no copy


def _scalar(obj: dict[Any, Any]) -> np.generic:
    dtype = wire_dtype(_field(obj, "dtype"))
    data = _field(obj, "data")
    if dtype.kind == "b":
        ok = isinstance(data, bool) or (type(data) is int and data in (0, 1))
    elif dtype.kind in "iu":
        info = np.iinfo(dtype)
        ok = type(data) is int and info.min <= data <= info.max
    else:
        ok = type(data) in (int, float)
    if not ok:
        raise WireError(f"scalar {str(data)[:40]!r} does not fit dtype {dtype}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a float too big for float16 is inf, as in numpy
            return dtype.type(data)  # type: ignore[no-any-return]
    except (OverflowError, ValueError, TypeError) as exc:
        raise WireError(f"scalar {str(data)[:40]!r} does not fit dtype {dtype}: {exc}") from None


class _Budget:
    """msgpack's hooks, counting the items of every container built so far."""

    def __init__(self) -> None:
        self.items = 0

    def _count(self, n: int) -> None:
        self.items += n
        if self.items > MAX_ITEMS:
            raise WireError(f"more than {MAX_ITEMS} items in one message")

    def list_hook(self, value: list[Any]) -> list[Any]:
        self._count(len(value))
        return value

    def object_hook(self, obj: dict[Any, Any]) -> Any:
        self._count(len(obj))
        if _tagged(obj, ARRAY_TAG):
            return _array(obj)
        if _tagged(obj, SCALAR_TAG):
            return _scalar(obj)
        return obj


def _refuse_ext(code: int, data: bytes) -> Any:
    raise WireError(f"msgpack extension type {code} is not allowed")


def _check_shape(message: Any) -> None:
    """Nesting depth and leaf types (msgpack's Timestamp never reaches the ext hook)."""
    stack = [(message, 1)]
    while stack:
        value, depth = stack.pop()
        if isinstance(value, (dict, list)):
            if depth > MAX_DEPTH:
                raise WireError(f"maps and lists nested deeper than {MAX_DEPTH}")
            items = [*value.keys(), *value.values()] if isinstance(value, dict) else value
            stack.extend((v, depth + 1) for v in items if not isinstance(v, (str, int, float)))
        elif not isinstance(value, _LEAVES):
            raise WireError(f"a {type(value).__name__} value is not allowed")


def pack(message: Any) -> bytes:
    return msgpack.packb(message, default=_encode, use_bin_type=True)


def unpack(data: bytes | str, max_bytes: int = MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """A message as sent (a map); arrays come back read-only views over the received bytes.
    Anything else is a ``WireError`` (a ``ValueError``) saying why, in one line."""
    if isinstance(data, str):
        raise WireError("text message: the protocol sends binary msgpack messages only")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise WireError(f"a {type(data).__name__} is not a message")
    if len(data) > max_bytes:
        raise WireError(f"a message of {len(data)} bytes, over the {max_bytes} limit")
    budget = _Budget()
    try:
        message = msgpack.unpackb(
            data, raw=False, strict_map_key=True, object_hook=budget.object_hook,
            list_hook=budget.list_hook, ext_hook=_refuse_ext, max_bin_len=MAX_ARRAY_BYTES,
            max_str_len=max_bytes, max_array_len=MAX_CONTAINER_ITEMS,
            max_map_len=MAX_CONTAINER_ITEMS, max_ext_len=1024)
    except WireError:
        raise
    except Exception as exc:  # msgpack's own: truncated, extra data, too deep, bad UTF-8
        reason = str(exc).splitlines()[0][:200] if str(exc) else ""
        raise WireError(f"not a msgpack message ({type(exc).__name__}: {reason})") from None
    if not isinstance(message, dict):
        raise WireError(f"message is not a msgpack map (a {type(message).__name__})")
    _check_shape(message)
    return message
