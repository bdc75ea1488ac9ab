"""SceneMem acting baselines that use no memory, for the built-in world.

- ``MemorylessSearchPolicy``: ignores the videos and opens every fixture with a door, nearest
  first (geodesic distance from where the robot stands, re-ranked after each fixture), until
  the step budget runs out. It is the score a memory agent must beat: with enough steps it finds
  everything, so what memory buys is speed.
- ``RandomActionPolicy``: uniform random 12-dim actions (the floor of acting at all).
- ``DoNothingPolicy``: zero actions; it must score 0%, or a probe is already answered by the
  start state.

Both act only through ``get_action`` and the oracle's skills (``world.skills``), like the
hierarchical agent; the random fixture choice is ``hierarchical.HierarchicalRandom``.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from recallbench.agents.hierarchical import (
    ACTION_DIM,
    SkillDriver,
    door_fixtures,
    idle_action,
    open_fixture,
)
from recallbench.benchmarks.scenemem.policy import BasePolicy


def nearest_fixture(env: Any, fixtures: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The fixture whose approach pose is geodesically nearest the robot (None if none)."""
    grid = env.nav_grid
    here = env.base_pose()[:2]
    best, best_d = None, math.inf
    for f in fixtures:
        goal = grid.snap(np.asarray(f["approach_pose"][:2], dtype=float))
        d = grid.geodesic(here, goal)
        if d < best_d:
            best, best_d = f, d
    return best


class MemorylessSearchPolicy(BasePolicy):
    """Open door fixtures nearest-first until the budget ends; never looks at the videos."""

    def __init__(self) -> None:
        self._driver: SkillDriver | None = None
        self._todo: list[dict[str, Any]] = []
        self.visited: list[str] = []

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self._driver = None
        self._todo = []
        self.visited = []

    def get_action(self, env: Any) -> np.ndarray:
        if self._driver is None:
            self._driver = SkillDriver(env)
            self._todo = door_fixtures(env.world_meta["fixtures"])
        while True:
            action = self._driver.step()
            if action is not None:
                return action
            nxt = nearest_fixture(env, self._todo) if self._todo else None
            if nxt is None:  # all opened, or the rest cannot be reached from here
                self._todo = []
                return idle_action()
            self._todo.remove(nxt)
            self.visited.append(nxt["name"])
            self._driver.start(open_fixture(self._driver.oracle, nxt["name"]))


class RandomActionPolicy(BasePolicy):
    """Uniform random actions in [-1, 1]; NumPy's global generator, reseeded per test."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        pass

    def get_action(self, env: Any) -> np.ndarray:
        return np.random.uniform(-1.0, 1.0, size=int(getattr(env, "action_dim", ACTION_DIM)))


class DoNothingPolicy(BasePolicy):
    """Zero actions every step: the floor every memory policy must beat."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        pass

    def get_action(self, env: Any) -> np.ndarray:
        return np.zeros(env.action_dim)
