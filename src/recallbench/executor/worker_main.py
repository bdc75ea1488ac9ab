"""The body of a local worker process: what runs inside it, from spawn to exit.

The worker dies with its driver (``die_with_parent``), leads its own process group, sends its
stdout and stderr to its spool, then runs the chunks the driver sends, one task at a time, each
reported as it ends as strict JSON (``wire.done_message``): the driver never unpickles what a
handler returned.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import os
import signal
import sys
import time
from multiprocessing.connection import Connection
from multiprocessing.reduction import DupFd
from typing import Any

from recallbench.executor.handlers import Handlers, flush_stdio
from recallbench.executor.spool import move_output, spool_stdio
from recallbench.executor.wire import done_message, ready_message


def die_with_parent() -> None:
    # Linux: the kernel kills this worker when the parent dies (even by SIGKILL), so a killed run
    # leaves no orphans burning CPU. Elsewhere the closed pipe ends the worker at its next recv.
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


class InheritedFd:
    """A descriptor handed to a spawned worker (the same file, not a copy of its name)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return _inherit_fd, (DupFd(self.fd),)


def _inherit_fd(dup: Any) -> int:
    fd: int = dup.detach()
    return fd


def worker_main(conn: Connection, handler_ref: str, spool_fd: int | None, ppid: int) -> None:
    """``spool_fd``: sent as an ``InheritedFd``, it arrives as the descriptor itself."""
    die_with_parent()
    if os.getppid() != ppid:  # the parent died before prctl took effect
        os._exit(1)
    # Its own process group: the executor ends the worker together with any child process a
    # policy started, and a Ctrl-C at the terminal reaches only the parent, which stops us.
    os.setpgrp()
    if spool_fd is not None:  # keep simulator chatter out of the parent's progress display
        spool_stdio(spool_fd)
    handlers = Handlers()
    handlers.get(handler_ref)
    conn.send_bytes(ready_message(os.getpid()))
    while True:
        try:
            msg = conn.recv()  # from the driver (trusted): (handler, log, [(key, payload)])
        except (EOFError, OSError):
            return
        if msg is None:
            _exit_now()
        ref, log_path, chunk = msg
        for key, payload in chunk:  # one at a time, each reported as it ends
            conn.send_bytes(_run_task(handlers, ref, key, payload, spool_fd, log_path))


def _exit_now() -> None:
    """Told to stop, no task running: end without the interpreter's teardown (freeing every
    module takes a loaded machine up to half a second, and the driver waits for it). The exit
    handlers registered (an agent's, multiprocessing's) still run and the output is flushed."""
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    with contextlib.suppress(BaseException):
        sys.stdout.flush()
        sys.stderr.flush()
    os._exit(0)


def _run_task(handlers: Handlers, ref: str, key: str, payload: Any, spool_fd: int | None,
              log_path: str | None) -> bytes:
    start = time.perf_counter()
    value, error = handlers.call(ref, payload)  # a kept worker may serve another handler
    if spool_fd is not None:
        flush_stdio()
        if _printed():  # one fstat, not a read of the spool, for a task that printed nothing
            move_output(spool_fd, log_path, key)
    # The driver reads JSON only: what the handler returned cannot run code there.
    return done_message(key, value, error, time.perf_counter() - start)


def _printed() -> bool:
    """Has anything reached the spool (fds 1 and 2 point at it) since it was last emptied?"""
    try:
        return os.fstat(1).st_size > 0
    except OSError:
        return True
