"""Handlers that do what careless agents do (start processes that outlive them, return megabytes
of text), for the executor's tests; imported by name inside spawned worker processes."""

from __future__ import annotations

import os
import subprocess
import time
from typing import Any


def spawn(payload: dict[str, Any]) -> dict[str, Any]:
    """Starts ``setsid sleep 1000`` (its own session and group: out of the worker's group), a
    plain child, and a forked grandchild that calls setsid itself; writes their pids to
    ``payload["pids"]``; then ends as the payload says: return, hang, or exit the worker."""
    detached = subprocess.Popen(["setsid", "sleep", "1000"])
    plain = subprocess.Popen(["sleep", "1000"])
    pid = os.fork()
    if pid == 0:  # a daemon the classic way: fork, setsid, live on without exec
        os.setsid()
        time.sleep(1000)
        os._exit(0)
    with open(payload["pids"], "a") as f:
        f.write(f"{detached.pid} {plain.pid} {pid}\n")
    time.sleep(0.3)  # setsid has run in the child
    if payload.get("then") == "hang":
        time.sleep(600)
    elif payload.get("then") == "exit":
        os._exit(3)
    return {"x": payload.get("x", 0)}


def big_result(payload: dict[str, Any]) -> dict[str, Any]:
    """A record as a careless agent makes it: a ``payload["mib"]`` MiB error text and as much
    info, beside the small fields a score needs."""
    text = "e" * (payload["mib"] << 20)
    return {"record": {"frame_indices": [1, 2], "response": "Frame 1",
                       "info": {"trace": "i" * (payload["mib"] << 20), "steps": 3},
                       "agent_error": text}, "error": text}
