"""What both executor backends share: the ``Executor`` protocol and ``TaskPool``, a queue of keyed
tasks, a pool of workers, the results loop, the count of workers failing at startup and the
wait until the first time limit.

A backend says how to start a worker (``_new_worker``), hand a task to ready workers
(``_dispatch``), wait for one event (``_wait_once``, yielding finished results) and stop
(``close``). Each worker object carries ``task`` (None when idle) and ``started`` (when its
running task started, as far as the driver knows).
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Iterator
from typing import Any, Protocol

from recallbench.executor.task import Task, TaskResult

# Workers failing this many times in a row before they are ready mean a broken setup.
MAX_STARTUP_FAILURES = 3


class Executor(Protocol):
    def submit(self, task: Task) -> None: ...

    def results(self) -> Iterator[TaskResult]:
        """Yield one result per submitted task, in completion order, until none are left."""
        ...

    def close(self) -> None: ...

    def __enter__(self) -> Executor: ...

    def __exit__(self, *exc: object) -> None: ...


class TaskPool:
    workers: int
    timeout: float | None  # per task, wall clock

    def __init__(self) -> None:
        self._queue: deque[Task] = deque()
        self._pool: list[Any] = []
        self._startup_failures = 0

    def submit(self, task: Task) -> None:
        self._queue.append(task)

    def _busy(self) -> list[Any]:
        return [w for w in self._pool if w.task is not None]

    def _until_timeout(self) -> float | None:
        """Seconds until the first running task reaches its time limit; None without one."""
        if self.timeout is None or not self._busy():
            return None
        first = min(w.started for w in self._busy()) + self.timeout
        return max(0.0, first - time.perf_counter())

    def _startup_failed(self) -> bool:
        """Count a worker that failed before it was ready: True, with the executor closed, at
        the MAX_STARTUP_FAILURES-th in a row (the caller raises; a ready worker resets it)."""
        self._startup_failures += 1
        if self._startup_failures < MAX_STARTUP_FAILURES:
            return False
        self.close()
        return True

    def _top_up(self) -> None:
        want = min(self.workers, len(self._queue) + len(self._busy()))
        while len(self._pool) < want:
            self._pool.append(self._new_worker())

    def results(self) -> Iterator[TaskResult]:
        """Yield one result per submitted task, in completion order, until none are left."""
        try:
            while self._queue or self._busy():
                self._top_up()
                self._dispatch()
                yield from self._wait_once()
        except BaseException:
            self.close()
            raise

    def _new_worker(self) -> Any:
        raise NotImplementedError

    def _dispatch(self) -> None:
        raise NotImplementedError

    def _wait_once(self) -> Iterator[TaskResult]:
        raise NotImplementedError

    def close(self) -> None:
        raise NotImplementedError

    def __enter__(self) -> TaskPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
