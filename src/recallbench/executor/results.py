"""How a worker's result crosses to the driver: strict JSON text, never a pickle.

An agent's return value is arbitrary Python (an object with ``__reduce__``, a ``str`` subclass, an
integer of 10,000 digits, NaN). Converted in the worker, anything that is not plain JSON fails
that task there, with the reason; the driver only ever decodes JSON, so nothing an agent returns
can run code in the driver or crash it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import numpy as np

# The longest error text a task records (an exception's message may be megabytes of a model's
# reply): the run log keeps it for every case, and `score`/`view` read it back each time.
ERROR_CAP = 2000
# The longest text one case keeps (a model's reply: FindingDory's ``response``), and what one
# task's whole result may take in the run log: the 4 MiB text and 1 MiB for everything else
# (``cap_result`` cuts the longest strings of a result over it, each with a note).
STORED_TEXT_CAP = 4 * 1024 * 1024
RESULT_CAP = STORED_TEXT_CAP + 1024 * 1024


def cut_text(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters and a note of how many were cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... [cut: {len(text) - limit} more characters]"


def _numpy(value: Any) -> Any:
    # numpy scalars and arrays are plain numbers underneath; nothing else is converted.
    if isinstance(value, (np.ndarray, np.generic)):
        return value.tolist()
    raise TypeError(f"{type(value).__name__} is not JSON")


# Built once: ``json.dumps`` with these options builds a new encoder per call, about a
# microsecond of the four that encoding a cheap task's result takes.
_STRICT = json.JSONEncoder(allow_nan=False, default=_numpy)


def encode_result(value: Any) -> tuple[str, str | None]:
    """(JSON text of ``value``, None), or ("null", why it is not strict JSON)."""
    try:
        return _STRICT.encode(value), None
    except (TypeError, ValueError, RecursionError) as exc:  # ValueError: NaN, huge integers
        reason = str(exc).split(";")[0][:200]
        return "null", f"the handler's result is not strict JSON ({type(exc).__name__}: {reason})"


def decode_result(text: str | bytes) -> Any:
    """The value a worker encoded; ValueError when the text is not what ``encode_result`` makes."""
    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("result nested too deeply") from None


def cap_result(value: Any, text: str, cap: int = RESULT_CAP) -> tuple[str, str | None]:
    """``(text, None)`` when the encoded result ``text`` fits ``cap``; else the result with its
    error texts (keys ``error``, ``*_error``) cut to ``ERROR_CAP`` and its longest strings cut
    to one common length, each with a note, so it fits. A result whose bulk is not text (a
    million numbers) is ``("null", why)``: its task fails, saying so."""
    if len(text) <= cap:
        return text, None
    try:
        strings = _strings(value)
        sizes = [len(_STRICT.encode(s)) for _, s in strings]
        other = len(text) - sum(sizes)
        # error texts count as cut already; the rest share what is left
        lengths = sorted((min(n, ERROR_CAP + 64) if _is_error(key) else n
                          for (key, _), n in zip(strings, sizes, strict=True)), reverse=True)
        level = _water_level(lengths, cap - other - 64 * len(lengths))
        if level is not None:
            fit = level

            def cut(s: str, key: str) -> str:
                return _cut_encoded(cut_text(s, ERROR_CAP) if _is_error(key) else s, fit)

            text = _STRICT.encode(_rebuilt(value, cut))
    except (TypeError, ValueError, RecursionError):  # encoded once already: not expected
        level = None
    if level is None or len(text) > cap:
        return "null", f"the handler's result is over the {cap}-byte cap and not mostly text"
    return text, None


def _is_error(key: str) -> bool:
    return key == "error" or key.endswith("_error")


def _water_level(lengths: list[int], budget: int) -> int | None:
    """The largest length L with sum(min(n, L)) <= budget (``lengths`` sorted, longest first),
    or None when even the short strings do not fit."""
    if budget < 0:
        return None
    rest = sum(lengths)
    for i, n in enumerate(lengths):  # strings i.. are cut to L <= n
        rest -= n
        level = (budget - rest) // (i + 1)
        nxt = lengths[i + 1] if i + 1 < len(lengths) else 0
        if level >= nxt:
            return min(n, max(0, level))
    return None


def _cut_encoded(text: str, limit: int) -> str:
    if len(text) <= limit // 6:  # no character encodes to more than 6
        return text
    encoded = len(_STRICT.encode(text))
    if encoded <= limit:
        return text
    return cut_text(text, max(0, len(text) * limit // encoded - 64))


def _strings(value: Any) -> list[tuple[str, str]]:
    """Every string value with the key it is under ("" in a top-level list)."""
    stack: list[tuple[str, Any]] = [("", value)]
    out = []
    while stack:
        key, item = stack.pop()
        if isinstance(item, str):
            out.append((key, item))
        elif isinstance(item, dict):
            stack.extend((str(k), v) for k, v in item.items())
        elif isinstance(item, (list, tuple)):
            stack.extend((key, v) for v in item)
    return out


def _rebuilt(value: Any, cut: Callable[[str, str], str], key: str = "") -> Any:
    if isinstance(value, str):
        return cut(value, key)
    if isinstance(value, dict):
        return {k: _rebuilt(v, cut, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_rebuilt(v, cut, key) for v in value]
    return value
