"""Dry runs of a planned FindingDory day's legs on the navigation grid: the follower's actions
for each leg (closing in on what it faces on arrival), and the frames each leg takes, driving then
looking or the arm phase (``Planner.cost``), so the day's idle time can be set before acting it
out."""

from __future__ import annotations

import math

import numpy as np

from recallbench.benchmarks.findingdory.ground_truth import body_pos
from recallbench.generate.findingdory_plan import (
    CARRY,
    CLEAR_Z,
    GRASP_ABOVE,
    HOLD_STEPS,
    LOOK_STEPS,
    MAX_NAV_STEPS,
    REACH_STEPS,
    RETRACT_STEPS,
    SETTLE_STEPS,
    DayFailed,
    Leg,
    face_yaw,
)
from recallbench.world.env import HomeEnv
from recallbench.world.geometry import wrap_angle
from recallbench.world.navigation import (
    DiscreteAction,
    GreedyGeodesicFollower,
    NavGrid,
    apply_discrete,
)
from recallbench.world.robot import HEAD_HEIGHT

ARM_LAG_STEPS = 4  # extra arm steps per waypoint: the servos lag their targets
# upper bound of one pick or place
ARM_STEPS = REACH_STEPS + RETRACT_STEPS + HOLD_STEPS + SETTLE_STEPS
APPROACH_MIN = 0.38  # m, base to target: the closest a pick or place steps in to (the arm
# reaches from 0.1 m; a tabletop object at 0.4 m fills 1.3-1.4x the frame it does at 0.5 m)
STEP_IN_TURNS = 6  # turn steps (10 deg) a step closer may leave off the target's bearing
MAX_DIP = math.radians(50.0)  # below the horizon: the head camera (tilted 30 deg, 55 deg tall
# view) sees down to 57.6 deg; a target kept above 50 deg stays in the frame


def _nav_steps(
    follower: GreedyGeodesicFollower, pose: np.ndarray, leg: Leg
) -> tuple[list[int], np.ndarray]:
    """Dry run of a leg on the grid: the follower's actions and the pose reached."""
    p = pose.copy()
    yaw = face_yaw(leg.goal, leg.face)
    actions: list[int] = []
    for _ in range(MAX_NAV_STEPS):
        a = follower.act(p, leg.goal, goal_yaw=yaw)
        if a == DiscreteAction.STOP:
            if follower.status != "arrived":
                raise DayFailed(f"{leg.kind} leg: goal {leg.goal} is unreachable")
            if leg.face is not None:
                z = leg.spot[2] if leg.spot is not None else leg.face_z
                p = _close_in(follower.grid, p, leg.face, z, actions)
            return actions, p
        actions.append(int(a))
        p = apply_discrete(follower.grid, p, a)
    raise DayFailed(f"{leg.kind} leg: no arrival within {MAX_NAV_STEPS} steps")


def _turn_to(grid: NavGrid, pose: np.ndarray, face: np.ndarray, actions: list[int]) -> np.ndarray:
    """Turn in place until the robot faces ``face`` (within half a turn step)."""
    half = math.radians(5.0)
    for _ in range(18):
        diff = wrap_angle(math.atan2(face[1] - pose[1], face[0] - pose[0]) - pose[2])
        if abs(diff) <= half:
            break
        a = DiscreteAction.TURN_LEFT if diff > 0 else DiscreteAction.TURN_RIGHT
        actions.append(int(a))
        pose = apply_discrete(grid, pose, a)
    return pose


