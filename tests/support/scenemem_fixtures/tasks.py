"""Handlers for executor tests, imported by name inside spawned worker processes."""

from __future__ import annotations

import os
import time
from typing import Any


def work(payload: dict[str, Any]) -> dict[str, Any]:
    """Does what the payload asks: compute, sleep, raise, or kill its own process."""
    action = payload.get("do", "square")
    if action == "sleep":
        time.sleep(payload["seconds"])
    elif action == "raise":
        raise ValueError(f"bad payload {payload['x']}")
    elif action == "exit":
        os._exit(7)
    return {"x": payload["x"], "square": payload["x"] ** 2, "pid": os.getpid()}
