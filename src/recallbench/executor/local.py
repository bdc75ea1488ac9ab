"""Executors: run keyed tasks in worker processes and yield one result per task.

The seam is the ``Executor`` protocol (submit tasks, iterate results, close), so a cluster engine
such as Ray can plug in later. ``ProcessExecutor`` always runs tasks in subprocesses, even with
one worker, because only a process can be killed safely: a task that exceeds its time limit, or a
worker that dies (segfault, os._exit, OOM), costs that one task, recorded as an error, and the
worker is replaced. The caller stays the single writer of the run log.
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import multiprocessing as mp
import os
import signal
import sys
import time
import traceback
from collections.abc import Callable, Iterator
from multiprocessing.connection import Connection, wait
from pathlib import Path
from typing import Any, Protocol

from recallbench.executor.pool import TaskPool
from recallbench.executor.results import ERROR_CAP, decode_result, encode_result
from recallbench.executor.task import Task, TaskResult
from recallbench.io import open_no_follow
from recallbench.loader import load_attr

# A worker that dies this many times in a row before it is ready means a broken setup.
MAX_STARTUP_FAILURES = 3
# Of one task's stdout/stderr, this much reaches the log; a policy printing 100 KB per step
# must not grow it by megabytes per test.
OUTPUT_CAP = 64 * 1024


class Executor(Protocol):
    def submit(self, task: Task) -> None: ...

    def results(self) -> Iterator[TaskResult]:
        """Yield one result per submitted task, in completion order, until none are left."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...


def import_handler(ref: str) -> Callable[[Any], Any]:
    handler: Callable[[Any], Any] = load_attr(ref)
    return handler


