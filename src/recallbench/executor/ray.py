"""The Ray backend of the executor: the same keyed tasks, run by actors on a Ray cluster.

Each worker is an actor holding one CPU (spread over the nodes), so per-worker state (a loaded
policy, the current scenario's env) lives as long as in a local worker process. The driver keeps
what the local executor keeps: it alone receives results (and so stays the only writer of the
run log), it enforces the per-task wall-clock limit (by killing the actor), and it replaces dead
workers. What differs is who is at fault when a worker vanishes:

- its worker process died while its node lives (the agent segfaulted or called ``os._exit``): the
  task fails, as it does locally;
- its node (or the node's raylet) is gone, or the actor became unreachable: infrastructure, not
  the agent. The task goes back in the queue for another worker, at most ``retries`` times, then
  comes back ``lost`` (nothing recorded; ``--resume`` runs it again).

Tasks are deterministic in their payload, so a retried task returns what the first attempt would
have. Paths in payloads must mean the same on every node (one machine, or a shared filesystem).
Ray is the optional ``ray`` extra, imported only through ``ray_cluster``; the actors run
``ray_actor.TaskActor``.

Cheap tasks go to an actor in chunks (``chunks.ChunkSizer``): several calls queued on it at
once, so it never waits for the driver; it still runs them one by one and each result comes
back as it ends. When the actor dies or is stopped, the task it was running is handled as
above and the rest of its chunk goes back to the queue. Which task was running is not always
known: an actor SIGKILLed right after a task ended may take that task's reply with it, so the
driver sees every task of the chunk fail at once. A worker that dies with tasks queued behind
the first one therefore fails none of them outright: they are run again one at a time, each
alone on its actor, and the one whose actor dies then fails (a crash costs one re-run; a task
that finished is never blamed for the next one's crash). Inside ``session.keep_workers()``
(one ``recallbench run``) actors outlive their executor and serve the next one, whatever its
handler: they are started once per run, not once per benchmark and agent.
"""

from __future__ import annotations

import contextlib
import time
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from recallbench.executor.chunks import ChunkSizer
from recallbench.executor.pool import TaskPool
from recallbench.executor.ray_actor import TaskActor
from recallbench.executor.ray_cluster import first_line, import_ray, init_ray
from recallbench.executor.results import decode_result
from recallbench.executor.session import kept_workers
from recallbench.executor.spool import append_output
from recallbench.executor.task import Task, TaskResult

# How often one task may be lost to infrastructure before it is given back unrun.
DEFAULT_RETRIES = 3
# With nothing running and no worker ready for this long, the cluster has no room for us.
NO_WORKER_TIMEOUT = 600.0


@dataclass
class _Worker:
    actor: Any
    ready_ref: Any
    node: str | None = None
    tasks: deque[Task] = field(default_factory=deque)  # queued on the actor, in running order
    refs: deque[Any] = field(default_factory=deque)  # their results, in the same order
    started: float = 0.0  # when the first of them started, as far as the driver knows

    @property
    def task(self) -> Task | None:
        """The task running now (the first not yet reported), or None when idle."""
        return self.tasks[0] if self.tasks else None


