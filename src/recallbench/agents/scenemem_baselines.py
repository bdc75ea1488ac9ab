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

from typing import Any

import numpy as np

from recallbench.agents.fixture_controller import ACTION_DIM, FixtureSearch, SkillDriver
from recallbench.agents.hierarchical import door_fixtures
from recallbench.benchmarks.scenemem.policy import BasePolicy


class MemorylessSearchPolicy(BasePolicy):
    """Open door fixtures nearest-first until the budget ends; never looks at the videos."""

    def __init__(self) -> None:
        self._search: FixtureSearch | None = None

    @property
    def visited(self) -> list[str]:
        return self._search.visited if self._search is not None else []

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self._search = None

    def get_action(self, env: Any) -> np.ndarray:
        if self._search is None:
            fixtures = door_fixtures(env.world_meta["fixtures"])
            self._search = FixtureSearch(SkillDriver(env), fixtures)
        return self._search.next_action(env)


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