def _close_in(grid: NavGrid, pose: np.ndarray, face: np.ndarray, z: float,
              actions: list[int]) -> np.ndarray:
    """Face ``face`` squarely from where the follower stopped (it aims from its goal cell, up
    to 0.25 m away: a target 20 deg off-centre sits at the edge of the 43 deg view), then step
    closer while a forward move gains ground and the target at height ``z`` stays well inside
    the view's lower edge: the object fills more of the frame. A step may leave at an angle
    (``STEP_IN_TURNS``): 0.25 m straight ahead often overshoots the closest allowed distance,
    while a step 40-60 deg off the target's bearing gains 0.1-0.2 m."""
    pose = _turn_to(grid, pose, face, actions)
    closest = max(APPROACH_MIN, (HEAD_HEIGHT - z) / math.tan(MAX_DIP))
    for _ in range(4):
        here = float(np.hypot(*(face - pose[:2])))
        best: tuple[float, int, int] | None = None  # (distance left, turns, signed turns)
        for k in range(-STEP_IN_TURNS, STEP_IN_TURNS + 1):
            turned = pose.copy()
            turned[2] += k * math.radians(10.0)
            moved = apply_discrete(grid, turned, DiscreteAction.MOVE_FORWARD)
            left = float(np.hypot(*(face - moved[:2])))
            if here - left >= 0.05 and left >= closest and (best is None or (left, abs(k))
                                                            < best[:2]):
                best = (left, abs(k), k)
        if best is None:
            break
        turn = DiscreteAction.TURN_LEFT if best[2] > 0 else DiscreteAction.TURN_RIGHT
        for _ in range(best[1]):
            actions.append(int(turn))
            pose = apply_discrete(grid, pose, turn)
        actions.append(int(DiscreteAction.MOVE_FORWARD))
        pose = _turn_to(grid, apply_discrete(grid, pose, DiscreteAction.MOVE_FORWARD), face,
                        actions)
    return pose


def _leg_cost(env: HomeEnv, leg: Leg) -> int:
    """Frames a leg spends after driving: looking around, or its arm phase."""
    if leg.kind == "revisit":
        return LOOK_STEPS
    if leg.kind not in ("pick", "place") or leg.end is None:
        return 0
    # The arm phase's path from the planned base pose: carry -> up -> across -> down, and back.
    x, y, yaw = leg.end
    base_z = env.data.xpos[env.model.body("mobilebase0_base").id][2]
    c, s = math.cos(yaw), math.sin(yaw)

    def to_base(p: np.ndarray) -> np.ndarray:
        d = p - np.array([x, y, base_z])
        return np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1], d[2]])

    if leg.kind == "pick":
        obj = body_pos(env, str(leg.obj))
        half = next(o for o in env.world_meta["objects"] if o["name"] == leg.obj)["half_height"]
        target = to_base(obj + np.array([0.0, 0.0, GRASP_ABOVE]))
        travel, extra = to_base(obj)[2] - half + CLEAR_Z, 0
    else:
        assert leg.spot is not None
        target = to_base(leg.spot + np.array([0.0, 0.0, GRASP_ABOVE]))
        travel, extra = target[2] + 0.1, HOLD_STEPS + SETTLE_STEPS
    z = max(travel, target[2])
    points = [CARRY, np.array([CARRY[0], CARRY[1], z]), np.array([target[0], target[1], z]), target]
    legs = [np.abs(b - a).max() for a, b in zip(points, points[1:], strict=False)]
    # 0.05 m per step along the longest axis, plus servo lag at every waypoint, both ways
    steps = 2 * sum(math.ceil(d / 0.05) + ARM_LAG_STEPS for d in legs) + extra
    return min(int(steps), ARM_STEPS)


class Planner:
    """Dry runs of legs, remembered by (start pose, leg): when a short day drops its optional
    legs, the legs before the first dropped one are not driven again. One follower serves all
    runs, so its planning grid and distance fields are built once."""

    def __init__(self, env: HomeEnv) -> None:
        self.env = env
        self.follower = GreedyGeodesicFollower(env.nav_grid)
        self._runs: dict[tuple[bytes, int], tuple[list[int], np.ndarray]] = {}

    def cost(self, legs: list[Leg]) -> int:
        """Steps the legs take at most: navigation measured by a dry run, arm phases bounded."""
        pose, total = self.env.base_pose(), 0
        for leg in legs:
            # the actions are kept: driving replays them (the follower is deterministic on
            # the grid, and arm phases put the base back exactly), so each leg is planned once
            key = (pose.tobytes(), id(leg))
            if key not in self._runs:
                self._runs[key] = _nav_steps(self.follower, pose, leg)
            leg.actions, pose = self._runs[key]
            leg.end = pose
            leg.steps = len(leg.actions) + _leg_cost(self.env, leg)
            total += leg.steps
        return total