class RayExecutor(TaskPool):
    """``workers`` actors on the cluster at ``address`` ("auto", "host:port", or None to start
    Ray on this machine), each task limited to ``timeout`` s of wall clock once dispatched."""

    def __init__(
        self,
        handler: str,
        workers: int = 1,
        timeout: float | None = None,
        log_path: str | Path | None = None,
        address: str | None = None,
        retries: int = DEFAULT_RETRIES,
        chunk: int | None = None,
    ) -> None:
        if workers < 1:
            raise ValueError("workers must be >= 1")
        self.ray = import_ray()
        self.handler = handler
        self.workers = workers
        self.timeout = timeout
        self.log_path = str(log_path) if log_path else None
        self.retries = retries
        super().__init__()
        self._lost: dict[str, int] = {}
        self._alone: set[str] = set()  # keys to run with nothing queued behind them
        self._chunks = ChunkSizer(fixed=chunk)  # chunk: a fixed size; None sizes by wall time
        self._kept = kept_workers()
        # actors a previous executor of this run left (already ready): used before new ones
        self._spare: list[Any] = self._kept.take("ray") if self._kept else []
        self._idle_since = time.monotonic()
        self._owns_ray = False
        if not self.ray.is_initialized():
            init_ray(self.ray, address)
            self._owns_ray = True
            if self._kept is not None:  # Ray stays up for the run's next executors
                self._kept.at_end(self.ray.shutdown)
                self._owns_ray = False
        self._actor_class = self.ray.remote(num_cpus=1, max_restarts=0,
                                            scheduling_strategy="SPREAD")(TaskActor)

    def _new_worker(self) -> _Worker:
        if self._spare:  # a kept actor: ready once it has imported this executor's handler
            actor = self._spare.pop()
            return _Worker(actor, actor.load.remote(self.handler))
        actor = self._actor_class.remote(self.handler)
        return _Worker(actor, actor.node.remote())

    def _dispatch(self) -> None:
        for w in self._pool:
            if w.node is None or not self._queue:
                continue
            if w.tasks and w.tasks[0].key in self._alone:
                continue  # pinning a crash on that task: nothing may run after it
            if self._queue[0].key in self._alone:
                if not w.tasks:
                    self._send(w, [self._queue.popleft()])
                continue
            n = self._chunks.size(len(self._queue), self.workers)
            if len(w.tasks) > self._chunks.refill_at(n):
                continue
            chunk: list[Task] = []
            while self._queue and len(chunk) < n and self._queue[0].key not in self._alone:
                chunk.append(self._queue.popleft())
            self._send(w, chunk)

    def _send(self, w: _Worker, tasks: list[Task]) -> None:
        if not w.tasks:
            w.started = time.perf_counter()
        for task in tasks:
            w.tasks.append(task)
            w.refs.append(w.actor.run.remote(self.handler, task.key, task.payload))

    def _wait_once(self) -> Iterator[TaskResult]:
        refs = {}
        for w in self._pool:
            if w.tasks:  # its results come in order: only the first can be next
                refs[w.refs[0]] = w
            elif w.node is None:  # still starting
                refs[w.ready_ref] = w
        timeout = 5.0  # wake up now and then: node deaths, starved pools
        until = self._until_timeout()
        if until is not None:
            timeout = min(timeout, until)
        done, _ = self.ray.wait(list(refs), num_returns=1, timeout=timeout) if refs else ([], [])
        for ref in done:
            w = refs[ref]
            if not w.tasks:
                self._on_ready(w)
                continue
            while w.tasks and w in self._pool:  # and whatever else it has finished since
                result = self._on_result(w)
                if result is not None:
                    yield result
                if not (w.tasks and w in self._pool and self._finished(w.refs[0])):
                    break
        if self.timeout is not None:
            now = time.perf_counter()
            for w in list(self._busy()):
                if now - w.started >= self.timeout:
                    task = w.tasks[0]
                    self._retire(w)
                    yield TaskResult(task.key, error=f"timeout: exceeded {self.timeout:g} s "
                                     "wall clock", wall_time=now - w.started)
        self._check_starved()

    def _finished(self, ref: Any) -> bool:
        done, _ = self.ray.wait([ref], num_returns=1, timeout=0)
        return bool(done)

    def _on_ready(self, w: _Worker) -> None:
        try:
            w.node = self.ray.get(w.ready_ref)
            self._startup_failures = 0
        except self.ray.exceptions.RayError as exc:
            self._retire(w)
            if not self._infrastructure(exc, w) and self._startup_failed():
                raise RuntimeError(f"Ray workers die during startup ({first_line(exc)})"
                                   ) from None

    def _on_result(self, w: _Worker) -> TaskResult | None:
        """The result of ``w``'s first task (its reference is ready)."""
        task, ref = w.tasks[0], w.refs[0]
        try:
            value, error, wall, output = self.ray.get(ref)
        except self.ray.exceptions.RayError as exc:
            wall = time.perf_counter() - w.started
            chunk = [t.key for t in w.tasks]
            self._retire(w)  # the rest of its chunk is back in the queue
            if not self._infrastructure(exc, w):
                if len(chunk) > 1 and task.key not in self._alone:
                    # Any of them may have been running (the replies of those before it lost
                    # with the actor): each runs again alone, where a death has one cause.
                    self._alone.update(chunk)
                    self._queue.appendleft(task)
                    self._append_output(f"[recallbench] {task.key}: its Ray worker died with "
                                        f"{len(chunk) - 1} more tasks queued; running them "
                                        "again one at a time to see which was the cause\n"
                                        .encode())
                    return None
                return TaskResult(task.key, error=f"worker process died ({first_line(exc)})",
                                  wall_time=wall)
            lost = self._lost[task.key] = self._lost.get(task.key, 0) + 1
            self._append_output(f"[recallbench] {task.key}: its Ray worker was lost with its "
                                f"node ({first_line(exc)}); attempt {lost} of "
                                f"{self.retries + 1}\n".encode())
            if lost <= self.retries:
                self._queue.appendleft(task)  # another worker takes it
                return None
            return TaskResult(task.key, error=f"lost to infrastructure {lost} times",
                              wall_time=wall, lost=True)
        w.tasks.popleft()
        w.refs.popleft()
        self._alone.discard(task.key)
        w.started = time.perf_counter()  # the next one starts as this one ends
        self._idle_since = time.monotonic()
        self._append_output(output if isinstance(output, bytes) else b"")
        try:
            if not isinstance(value, str) or not isinstance(error, (str, type(None))):
                raise ValueError("not a worker result")
            self._chunks.observe(float(wall))
            return TaskResult(task.key, decode_result(value), error, float(wall))
        except (TypeError, ValueError) as exc:
            return TaskResult(task.key, error=f"worker sent an unreadable result ({exc})",
                              wall_time=time.perf_counter() - w.started)

    def _infrastructure(self, exc: BaseException, w: _Worker) -> bool:
        """Was the worker lost with its node (or unreachable), rather than killed by its task?"""
        exceptions = self.ray.exceptions
        if isinstance(exc, exceptions.ActorUnavailableError):
            return True  # the node stopped answering; its raylet would report a mere crash
        if isinstance(exc, exceptions.RayTaskError):
            return False  # the constructor raised: a setup error, not a lost node
        text = str(exc)
        if "node has died" in text or "owner has died" in text:
            return True
        return w.node is not None and not self._node_alive(w.node)

    def _node_alive(self, node: str) -> bool:
        with contextlib.suppress(Exception):
            return any(n["NodeID"] == node and n["Alive"] for n in self.ray.nodes())
        return True

    def _check_starved(self) -> None:
        if any(w.node is not None for w in self._pool) or self._busy():
            self._idle_since = time.monotonic()
        elif time.monotonic() - self._idle_since > NO_WORKER_TIMEOUT:
            self.close()
            raise RuntimeError(f"no Ray worker started in {NO_WORKER_TIMEOUT:g} s: does the "
                               "cluster have a free CPU?")

    def _retire(self, w: _Worker) -> None:
        """Stop an actor; the tasks queued on it behind the running one (which the caller
        reports) go back to the front of the queue in order."""
        with contextlib.suppress(Exception):
            self.ray.kill(w.actor, no_restart=True)
        if w in self._pool:
            self._pool.remove(w)
        if w.tasks:
            w.tasks.popleft()
            self._queue.extendleft(reversed(w.tasks))
        w.tasks.clear()
        w.refs.clear()

    def _keep(self, actor: Any) -> None:
        assert self._kept is not None
        self._kept.put("ray", actor)
        ray = self.ray
        self._kept.at_end(lambda: ray.kill(actor, no_restart=True))

    def _append_output(self, output: bytes) -> None:
        append_output(self.log_path, output)

    def close(self) -> None:
        for w in list(self._pool):
            if self._kept is not None and w.node is not None and not w.tasks:
                self._pool.remove(w)  # idle and healthy: the run's next executor takes it
                self._keep(w.actor)
            else:
                self._retire(w)
        for actor in self._spare:
            self._keep(actor)
        self._spare = []
        if self._owns_ray:
            with contextlib.suppress(Exception):
                self.ray.shutdown()
            self._owns_ray = False

