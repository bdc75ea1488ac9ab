"""Local worker processes as the driver holds them: spawn one (now, or ahead of its executor with
``prestart``), hand it a chunk, stop it, kill it with everything it started.

What runs inside the process is ``worker_main``; the queue, time limits and results loop are
``local.ProcessExecutor``'s.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import signal
from collections import deque
from collections.abc import Iterator
from multiprocessing.connection import Connection
from multiprocessing.reduction import ForkingPickler
from pathlib import Path
from typing import Any

from recallbench.executor.reap import kill_tagged, new_token, tagged_env
from recallbench.executor.spool import move_output, open_spool
from recallbench.executor.task import Task
from recallbench.executor.threads import worker_thread_env
from recallbench.executor.wire import FrameReader
from recallbench.executor.worker_main import InheritedFd, worker_main


def chunk_message(handler: str, log_path: str | None, chunk: list[Task]) -> bytes:
    # the driver's own tasks to its own workers: pickle is safe in this direction only
    return bytes(ForkingPickler.dumps(
        (handler, log_path, [(task.key, task.payload) for task in chunk])))


class LocalWorker:
    def __init__(self, ctx: Any, handler_ref: str, log_path: str | None,
                 spool: bool = False, pool: int = 1) -> None:
        parent_conn, child_conn = ctx.Pipe()
        # the parent keeps the spool open too: the output of a worker that died is read here;
        # ``spool``: one in the temp folder for a worker whose log is not known yet (prestart)
        self.spool_fd = (open_spool(Path(log_path).parent if log_path else None)
                         if log_path or spool else None)
        self.proc = ctx.Process(
            target=worker_main,
            args=(child_conn, handler_ref,
                  None if self.spool_fd is None else InheritedFd(self.spool_fd), os.getpid()),
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


# Workers started before their executor exists (``prestart``), by handler.
_prestarted: dict[str, list[LocalWorker]] = {}


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
    started = [LocalWorker(ctx, handler, None, spool=True, pool=workers)
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


def adopt(handler: str, log_path: str | None) -> LocalWorker | None:
    """A prestarted worker for ``handler``, now writing to ``log_path``; None when none waits
    or the executor writes no log (a prestarted worker spools its output for life)."""
    waiting = _prestarted.get(handler)
    if not waiting or not log_path:
        return None
    w = waiting.pop(0)
    w.log_path = log_path
    return w
