"""Workers kept across the executors of one command (``recallbench run`` runs benchmark after
benchmark, agent after agent, each through its own executor).

Inside ``keep_workers()``, an executor that closes hands its idle, healthy workers here instead
of stopping them, and the next executor takes them before starting new ones; the block's end
stops them all. A Ray actor costs seconds to start (a process on its node, imports, a policy's
setup), so a run pays that once, not once per benchmark and agent. Results never depend on which
worker ran a task (every per-case random stream comes from the case key), so reuse changes
nothing but time. Outside the block executors stop their workers on close, as before.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any


class KeptWorkers:
    """Idle workers by backend, and what to call when the block ends (in reverse order)."""

    def __init__(self) -> None:
        self._idle: dict[str, list[Any]] = {}
        self._at_end: list[Callable[[], None]] = []

    def put(self, backend: str, worker: Any) -> None:
        self._idle.setdefault(backend, []).append(worker)

    def take(self, backend: str) -> list[Any]:
        return self._idle.pop(backend, [])

    def at_end(self, fn: Callable[[], None]) -> None:
        self._at_end.append(fn)

    def close(self) -> None:
        for fn in reversed(self._at_end):
            with contextlib.suppress(Exception):  # one failure must not keep the rest alive
                fn()
        self._at_end.clear()
        self._idle.clear()


_active: KeptWorkers | None = None


@contextlib.contextmanager
def keep_workers() -> Iterator[KeptWorkers]:
    """Keep workers alive across the executors made inside the block (nested blocks share the
    outermost one's)."""
    global _active
    if _active is not None:
        yield _active
        return
    _active = KeptWorkers()
    try:
        yield _active
    finally:
        kept, _active = _active, None
        kept.close()


def kept_workers() -> KeptWorkers | None:
    """The active block's workers, or None outside any block."""
    return _active
