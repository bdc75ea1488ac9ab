"""Low-level (navigation) policies for FindingDory's LL phase in the built-in world.

A policy drives the robot with FindingDory's discrete actions toward one goal at a time: the
pose recorded at a frame the agent chose. The protocol is small so that any controller plugs in
(`--ll-policy module:Class`):

    reset(env)                      a new case starts in ``env`` (a ``world.env.HomeEnv``)
    act(pose, goal) -> action       ``pose`` = current base (x, y, yaw); ``goal`` an ``LLGoal``

``act`` returns a ``DiscreteAction`` (or its int): STOP ends the current goal, the rollout then
moves on to the next chosen frame. Policies may keep state between calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recallbench.benchmarks.findingdory.protocol import LLGoal, LowLevelPolicy
from recallbench.world.navigation import DiscreteAction, GreedyGeodesicFollower


class GreedyFramePolicy:
    """Greedy geodesic follower to the chosen frame's pose, then turn to its heading and STOP.

    Standing where the robot stood, facing where it faced, reproduces the view the agent chose,
    so the goal predicate that held in that frame holds again, up to ``goal_radius``. The
    default 0.15 m (habitat's follower uses 0.25 m) matters: the first frame showing a target
    often shows only its edge, and 0.25 m off that pose it is out of view (measured on a
    generated episode: oracle LL-SR 0.77 at 0.25 m, 0.88 at 0.15 m); below 0.125 m, half the
    0.25 m forward step, some goals cannot be reached and the follower oscillates to timeout.
    """

    def __init__(self, goal_radius: float = 0.15, match_heading: bool = True) -> None:
        self.goal_radius = float(goal_radius)
        self.match_heading = bool(match_heading)
        self._follower: GreedyGeodesicFollower | None = None
        self._grid_id: int | None = None

    def reset(self, env: Any) -> None:
        grid = env.nav_grid
        # The follower's clearance-shrunk planning grid costs a pass over the map: keep it while
        # the world (hence the grid) is the same, which is every case of an episode.
        if self._follower is None or self._grid_id != id(grid):
            self._follower = GreedyGeodesicFollower(grid, goal_radius=self.goal_radius)
            self._grid_id = id(grid)

    def act(self, pose: np.ndarray, goal: LLGoal) -> DiscreteAction:
        if self._follower is None:
            raise RuntimeError("GreedyFramePolicy.act called before reset(env)")
        x, y, yaw = goal.pose
        return self._follower.act(pose, (x, y), yaw if self.match_heading else None)


class StopPolicy:
    """STOPs at once for every goal: the floor of LL-SR (succeeds only where it starts)."""

    def reset(self, env: Any) -> None:
        return None

    def act(self, pose: np.ndarray, goal: LLGoal) -> DiscreteAction:
        return DiscreteAction.STOP


class PolicyArgumentError(ValueError):
    """The policy was found but refused its constructor arguments (the fix is the arguments,
    not the name)."""


def load_ll_policy(spec: str, **kwargs: Any) -> LowLevelPolicy:
    """A navigation policy by registry name, ``module:Class`` or ``path/to/file.py:Class``."""
    from recallbench.agents.registry import resolve

    factory = resolve(spec, "navigation")
    try:
        policy = factory(**kwargs)
    except (TypeError, ValueError) as exc:
        raise PolicyArgumentError(f"LL policy {spec!r} refused its arguments: {exc}") from None
    if not isinstance(policy, LowLevelPolicy):
        raise ValueError(f"LL policy {spec!r} lacks reset(env) and act(pose, goal)")
    return policy
