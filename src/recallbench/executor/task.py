"""The unit of work every executor backend runs, and what comes back for it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Task:
    key: str
    payload: Any


@dataclass(frozen=True)
class TaskResult:
    """``value`` is the handler's return; ``error`` is set when it did not return one.

    ``lost``: the task never got a fair run (its machine went away, again and again); it says
    nothing about the agent, so runners record nothing and leave it for ``--resume``.
    """

    key: str
    value: Any = None
    error: str | None = None
    wall_time: float = 0.0
    lost: bool = False
