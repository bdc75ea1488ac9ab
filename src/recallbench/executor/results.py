"""How a worker's result crosses to the runner: strict JSON text, never a pickle.

An agent's return value is arbitrary Python (an object with ``__reduce__``, a ``str`` subclass, an
integer of 10,000 digits, NaN). Converted in the worker, anything that is not plain JSON fails
that task there, with the reason; the runner only ever decodes JSON, so nothing an agent returns
can run code in the runner or crash it.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

# The longest error text a task records (an exception's message may be megabytes of a model's
# reply): the run log keeps it for every case, and `score`/`view` read it back each time.
ERROR_CAP = 2000


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
