"""ToyBench agents: ``pick_frame(frames, target) -> index`` (the role's one method)."""

from __future__ import annotations

import random


class ToyOracle:
    """Looks at every frame and answers right."""

    agent_kind = "privileged"

    def pick_frame(self, frames: list[str], target: str) -> int:
        return frames.index(target)


class ToyRandom:
    """A random frame (seeded per case by the runner)."""

    agent_kind = "random"

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def pick_frame(self, frames: list[str], target: str) -> int:
        return self.rng.randrange(len(frames))


class ToyFirst:
    """Always the first frame, without looking: a suite that puts the asked colour first more
    often than chance rewards it (the shortcut the audit checks for)."""

    agent_kind = "memoryless"

    def pick_frame(self, frames: list[str], target: str) -> int:
        return 0
