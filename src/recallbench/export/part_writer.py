"""One long-lived child process per worker, with a fixed string-hash seed, that writes LeRobot
parts one day after another (the function it calls is named by the caller, ``module:attr``:
``lerobot_format`` names its ``write_part``, so this module imports no writer).

LeRobot lists an episode's tasks through ``set()``, whose order (and so each ``task_index`` and
the episode's ``tasks`` list) follows the process's string hash seed: a part is written where that
seed is fixed, so every worker and shard writes the same bytes. The child used to be started per
day, paying LeRobot's import (torch, datasets: about 10 CPU seconds on a loaded core) every time;
now a worker starts it once and sends it days over its stdin. It ends when its stdin closes (the
worker ends), after the day in hand.
"""

from __future__ import annotations

import atexit
import json
import os
import subprocess
import sys
from typing import IO, Any

_child: subprocess.Popen[str] | None = None


def _started() -> subprocess.Popen[str]:
    global _child
    if _child is None or _child.poll() is not None:
        _child = subprocess.Popen(
            [sys.executable, "-m", __name__], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,  # encoder chatter; a day's error comes back in its reply
            text=True, env={**os.environ, "PYTHONHASHSEED": "0"})
        atexit.register(_stop, _child)
    return _child


def _stop(child: subprocess.Popen[str]) -> None:
    """At the worker's exit: the child sees its stdin close and ends; waited for, so its CPU
    time counts in the worker's (the bench measures it so)."""
    if child.stdin is not None:
        child.stdin.close()
    try:
        child.wait(timeout=60)
    except subprocess.TimeoutExpired:
        child.kill()
        child.wait()


def write_in_fixed_seed(writer: str, args: list[Any]) -> None:
    """``writer(*args)`` in the child (``writer``: ``module:attr``, ``args`` JSON values); its
    error raised here as one line."""
    global _child
    child = _started()
    assert child.stdin is not None and child.stdout is not None
    try:
        child.stdin.write(json.dumps([writer, args]) + "\n")
        child.stdin.flush()
        line = child.stdout.readline()
    except BrokenPipeError:
        line = ""
    if not line:  # killed or crashed: the next day starts a new one
        code = child.wait()
        _child = None
        raise RuntimeError(f"the LeRobot part writer ended (exit code {code})")
    error = json.loads(line).get("error")
    if error:
        raise RuntimeError(error)


def _serve(replies: IO[str]) -> None:
    from recallbench.loader import load_attr

    for line in sys.stdin:
        writer, args = json.loads(line)
        try:
            load_attr(writer)(*args)
            reply: dict[str, str] = {}
        except Exception as exc:  # the day fails, the writer goes on
            reply = {"error": f"{type(exc).__name__}: {exc}"}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()


if __name__ == "__main__":
    out = os.fdopen(os.dup(1), "w")  # replies only: what libraries print goes to stderr
    os.dup2(2, 1)
    _serve(out)
    # stdin closed: the worker is ending and waits for us (its executor gives it 2 s); torch's
    # teardown can take longer on a loaded machine, and there is nothing left to write
    os._exit(0)
