"""Handlers for executor tests, imported by name inside spawned worker processes."""

from __future__ import annotations

import atexit
import os
import signal
import time
from typing import Any


def _note_exit(path: str) -> None:
    with open(path, "a") as f:
        f.write(f"exit {os.getpid()}\n")


def work(payload: dict[str, Any]) -> dict[str, Any]:
    """Does what the payload asks: compute, sleep, raise, or kill its own process; with
    ``calls`` (a file) it first appends its ``x`` there, so a test sees what ran how often."""
    action = payload.get("do", "square")
    if "calls" in payload:
        with open(payload["calls"], "a") as f:
            f.write(f"{payload['x']}\n")
    if action == "sleep":
        time.sleep(payload["seconds"])
    elif action == "raise":
        raise ValueError(f"bad payload {payload['x']}")
    elif action == "exit":
        os._exit(7)
    elif action == "sigkill":  # as the kernel's OOM killer would
        os.kill(os.getpid(), signal.SIGKILL)
    elif action == "atexit":  # cleanup an agent registers: it runs when the worker stops
        atexit.register(_note_exit, payload["file"])
    elif action == "nan":  # not strict JSON: fails this task in the worker, never the runner
        return {"x": payload["x"], "square": float("nan")}
    elif action == "numpy":  # numpy values are plain numbers underneath: sent as such
        import numpy as np

        return {"x": payload["x"], "square": np.int64(payload["x"] ** 2), "v": np.arange(3)}
    elif action == "print":  # chatter, as a simulator's: the worker's spool, then the run's log
        print(payload.get("text", f"chatter from task {payload.get('x')}"), flush=True)
    return {"x": payload["x"], "square": payload["x"] ** 2, "pid": os.getpid()}


def environment(payload: dict[str, Any]) -> dict[str, Any]:
    """The worker's pid and the environment variables the payload names (None: unset)."""
    print(f"environment {payload.get('x')} in {os.getpid()}", flush=True)
    return {"pid": os.getpid(), "env": {k: os.environ.get(k) for k in payload.get("names", [])}}
