"""What a request to recallbench's policy server may hold (``check_request``), checked before
any policy sees it or a batch takes it: a server is reachable by any client on its port."""

from __future__ import annotations

from typing import Any

import numpy as np

from recallbench.agents.remote.policy_contract import MAX_ACTION_DIM

MAX_TEXT = 100_000  # characters of a prompt or path
MAX_DEPTH = 4  # nested maps in a request


class BadRequest(ValueError):
    """A request the server refuses before any policy sees it."""


def check_request(obs: Any, depth: int = 0) -> None:
    """Keys are strings; values are numeric arrays, numbers, strings, lists of strings or maps
    of the same (openpi requests nest); ``recallbench/step`` an integer >= 0 and
    ``recallbench/action_dim`` one in 1..MAX_ACTION_DIM (sizes and dtypes of arrays were
    checked while decoding)."""
    if not isinstance(obs, dict):
        raise BadRequest(f"a request is a map, not {type(obs).__name__}")
    if depth > MAX_DEPTH:
        raise BadRequest(f"maps nested deeper than {MAX_DEPTH}")
    for key, value in obs.items():
        if not isinstance(key, str):
            raise BadRequest(f"key {key!r} is not a string")
        if isinstance(value, dict):
            check_request(value, depth + 1)
        elif isinstance(value, str):
            if len(value) > MAX_TEXT:
                raise BadRequest(f"{key}: text of {len(value)} characters")
        elif isinstance(value, list):
            if len(value) > 64 or not all(isinstance(v, str) and len(v) <= MAX_TEXT
                                          for v in value):
                raise BadRequest(f"{key}: a list holds at most 64 strings")
        elif not isinstance(value, (np.ndarray, np.generic, int, float, bool)):
            raise BadRequest(f"{key}: a {type(value).__name__} value")
    for key, low, high in (("recallbench/step", 0, 2**31), ("recallbench/seed", 0, 2**32),
                           ("recallbench/action_dim", 1, MAX_ACTION_DIM)):
        if key in obs:
            value = obs[key]
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
                    or not low <= int(value) <= high:
                raise BadRequest(f"{key} must be an integer in {low}..{high}, got {value!r}")
