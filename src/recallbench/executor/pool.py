"""What both executor backends share: a queue of keyed tasks, a pool of workers, the results loop.

A backend says how to start a worker (``_new_worker``), hand a task to ready workers
(``_dispatch``), wait for one event (``_wait_once``, yielding finished results) and stop
(``close``). Each worker object carries ``task`` (None when idle).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterator
from typing import Any

from recallbench.executor.task import Task, TaskResult


class TaskPool:
    workers: int

    def __init__(self) -> None:
        self._queue: deque[Task] = deque()
        self._pool: list[Any] = []

    def submit(self, task: Task) -> None:
        self._queue.append(task)

    def _busy(self) -> list[Any]:
        return [w for w in self._pool if w.task is not None]

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
