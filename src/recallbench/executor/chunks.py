"""How many queued tasks a worker is handed at once: cheap tasks in chunks, costly ones singly.

A round trip to a worker per task costs about as much as a cheap task (a random FindingDory
answer takes ~0.3 ms), and driver and worker then take turns instead of working at once. So a
worker is handed a chunk of tasks sized to roughly ``TARGET_SECONDS`` of work (from the wall
times seen so far), and the next chunk before it runs dry. Chunking never changes what a task
computes, its time limit or what a crash costs: the worker runs a chunk one task at a time,
reporting each as it ends; a crash or timeout fails the task that was running and the rest of
the chunk goes back to the queue (``local.py``, ``ray.py``; on Ray, where a dying actor may
lose the replies of tasks it had just finished, the chunk's tasks then run again one at a time).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

# Work per chunk: small next to any time limit, large next to a round trip (~0.1 ms locally).
TARGET_SECONDS = 0.05
# At most this many tasks per chunk (bounds what a re-queue after a crash moves around).
MAX_CASES = 256
# Weight of the newest wall time in the running mean: the first task of a worker often builds
# its agent, so one slow task must not size chunks for long.
_ALPHA = 0.2


@dataclass
class ChunkSizer:
    """Sizes chunks from the tasks' wall times; ``fixed`` pins the size (tests, benches)."""

    fixed: int | None = None
    target: float = TARGET_SECONDS
    max_cases: int = MAX_CASES
    _mean: float | None = field(default=None, init=False)

    def __post_init__(self) -> None:
        if self.fixed is not None and self.fixed < 1:
            raise ValueError("chunk size must be >= 1")

    def observe(self, wall_time: float) -> None:
        wall = max(0.0, wall_time)
        self._mean = wall if self._mean is None else self._mean + _ALPHA * (wall - self._mean)

    def size(self, queued: int, workers: int) -> int:
        """Tasks for the next chunk: one until a wall time is known (costly tasks stay single),
        and never more than a fair share of the queue, so every worker gets some of the end."""
        if self.fixed is not None:
            want = self.fixed
        elif self._mean is None:
            want = 1
        else:
            want = int(self.target / max(self._mean, 1e-6))
        fair = math.ceil(queued / max(1, workers))
        return max(1, min(want, self.max_cases, fair))

    def refill_at(self, chunk: int) -> int:
        """Hand a worker its next chunk once it has at most this many tasks left, so it never
        waits for the driver; a worker of single tasks gets the next only when idle, as before
        (a costly task never waits behind another while a worker sits idle)."""
        return chunk // 2 if chunk > 1 else 0
