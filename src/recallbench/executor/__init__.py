"""The one executor (bottom layer): generation and runs both hand it keyed tasks.

Two backends behind one protocol (submit tasks, iterate results, close): local worker processes
(``recallbench.executor.local``) and Ray actors on a cluster (``recallbench.executor.ray``, the
optional ``ray`` extra). ``make_executor`` picks one from ``ExecutorSettings``; which backend ran
a case never changes its result, so the settings are provenance in a run's manifest.

Words: the *driver* is the process that submits tasks and reads their results (Ray's word); a
*worker* runs them. "Runner" means one thing in recallbench: a benchmark's runner
(``run.runner.BenchmarkRunner``), which drives an executor.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from recallbench.executor.threads import worker_threads

if TYPE_CHECKING:
    from recallbench.executor.handlers import import_handler
    from recallbench.executor.local import ProcessExecutor
    from recallbench.executor.local_workers import prestart
    from recallbench.executor.pool import Executor
    from recallbench.executor.spool import move_output
    from recallbench.executor.task import Task, TaskResult

# Loaded on first use, each from its module: the local backend imports numpy (results.py) and
# multiprocessing, which `recallbench --help` and every command's flags (EXECUTORS,
# ExecutorSettings) must not pay for.
_LAZY = {"Executor": "pool", "ProcessExecutor": "local", "Task": "task", "TaskResult": "task",
         "import_handler": "handlers", "move_output": "spool", "prestart": "local_workers"}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"recallbench.executor.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

EXECUTORS = ("local", "ray")


@dataclass(frozen=True)
class ExecutorSettings:
    """Where tasks run: ``kind`` local or ray, ``workers`` at once, ``address`` of a Ray
    cluster ("auto", "host:port"; None starts Ray on this machine)."""

    kind: str = "local"
    workers: int = 1
    address: str | None = None

    def manifest(self) -> dict[str, Any]:
        # the workers' BLAS/OpenMP threads: a thread count can reorder a float reduction
        return {"kind": self.kind, "workers": self.workers, "address": self.address,
                "threads": worker_threads()}


def make_executor(
    kind: str,
    handler: str,
    workers: int,
    *,
    timeout: float | None = None,
    log_path: str | Path | None = None,
    address: str | None = None,
) -> Executor:
    """An executor running ``handler`` ("module:function") on each task's payload."""
    from recallbench.executor.local import ProcessExecutor

    if kind == "local":
        return ProcessExecutor(handler, workers, timeout, log_path=log_path)
    if kind == "ray":
        from recallbench.executor.ray import RayExecutor

        return RayExecutor(handler, workers, timeout, log_path=log_path, address=address)
    raise ValueError(f"executor must be one of {', '.join(EXECUTORS)}, got {kind!r}")


def executor_for(settings: ExecutorSettings, handler: str, *, timeout: float | None = None,
                 log_path: str | Path | None = None) -> Executor:
    return make_executor(settings.kind, handler, settings.workers, timeout=timeout,
                         log_path=log_path, address=settings.address)


__all__ = ["EXECUTORS", "Executor", "ExecutorSettings", "ProcessExecutor", "Task", "TaskResult",
           "executor_for", "import_handler", "make_executor", "move_output", "prestart"]