def _die_with_parent() -> None:
    # Linux: the kernel kills this worker when the parent dies (even by SIGKILL), so a killed run
    # leaves no orphans burning CPU. Elsewhere the closed pipe ends the worker at its next recv.
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL("libc.so.6", use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


def _spool_path(log_path: str, pid: int) -> str:
    return f"{log_path}.{pid}.spool"


def take_output(spool: str, label: str) -> bytes:
    """At most OUTPUT_CAP bytes of a worker's spooled output (its start and its end, where a
    traceback is), and the spool emptied."""
    kept = b""
    with contextlib.suppress(OSError), open(spool, "r+b") as f:
        size = os.fstat(f.fileno()).st_size
        if size:
            half = OUTPUT_CAP // 2
            kept = f.read(OUTPUT_CAP if size <= OUTPUT_CAP else half)
            if size > OUTPUT_CAP:
                f.seek(size - half)
                note = f"\n[{size - OUTPUT_CAP} bytes of output from {label} dropped]\n"
                kept += note.encode() + f.read(half)
            f.truncate(0)
    return kept


def move_output(spool: str, log_path: str, label: str, remove: bool = False) -> None:
    """Append a worker's spooled output (capped) to the log, then empty (or remove) the spool.
    The parent calls it for a worker that died mid-task."""
    kept = take_output(spool, label)
    if kept:
        with contextlib.suppress(OSError), os.fdopen(
                open_no_follow(Path(log_path), os.O_WRONLY | os.O_APPEND | os.O_CREAT),
                "ab") as log:
            log.write(kept)
    if remove:
        with contextlib.suppress(OSError):
            os.unlink(spool)


def _worker_main(conn: Connection, handler_ref: str, log_path: str | None, ppid: int) -> None:
    _die_with_parent()
    if os.getppid() != ppid:  # the parent died before prctl took effect
        os._exit(1)
    # Its own process group: the executor ends the worker together with any child process a
    # policy started, and a Ctrl-C at the terminal reaches only the parent, which stops us.
    os.setpgrp()
    spool = None
    if log_path:  # keep simulator chatter out of the parent's progress display
        spool = _spool_path(log_path, os.getpid())
        fd = open_no_follow(Path(spool), os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
        os.dup2(fd, 1)
        os.dup2(fd, 2)
        os.close(fd)
    handler = import_handler(handler_ref)
    conn.send_bytes(json.dumps(["ready", os.getpid()]).encode())
    while True:
        try:
            msg = conn.recv()  # from the runner: trusted
        except (EOFError, OSError):
            return
        if msg is None:
            return
        key, payload = msg
        start = time.perf_counter()
        try:
            value, error = handler(payload), None
        except BaseException as exc:  # SystemExit and KeyboardInterrupt fail the task only
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            value, error = None, f"handler raised {tb}"[:ERROR_CAP]
        if spool and log_path:
            with contextlib.suppress(Exception):
                sys.stdout.flush()
                sys.stderr.flush()
            move_output(spool, log_path, key)
        text, unencodable = encode_result(value) if error is None else ("null", None)
        # The runner reads JSON only: what the handler returned cannot run code there.
        done = ["done", key, text, unencodable or error, time.perf_counter() - start]
        conn.send_bytes(json.dumps(done).encode())


def _message(data: bytes) -> list[Any]:
    """A worker's message: ["ready", pid] or ["done", key, value, error, wall time]."""
    msg = decode_result(data)
    if isinstance(msg, list) and msg and msg[0] == "ready":
        return msg
    if not (isinstance(msg, list) and len(msg) == 5 and msg[0] == "done"
            and isinstance(msg[1], str) and isinstance(msg[2], str)
            and isinstance(msg[3], (str, type(None))) and isinstance(msg[4], (int, float))):
        raise ValueError("not a worker message")
    return ["done", msg[1], decode_result(msg[2]), msg[3], float(msg[4])]


class _Worker:
    def __init__(self, ctx: Any, handler_ref: str, log_path: str | None) -> None:
        parent_conn, child_conn = ctx.Pipe()
        self.proc = ctx.Process(
            target=_worker_main,
            args=(child_conn, handler_ref, log_path, os.getpid()),
            daemon=True,
        )
        self.proc.start()
        child_conn.close()
        self.conn: Connection = parent_conn
        self.log_path = log_path
        self.ready = False
        self.task: Task | None = None
        self.started = 0.0

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        if self.proc.pid is not None:  # and whatever the policy started in its group
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.join(5)
        self.conn.close()
        if self.log_path and self.proc.pid is not None:  # output of a worker that died
            move_output(_spool_path(self.log_path, self.proc.pid), self.log_path,
                        self.task.key if self.task else "worker", remove=True)


class ProcessExecutor(TaskPool):
    """Runs tasks in ``workers`` spawned processes with an optional per-task wall-clock limit.

    ``handler`` is "module:function"; it is imported in each worker and called with the task's
    payload. The limit counts from the moment a task is handed to a ready worker.
    """

    def __init__(
        self,
        handler: str,
        workers: int = 1,
        timeout: float | None = None,
        log_path: str | Path | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be >= 1")
        self.handler = handler
        self.workers = workers
        self.timeout = timeout
        self.log_path = str(log_path) if log_path else None
        self._ctx = mp.get_context("spawn")  # fork would copy a parent's GL/thread state
        super().__init__()
        self._startup_failures = 0

    def _new_worker(self) -> _Worker:
        return _Worker(self._ctx, self.handler, self.log_path)

    def _dispatch(self) -> None:
        for w in self._pool:
            if w.ready and w.task is None and self._queue:
                task = self._queue.popleft()
                w.task, w.started = task, time.perf_counter()
                # If the worker just died, its sentinel reports it on the next wait.
                with contextlib.suppress(OSError):
                    w.conn.send((task.key, task.payload))

    def _retire(self, w: _Worker, reason: str) -> TaskResult | None:
        w.kill()
        self._pool.remove(w)
        if not w.ready:
            self._startup_failures += 1
            if self._startup_failures >= MAX_STARTUP_FAILURES:
                self.close()
                raise RuntimeError(
                    f"worker processes die during startup ({reason}); see "
                    f"{self.log_path or 'stderr'}"
                )
        if w.task is None:
            return None
        return TaskResult(w.task.key, error=reason, wall_time=time.perf_counter() - w.started)

    def _wait_once(self) -> Iterator[TaskResult]:
        now = time.perf_counter()
        timeout = None
        if self.timeout is not None and self._busy():
            first = min(w.started for w in self._busy()) + self.timeout
            timeout = max(0.0, first - now)
        handles: list[Any] = [w.conn for w in self._pool] + [w.proc.sentinel for w in self._pool]
        ready = set(wait(handles, timeout))
        for w in list(self._pool):
            if w.conn in ready:
                try:
                    msg = _message(w.conn.recv_bytes())
                except (EOFError, OSError):
                    msg = None  # died mid-message: handled as a dead worker below
                except ValueError as exc:  # not what a worker sends: its task fails
                    result = self._retire(w, f"worker sent an unreadable result ({exc})")
                    if result:
                        yield result
                    continue
                if msg and msg[0] == "ready":
                    w.ready = True
                    self._startup_failures = 0
                elif msg and msg[0] == "done":
                    _, key, value, error, wall = msg
                    w.task = None
                    yield TaskResult(key, value, error, wall)
                    continue
            if w.proc.sentinel in ready or (w.conn in ready and not w.proc.is_alive()):
                w.proc.join(1)
                if w.proc.exitcode is not None:
                    code = w.proc.exitcode
                    why = f"signal {-code}" if code < 0 else f"exit code {code}"
                    result = self._retire(w, f"worker process died ({why})")
                    if result:
                        yield result
        if self.timeout is not None:
            now = time.perf_counter()
            for w in list(self._pool):
                if w.task is not None and now - w.started >= self.timeout:
                    result = self._retire(w, f"timeout: exceeded {self.timeout:g} s wall clock")
                    if result:
                        yield result

    def close(self) -> None:
        for w in self._pool:
            with contextlib.suppress(OSError):
                w.conn.send(None)
        deadline = time.monotonic() + 2
        for w in self._pool:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            w.kill()
        self._pool.clear()
