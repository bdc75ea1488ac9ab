"""Running tasks through a real ``ProcessExecutor`` for the executor tests."""

from __future__ import annotations

from typing import Any

from recallbench.executor import ProcessExecutor, Task, TaskResult

HANDLER = "support.scenemem_fixtures.tasks:work"


def run_all(tasks: list[Task], **kwargs: Any) -> dict[str, TaskResult]:
    """Every task's result by key; a task reported twice fails the test."""
    with ProcessExecutor(HANDLER, **kwargs) as ex:
        for t in tasks:
            ex.submit(t)
        out: dict[str, TaskResult] = {}
        for r in ex.results():
            assert r.key not in out, "a task was reported twice"
            out[r.key] = r
    return out
