"""The one executor (bottom layer): generation and runs both hand it keyed tasks.

``make_executor`` picks a backend; today's backend is local worker processes
(``recallbench.executor.local``).
"""

from __future__ import annotations

from recallbench.executor.local import (
    Executor,
    ProcessExecutor,
    Task,
    TaskResult,
    import_handler,
    move_output,
)

__all__ = ["Executor", "ProcessExecutor", "Task", "TaskResult", "import_handler", "move_output"]
