"""What every worker does with a task, whichever backend runs it (a local process, a Ray actor).

A handler ("module:function") is imported once per worker, on its first task; a kept worker
serves the next executor's handler as well. Whatever the handler raises (SystemExit and
KeyboardInterrupt too) fails that task only, as one capped line.
"""

from __future__ import annotations

import contextlib
import sys
import traceback
from collections.abc import Callable
from typing import Any

from recallbench.executor.results import ERROR_CAP
from recallbench.loader import load_attr


def import_handler(ref: str) -> Callable[[Any], Any]:
    handler: Callable[[Any], Any] = load_attr(ref)
    return handler


class Handlers:
    """The handlers a worker has imported, by reference."""

    def __init__(self) -> None:
        self._loaded: dict[str, Callable[[Any], Any]] = {}

    def get(self, ref: str) -> Callable[[Any], Any]:
        if ref not in self._loaded:
            self._loaded[ref] = import_handler(ref)
        return self._loaded[ref]

    def call(self, ref: str, payload: Any) -> tuple[Any, str | None]:
        """``(value, None)``, or ``(None, error)`` when importing or running the handler raised."""
        try:
            return self.get(ref)(payload), None
        except BaseException as exc:  # SystemExit and KeyboardInterrupt fail the task only
            tb = traceback.format_exception_only(type(exc), exc)[-1].strip()
            return None, f"handler raised {tb}"[:ERROR_CAP]


def flush_stdio() -> None:
    """Push what the task printed to the file descriptors (the worker's spool)."""
    with contextlib.suppress(Exception):
        sys.stdout.flush()
        sys.stderr.flush()
