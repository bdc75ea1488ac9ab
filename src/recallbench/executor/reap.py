"""Ending what a worker started: every process a worker's agent or policy started goes with it.

A worker runs in its own process group, and the executor kills that group; but a child that
calls ``setsid`` (a daemon, ``setsid sleep 1000``) leaves the group, and once the worker is gone
it is no longer anyone's descendant either. So each worker starts with a token of its own in its
environment, which every process it starts inherits (through fork and exec alike), and when the
worker ends the executor kills every process whose starting environment holds the token, found by
reading ``/proc`` (Linux; elsewhere nothing is found). A process that clears its own environment
escapes: this ends what agents start by accident or habit, it is not a sandbox.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from collections.abc import Iterator

TOKEN_VAR = "RECALLBENCH_WORKER_TOKEN"
# A child forking as fast as it is killed: give up after this many sweeps (each one kills all
# it found), rather than spin.
MAX_SWEEPS = 20


def new_token() -> str:
    return f"{os.getpid()}-{secrets.token_hex(8)}"


@contextlib.contextmanager
def tagged_env(token: str) -> Iterator[None]:
    """``os.environ`` holding ``token`` for the block: a worker spawned in it starts with it.
    multiprocessing's resource tracker is started before, so it never carries a worker's token."""
    from multiprocessing import resource_tracker

    with contextlib.suppress(Exception):
        resource_tracker.ensure_running()
    old = os.environ.get(TOKEN_VAR)
    os.environ[TOKEN_VAR] = token
    try:
        yield
    finally:
        if old is None:
            os.environ.pop(TOKEN_VAR, None)
        else:
            os.environ[TOKEN_VAR] = old


def tagged(token: str) -> list[int]:
    """The live processes (never this one) whose starting environment holds ``token``."""
    entry = f"{TOKEN_VAR}={token}".encode()
    me, found = os.getpid(), []
    try:
        names = os.listdir("/proc")
    except OSError:
        return []
    for name in names:
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read()
        except OSError:  # gone, or another user's
            continue
        if entry in env.split(b"\0"):
            found.append(int(name))
    return found


def kill_tagged(token: str) -> int:
    """SIGKILL every process holding ``token`` until none is left; how many were killed."""
    killed = 0
    for _ in range(MAX_SWEEPS):
        pids = tagged(token)
        if not pids:
            break
        for pid in pids:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
                killed += 1
        time.sleep(0.01)  # a killed process keeps its environ until the kernel tears it down
    return killed
