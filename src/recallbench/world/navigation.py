"""Navigation in the built-in world: grid, discrete actions and a greedy geodesic follower.

``NavGrid`` (occupancy grid + geodesics) lives in ``navgrid.py`` and is re-exported here. Actions
are FindingDory's discrete set applied to a planar pose ``(x, y, yaw)``.
"""

from __future__ import annotations

import math
from enum import IntEnum
from typing import Literal

import numpy as np

from recallbench.world.geometry import wrap_angle
from recallbench.world.navgrid import XY, NavGrid, path_length

__all__ = [
    "DiscreteAction",
    "GreedyGeodesicFollower",
    "NavGrid",
    "apply_discrete",
    "path_length",
]


class DiscreteAction(IntEnum):
    STOP = 0
    MOVE_FORWARD = 1
    TURN_LEFT = 2
    TURN_RIGHT = 3


def _forward_reach(grid: NavGrid, xy: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Farthest point of segment xy-target reachable without leaving the free space."""
    if grid.segment_free(xy, target):
        return target.copy()
    if not grid.is_navigable(xy):
        return xy.copy()  # already off the free space: do not move at all
    t = grid.free_fraction(xy, target)
    # stop a hair before the boundary of the first blocked cell so the end stays in a free one
    length = float(np.hypot(*(target - xy)))
    t = max(t - 1e-6 * grid.resolution / max(length, 1e-12), 0.0)
    end = xy + t * (target - xy)
    for _ in range(50):  # float round-off at the boundary: back off a little more
        if grid.segment_free(xy, end):
            return end
        t = max(t - 0.02 * grid.resolution / max(length, 1e-12), 0.0)
        end = xy + t * (target - xy)
    return xy.copy()


def apply_discrete(
    grid: NavGrid,
    pose: np.ndarray,
    action: DiscreteAction,
    *,
    forward_step: float = 0.25,
    turn_deg: float = 10.0,
) -> np.ndarray:
    """New pose (x, y, yaw) after ``action``; MOVE_FORWARD stops at the last free point.

    The robot never passes through walls or furniture: a forward move that would cross
    non-navigable cells is cut short where it would first enter one (no sliding along walls).
    """
    p = np.asarray(pose, dtype=float).reshape(3).copy()
    action = DiscreteAction(action)
    if action == DiscreteAction.MOVE_FORWARD:
        target = p[:2] + forward_step * np.array([math.cos(p[2]), math.sin(p[2])])
        p[:2] = _forward_reach(grid, p[:2], target)
    elif action == DiscreteAction.TURN_LEFT:
        p[2] = wrap_angle(p[2] + math.radians(turn_deg))
    elif action == DiscreteAction.TURN_RIGHT:
        p[2] = wrap_angle(p[2] - math.radians(turn_deg))
    return p


Status = Literal["idle", "navigating", "arrived", "unreachable"]


class GreedyGeodesicFollower:
    """Greedy follower of the geodesic shortest path, like habitat-lab's ShortestPathFollower.

    Each ``act`` turns toward the next waypoint of the shortest path until the heading is within
    half a turn step, then moves forward; within ``goal_radius`` (geodesic) of the goal it STOPs,
    after first turning to ``goal_yaw`` (within half a turn step) if one is given. After every
    call ``status`` says why: "navigating", "arrived" or "unreachable" (STOP is returned at once
    when no path exists, so callers can record the failure instead of looping).

    Paths are planned on the free space shrunk by ``clearance`` (default one cell) so that a
    heading off by up to half a turn step does not clip the corner the path wraps around; when
    that shrunk space cannot reach the goal, the follower plans on the full free space.
    """

    def __init__(
        self,
        grid: NavGrid,
        goal_radius: float = 0.25,
        forward_step: float = 0.25,
        turn_deg: float = 10.0,
        *,
        clearance: float | None = None,
    ) -> None:
        self.grid = grid
        self.goal_radius = float(goal_radius)
        self.forward_step = float(forward_step)
        self.turn_deg = float(turn_deg)
        self.clearance = grid.resolution if clearance is None else float(clearance)
        self._plan = grid.with_clearance(self.clearance)
        self.status: Status = "idle"
        self.waypoint: np.ndarray | None = None
        # (xy, goal) -> (geodesic distance, next waypoint) of the last call: a turn leaves xy
        # as it was, and about half of all steps are turns, whose plan is then the same
        self._last: tuple[bytes, float, np.ndarray | None] | None = None

    def _turn_toward(self, diff: float) -> DiscreteAction:
        return DiscreteAction.TURN_LEFT if diff >= 0 else DiscreteAction.TURN_RIGHT

    def _next_waypoint(self, xy: np.ndarray, goal: np.ndarray) -> np.ndarray | None:
        for plan in (self._plan, self.grid):
            if not plan.navigable.any():
                continue
            # the shrunk space must reach (nearly) the same goal, else plan on the full space
            if plan is not self.grid and np.hypot(*(plan.snap(goal) - goal)) > self.goal_radius / 2:
                continue
            start = xy if plan.is_navigable(xy) else plan.snap(xy)
            wp = plan.next_waypoint(start, goal)
            if wp is None:
                continue
            if start is not xy and not self.grid.segment_free(xy, wp):
                wp = start  # first get back into the planning space
            return wp
        return None

    def act(self, pose: np.ndarray, goal_xy: XY, goal_yaw: float | None = None) -> DiscreteAction:
        """Next discrete action from ``pose`` (x, y, yaw) toward ``goal_xy`` (snapped)."""
        p = np.asarray(pose, dtype=float).reshape(3)
        xy, yaw = p[:2], float(p[2])
        half = math.radians(self.turn_deg) / 2
        try:
            goal = self.grid.snap(goal_xy)
        except ValueError:
            self.status = "unreachable"
            return DiscreteAction.STOP
        key = xy.tobytes() + goal.tobytes()
        if self._last is not None and self._last[0] == key:
            dist, planned = self._last[1], self._last[2]
        else:
            # The geodesic is only compared with goal_radius, and it is never shorter than
            # the straight line: farther than that, the plan alone decides (it finds no
            # waypoint exactly when the goal is unreachable), without a distance field.
            try:
                straight = float(np.hypot(*(goal - self.grid.snap(xy))))  # as distance_to
            except ValueError:
                straight = math.inf
            far = math.isfinite(straight) and straight > self.goal_radius
            dist, planned = (straight if far else self.grid.distance_to(goal, xy)), None
            self._last = (key, dist, None)
        if not math.isfinite(dist):
            self.status = "unreachable"
            self.waypoint = None
            return DiscreteAction.STOP
        if dist <= self.goal_radius:
            self.waypoint = goal
            if goal_yaw is not None:
                diff = wrap_angle(float(goal_yaw) - yaw)
                if abs(diff) > half:
                    self.status = "navigating"
                    return self._turn_toward(diff)
            self.status = "arrived"
            return DiscreteAction.STOP
        self.status = "navigating"
        if planned is None:
            planned = self._next_waypoint(xy, goal)
            self._last = (key, dist, planned)
        wp = planned
        if wp is None:  # no plan on any planning space: the goal is unreachable
            self.status = "unreachable"
            return DiscreteAction.STOP
        self.waypoint = wp
        diff = wrap_angle(math.atan2(wp[1] - xy[1], wp[0] - xy[0]) - yaw)
        if abs(diff) > half:
            return self._turn_toward(diff)
        moved = apply_discrete(
            self.grid, p, DiscreteAction.MOVE_FORWARD, forward_step=self.forward_step
        )
        if np.hypot(*(moved[:2] - xy)) < 0.2 * self.forward_step:
            # facing a wall within tolerance: a forward move would stall, so turn instead
            return self._turn_toward(diff)
        return DiscreteAction.MOVE_FORWARD
