"""Executors: run keyed tasks in worker processes and yield one result per task.

The seam is the ``Executor`` protocol (submit tasks, iterate results, close), so a cluster engine
such as Ray can plug in later. ``ProcessExecutor`` always runs tasks in subprocesses, even with
one worker, because only a process can be killed safely: a task that exceeds its time limit, or a
worker that dies (segfault, os._exit, OOM), costs that one task, recorded as an error, and the
worker is replaced. The caller stays the single writer of the run log.

Cheap tasks travel in chunks (``chunks.ChunkSizer``): a worker gets several tasks in one message
and reports each as it ends, so results still stream back one task at a time. The time limit is
per task; when a worker dies or is stopped, the task it was running fails and the tasks of its
chunk that had not started go back to the front of the queue.

Each chunk names its handler and log, so inside ``session.keep_workers()`` (one ``recallbench
run``) an executor that closes hands its idle workers to the next one, whatever its handler:
processes start once per run, not once per benchmark and agent. Workers get one BLAS/OpenMP
thread each (``threads``), as Ray actors do.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import multiprocessing as mp
import os
import selectors
import signal
import sys
import time
import traceback
from collections import deque
from collections.abc import Callable, Generator, Iterator
from multiprocessing.connection import Connection
from multiprocessing.reduction import DupFd, ForkingPickler
from pathlib import Path
from typing import Any, Protocol

from recallbench.executor.chunks import ChunkSizer
from recallbench.executor.pool import TaskPool
from recallbench.executor.reap import kill_tagged, new_token, tagged_env
from recallbench.executor.results import ERROR_CAP
from recallbench.executor.session import kept_workers
from recallbench.executor.spool import move_output, open_spool
from recallbench.executor.task import Task, TaskResult
from recallbench.executor.threads import worker_thread_env
from recallbench.executor.wire import FrameReader, decode_message, done_message, ready_message
from recallbench.loader import load_attr

# A worker that dies this many times in a row before it is ready means a broken setup.
MAX_STARTUP_FAILURES = 3
# The largest chunk handed to a busy worker: the pipe (a socket buffer of ~200 KB on Linux)
# takes it whole, so the driver never blocks on a worker that is itself blocked sending.
PREFETCH_BYTES = 64 * 1024
# A worker running a chunk reports each task as it ends; waking for each report would cost the
# driver more than a cheap task costs the worker. While every worker that wrote still has more
# tasks of its chunk in hand, the driver waits this long and reads what came meanwhile at once.
GATHER_SECONDS = 0.002


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


class _InheritedFd:
    """A descriptor handed to a spawned worker (the same file, not a copy of its name)."""

    def __init__(self, fd: int) -> None:
        self.fd = fd

    def __reduce__(self) -> tuple[Any, tuple[Any]]:
        return _inherit_fd, (DupFd(self.fd),)


def _inherit_fd(dup: Any) -> int:
    fd: int = dup.detach()
    return fd


def _worker_main(conn: Connection, handler_ref: str, spool_fd: int | None, ppid: int) -> None:
    """``spool_fd``: sent as an ``_InheritedFd``, it arrives as the descriptor itself."""
    _die_with_parent()
    if os.getppid() != ppid:  # the parent died before prctl took effect
        os._exit(1)
    # Its own process group: the executor ends the worker together with any child process a
    # policy started, and a Ctrl-C at the terminal reaches only the parent, which stops us.
    os.setpgrp()
    if spool_fd is not None:  # keep simulator chatter out of the parent's progress display
        os.dup2(spool_fd, 1)
        os.dup2(spool_fd, 2)
    handlers = {handler_ref: import_handler(handler_ref)}
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


def _run_task(handlers: dict[str, Callable[[Any], Any]], ref: str, key: str, payload: Any,
              spool_fd: int | None, log_path: str | None) -> bytes:
    start = time.perf_counter()
    try:
        if ref not in handlers:  # a kept worker serving another executor's handler
            handlers[ref] = import_handler(ref)
        value, error = handlers[ref](payload), None
    except BaseException as exc:  # SystemExit and KeyboardInterrupt fail the task only
        tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
        value, error = None, f"handler raised {tb}"[:ERROR_CAP]
    if spool_fd is not None:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
            sys.stderr.flush()
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


def _pickled(handler: str, log_path: str | None, chunk: list[Task]) -> bytes:
    # the driver's own tasks to its own workers: pickle is safe in this direction only
    return bytes(ForkingPickler.dumps(
        (handler, log_path, [(task.key, task.payload) for task in chunk])))


class _Worker:
    def __init__(self, ctx: Any, handler_ref: str, log_path: str | None,
                 spool: bool = False, pool: int = 1) -> None:
        parent_conn, child_conn = ctx.Pipe()
        # the parent keeps the spool open too: the output of a worker that died is read here;
        # ``spool``: one in the temp folder for a worker whose log is not known yet (prestart)
        self.spool_fd = (open_spool(Path(log_path).parent if log_path else None)
                         if log_path or spool else None)
        self.proc = ctx.Process(
            target=_worker_main,
            args=(child_conn, handler_ref,
                  None if self.spool_fd is None else _InheritedFd(self.spool_fd), os.getpid()),
            daemon=True,
        )
        # one BLAS/OpenMP thread, as a Ray actor has; render threads shared out by the ``pool``;
        # a token every process the worker starts inherits, so ``kill`` ends them all (``reap``)
        self.token = new_token()
        with worker_thread_env(pool), tagged_env(self.token):
            self.proc.start()
        child_conn.close()
        self.conn: Connection = parent_conn
        self.fd = parent_conn.fileno()
        self.reader = FrameReader(self.fd)
        self.log_path = log_path
        self.ready = False
        self.tasks: deque[Task] = deque()  # handed over, not yet reported, in running order
        self.started = 0.0  # when the first of them started, as far as the driver knows
        self.last_chunk = 0  # tasks in the last chunk sent: it has been read once fewer remain
        self.kept = False  # handed to the run's kept workers (session.keep_workers) once

    @property
    def task(self) -> Task | None:
        """The task running now (the first not yet reported), or None when idle."""
        return self.tasks[0] if self.tasks else None

    def kill(self) -> None:
        with contextlib.suppress(OSError):
            self.proc.kill()
        if self.proc.pid is not None:  # and whatever the policy started in its group
            with contextlib.suppress(OSError):
                os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.join(5)
        kill_tagged(self.token)  # and what left the group (setsid): nothing outlives the worker
        self.conn.close()
        if self.spool_fd is not None:  # output of a worker that died; the spool goes with it
            move_output(self.spool_fd, self.log_path, self.task.key if self.task else "worker")
            os.close(self.spool_fd)
            self.spool_fd = None

    def stop(self) -> None:
        """Ask an idle worker to exit, wait up to 2 s, then make sure (``kill``)."""
        with contextlib.suppress(OSError):
            self.conn.send(None)
        self.proc.join(2)
        self.kill()


class ProcessExecutor(TaskPool):
    """Runs tasks in ``workers`` spawned processes with an optional per-task wall-clock limit.

    ``handler`` is "module:function"; it is imported in each worker and called with the task's
    payload. The limit counts from the moment a task starts: for the first of a chunk when it is
    handed to a ready worker, for the others when the driver hears the one before it end.
    """

    def __init__(
        self,
        handler: str,
        workers: int = 1,
        timeout: float | None = None,
        log_path: str | Path | None = None,
        chunk: int | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be >= 1")
        self.handler = handler
        self.workers = workers
        self.timeout = timeout
        self.log_path = str(log_path) if log_path else None
        self._ctx = mp.get_context("spawn")  # fork would copy a parent's GL/thread state
        self._chunks = ChunkSizer(fixed=chunk)  # chunk: a fixed size; None sizes by wall time
        super().__init__()
        self._startup_failures = 0
        self._task_bytes = 0.0  # pickled bytes per task in the last chunk sent
        # every worker's socket and process sentinel, registered once for the pool's lifetime
        self._selector = selectors.DefaultSelector()
        self._kept = kept_workers()
        # workers a previous executor of this run left (ready, idle): used before new ones
        self._spare: list[_Worker] = self._kept.take(self._kept_as()) if self._kept else []

    def _kept_as(self) -> str:
        # a worker spools its output or writes to the terminal for life: kept apart
        return "local" if self.log_path else "local-terminal"

    def _new_worker(self) -> _Worker:
        w = None
        while self._spare and w is None:
            w = self._spare.pop()
            w.log_path = self.log_path  # its next chunk names this log
            if not w.proc.is_alive():  # died while idle, between two executors
                w.kill()
                w = None
        if w is None:
            w = _adopt(self.handler, self.log_path) or _Worker(self._ctx, self.handler,
                                                                self.log_path, pool=self.workers)
        self._selector.register(w.fd, selectors.EVENT_READ, (w, "conn"))
        self._selector.register(w.proc.sentinel, selectors.EVENT_READ, (w, "sentinel"))
        return w

    def _kill(self, w: _Worker) -> None:
        for fd in (w.fd, w.proc.sentinel):
            with contextlib.suppress(KeyError, ValueError, OSError):
                self._selector.unregister(fd)
        w.kill()

    def _dispatch(self) -> None:
        for w in self._pool:
            if not (w.ready and self._queue):
                continue
            n = self._chunks.size(len(self._queue), self.workers)
            if w.tasks and not (len(w.tasks) <= self._chunks.refill_at(n)
                                and len(w.tasks) < w.last_chunk):
                continue  # busy: refilled only once it has read the last chunk and nears its end
            if w.tasks and self._task_bytes:  # sized to fit from the start: pickled once
                n = max(1, min(n, int(PREFETCH_BYTES / self._task_bytes)))
            chunk = [self._queue.popleft() for _ in range(min(n, len(self._queue)))]
            data = _pickled(self.handler, self.log_path, chunk)
            self._task_bytes = len(data) / len(chunk)
            # A busy worker reads its next chunk only after its current one, and meanwhile may
            # block sending us a large result: a chunk that fits the empty pipe never blocks us.
            while w.tasks and len(data) > PREFETCH_BYTES and len(chunk) > 1:
                keep = len(chunk) // 2
                self._queue.extendleft(reversed(chunk[keep:]))
                chunk = chunk[:keep]
                data = _pickled(self.handler, self.log_path, chunk)
            if w.tasks and len(data) > PREFETCH_BYTES:
                self._queue.extendleft(reversed(chunk))
                continue
            if not w.tasks:
                w.started = time.perf_counter()
            w.tasks.extend(chunk)
            w.last_chunk = len(chunk)
            # If the worker just died, its sentinel reports it on the next wait.
            with contextlib.suppress(OSError):
                w.conn.send_bytes(data)

    def _retire(self, w: _Worker, reason: str) -> TaskResult | None:
        """Stop a worker: its running task fails with ``reason``; the rest of its chunk, not
        started, goes back to the front of the queue in order."""
        self._kill(w)
        self._pool.remove(w)
        running = w.tasks.popleft() if w.tasks else None
        self._queue.extendleft(reversed(w.tasks))
        w.tasks.clear()
        if not w.ready:
            self._startup_failures += 1
            if self._startup_failures >= MAX_STARTUP_FAILURES:
                self.close()
                raise RuntimeError(
                    f"worker processes die during startup ({reason}); see "
                    f"{self.log_path or 'stderr'}"
                )
        if running is None:
            return None
        return TaskResult(running.key, error=reason, wall_time=time.perf_counter() - w.started)

    def _read(self, w: _Worker) -> Generator[TaskResult, None, str]:
        """Every message waiting from ``w``, its results yielded one by one. Returns "done"
        when results were read (w lives), else "check" (its pipe closed, or only "ready")."""
        try:
            frames = w.reader.read()
        except OSError:
            frames = None
        except ValueError as exc:  # a bad frame: not what a worker sends, its task fails
            result = self._retire(w, f"worker sent an unreadable result ({exc})")
            if result:
                yield result
            return "done"
        if frames is None:
            return "check"  # died, maybe mid-message: handled as a dead worker
        read = False
        for data in frames:
            try:
                msg = decode_message(data)
            except ValueError as exc:  # not what a worker sends: its task fails
                result = self._retire(w, f"worker sent an unreadable result ({exc})")
                if result:
                    yield result
                return "done"
            if msg[0] == "ready":
                w.ready = True
                self._startup_failures = 0
                continue
            _, key, value, error, wall = msg
            if w.task is None or w.task.key != key:
                result = self._retire(w, "worker sent an unreadable result (for a task it was "
                                         "not running)")
                if result:
                    yield result
                return "done"
            w.tasks.popleft()
            w.started = time.perf_counter()  # the next one starts as this one ends
            self._chunks.observe(wall)
            read = True
            yield TaskResult(key, value, error, wall)
        return "done" if read else "check"

    def _wait_once(self) -> Iterator[TaskResult]:
        now = time.perf_counter()
        timeout = None
        if self.timeout is not None and self._busy():
            first = min(w.started for w in self._busy()) + self.timeout
            timeout = max(0.0, first - now)
        events = self._selector.select(timeout) if self._pool else []
        if events and GATHER_SECONDS and all(
                kind == "conn" and len(w.tasks) > 1 for (w, kind) in (k.data for k, _ in events)):
            time.sleep(GATHER_SECONDS)  # more results are coming: read them in one go
            events = self._selector.select(0)
        ready = {(id(key.data[0]), key.data[1]) for key, _ in events}
        for w in list(self._pool):
            readable = (id(w), "conn") in ready
            if readable and (yield from self._read(w)) == "done":
                continue
            if (id(w), "sentinel") in ready or (readable and not w.proc.is_alive()):
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
        keep = [] if self._kept is None else [
            w for w in self._pool if w.ready and not w.tasks and w.proc.is_alive()]
        for w in keep:  # idle and healthy: the run's next executor takes it
            self._pool.remove(w)
            for fd in (w.fd, w.proc.sentinel):
                with contextlib.suppress(KeyError, ValueError, OSError):
                    self._selector.unregister(fd)
        for w in self._pool:
            with contextlib.suppress(OSError):
                w.conn.send(None)
        deadline = time.monotonic() + 2
        for w in self._pool:
            w.proc.join(max(0.0, deadline - time.monotonic()))
            self._kill(w)
        self._pool.clear()
        if self._kept is not None:
            for w in keep + self._spare:
                self._kept.put(self._kept_as(), w)
                if not w.kept:  # stopped once, when the run ends
                    w.kept = True
                    self._kept.at_end(w.stop)
        self._spare = []


# Workers started before their executor exists (``prestart``), by handler.
_prestarted: dict[str, list[_Worker]] = {}


@contextlib.contextmanager
def prestart(handler: str, workers: int) -> Iterator[list[int]]:
    """Start ``workers`` processes for ``handler`` now, before the command knows its tasks:
    spawning a worker and its imports (a second or more) then overlap the command's own start
    (its imports, loading the suite, building the tasks) instead of following it. The block's
    executors of that handler that write a log take them before starting their own (each chunk
    names its log). Those not taken are stopped when the block ends. Until it is taken a
    worker's output (its imports only) waits in its spool and reaches the log with its first
    task. Yields their pids."""
    ctx = mp.get_context("spawn")
    started = [_Worker(ctx, handler, None, spool=True, pool=workers)
               for _ in range(max(0, workers))]
    _prestarted.setdefault(handler, []).extend(started)
    try:
        yield [w.proc.pid for w in started if w.proc.pid is not None]
    finally:
        waiting = _prestarted.get(handler, [])
        for w in started:
            if w in waiting:
                waiting.remove(w)
                w.kill()  # never given a task: nothing of a run is lost
        if not waiting:
            _prestarted.pop(handler, None)


def _adopt(handler: str, log_path: str | None) -> _Worker | None:
    """A prestarted worker for ``handler``, now writing to ``log_path``; None when none waits
    or the executor writes no log (a prestarted worker spools its output for life)."""
    waiting = _prestarted.get(handler)
    if not waiting or not log_path:
        return None
    w = waiting.pop(0)
    w.log_path = log_path
    return w
