"""The local backend of the executor: run keyed tasks in worker processes, one result per task.

The seam is the ``Executor`` protocol (``pool.py``: submit tasks, iterate results, close), which
the Ray backend implements too. ``ProcessExecutor`` always runs tasks in subprocesses, even with
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
thread each (``threads``), as Ray actors do. This module is the driver's loop; a worker process
as the driver holds it is ``local_workers.LocalWorker``, and what runs inside it ``worker_main``.
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import selectors
import time
from collections.abc import Generator, Iterator
from pathlib import Path

from recallbench.executor.chunks import ChunkSizer
from recallbench.executor.local_workers import LocalWorker, adopt, chunk_message
from recallbench.executor.pool import TaskPool
from recallbench.executor.session import kept_workers
from recallbench.executor.task import TaskResult
from recallbench.executor.wire import decode_message

# The largest chunk handed to a busy worker: the pipe (a socket buffer of ~200 KB on Linux)
# takes it whole, so the driver never blocks on a worker that is itself blocked sending.
PREFETCH_BYTES = 64 * 1024
# A worker running a chunk reports each task as it ends; waking for each report would cost the
# driver more than a cheap task costs the worker. While every worker that wrote still has more
# tasks of its chunk in hand, the driver waits this long and reads what came meanwhile at once.
GATHER_SECONDS = 0.002


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
        self._task_bytes = 0.0  # pickled bytes per task in the last chunk sent
        # every worker's socket and process sentinel, registered once for the pool's lifetime
        self._selector = selectors.DefaultSelector()
        self._kept = kept_workers()
        # workers a previous executor of this run left (ready, idle): used before new ones
        self._spare: list[LocalWorker] = self._kept.take(self._kept_as()) if self._kept else []

    def _kept_as(self) -> str:
        # a worker spools its output or writes to the terminal for life: kept apart
        return "local" if self.log_path else "local-terminal"

    def _new_worker(self) -> LocalWorker:
        w = None
        while self._spare and w is None:
            w = self._spare.pop()
            w.log_path = self.log_path  # its next chunk names this log
            if not w.proc.is_alive():  # died while idle, between two executors
                w.kill()
                w = None
        if w is None:
            w = adopt(self.handler, self.log_path) or LocalWorker(
                self._ctx, self.handler, self.log_path, pool=self.workers)
        self._selector.register(w.fd, selectors.EVENT_READ, (w, "conn"))
        self._selector.register(w.proc.sentinel, selectors.EVENT_READ, (w, "sentinel"))
        return w

    def _kill(self, w: LocalWorker) -> None:
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
            data = chunk_message(self.handler, self.log_path, chunk)
            self._task_bytes = len(data) / len(chunk)
            # A busy worker reads its next chunk only after its current one, and meanwhile may
            # block sending us a large result: a chunk that fits the empty pipe never blocks us.
            while w.tasks and len(data) > PREFETCH_BYTES and len(chunk) > 1:
                keep = len(chunk) // 2
                self._queue.extendleft(reversed(chunk[keep:]))
                chunk = chunk[:keep]
                data = chunk_message(self.handler, self.log_path, chunk)
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

    def _retire(self, w: LocalWorker, reason: str) -> TaskResult | None:
        """Stop a worker: its running task fails with ``reason``; the rest of its chunk, not
        started, goes back to the front of the queue in order."""
        self._kill(w)
        self._pool.remove(w)
        running = w.tasks.popleft() if w.tasks else None
        self._queue.extendleft(reversed(w.tasks))
        w.tasks.clear()
        if not w.ready and self._startup_failed():
            raise RuntimeError(
                f"worker processes die during startup ({reason}); see {self.log_path or 'stderr'}")
        if running is None:
            return None
        return TaskResult(running.key, error=reason, wall_time=time.perf_counter() - w.started)

    def _read(self, w: LocalWorker) -> Generator[TaskResult, None, str]:
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
        events = self._selector.select(self._until_timeout()) if self._pool else []
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

