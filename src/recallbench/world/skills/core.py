"""The core every skill is built from: one control step (``act``), frame conversions, the arm
servo, and what a skill reports (``SkillResult``). Skill constants (reach, clearances) live here."""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import mujoco
import numpy as np

T = TypeVar("T")
# A skill is a generator of 12-dim actions that returns its outcome; ``SkillCore.run`` steps the env
# with them, a policy hands them out one ``get_action`` at a time.
Skill = Generator[np.ndarray, None, T]
Point = Sequence[float] | np.ndarray  # a position or pose, as a list or an array

# Reach of the grip site in the base frame (x forward, y left), with margins inside the arm's
# joint limits (arm x 0.1..1.1 m plus 0.16 m to the grip site, y +-0.5 m).
REACH_FORWARD = (0.3, 1.18)
COMFORT_FORWARD = 0.95  # beyond this, a base pose costs more (small base errors matter less)
REACH_LATERAL = 0.44
REACH_Z = (0.25, 1.78)  # torso kept at its home height
BASE_CLEARANCE = 0.03  # m kept between the base cylinder and an opened door panel
COLLIDE_Z = 0.36  # door geoms lower than this can hit the base (its top is at 0.29 m)
CARRY = np.array([0.36, 0.0, 1.05])  # grip site in the base frame while driving (x, y, z)
APPROACH_RADIUS = 1.16  # m: inside SceneMem's 1.2 m approach test, with room for base error
ARM_GAIN = 0.8  # fraction of the remaining error commanded per step (servo lag, no overshoot)


@dataclass
class SkillResult:
    """What one skill did: success from the sim state, the frames it spans, a short note."""

    skill: str
    success: bool
    start_frame: int
    end_frame: int
    detail: str = ""
    info: dict[str, Any] = field(default_factory=dict)


def rot2d(yaw: float) -> np.ndarray:
    """2-d rotation matrix by ``yaw``."""
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s], [s, c]])


class SkillCore:
    """Steps a ``HomeEnv`` and moves the arm: what every skill is built from.

    ``on_step(env)`` is called after every env step."""

    def __init__(self, env: Any, on_step: Callable[[Any], None] | None = None,
                 skill_step_limit: int = 900,
                 on_event: Callable[[SkillResult], None] | None = None) -> None:
        self.env = env
        self.model: mujoco.MjModel = env.model
        self.on_step = on_step
        self.on_event = on_event  # e.g. the recorder's note: what happened, at which frame
        self.limit = skill_step_limit
        self.frame = 0  # control steps taken (= frames recorded)
        self.events: list[SkillResult] = []
        self._scratch = mujoco.MjData(self.model)
        self._gripper = -1.0  # last gripper command: -1 open, +1 closed

    # ------------------------------------------------------------------ stepping
    def run(self, skill: Skill[T]) -> T:
        """Drive a skill to its end: step the env with each action it yields."""
        while True:
            try:
                action = next(skill)
            except StopIteration as stop:
                return stop.value
            self.env.step(action)
            if self.on_step is not None:
                self.on_step(self.env)

    def act(self, arm: Point | None = None, base: Point | None = None,
            grip: float | None = None, wrist: float = 0.0, torso: float = 0.0) -> Skill[None]:
        """One control step (yields its 12-dim action)."""
        a = np.zeros(12)
        if arm is not None:
            a[0:3] = arm
        a[5] = wrist
        if grip is not None:
            self._gripper = grip
        a[6] = self._gripper
        if base is not None:
            a[7:10] = base
        a[10] = torso
        yield a
        self.frame += 1

    def idle(self, steps: int) -> Skill[SkillResult]:
        start = self.frame
        for _ in range(steps):
            yield from self.act()
        return self._done("idle", True, start, f"{steps} steps")

    def _done(self, skill: str, ok: bool, start: int, detail: str = "", **info: Any
              ) -> SkillResult:
        r = SkillResult(skill, ok, start, self.frame, detail, info)
        self.events.append(r)
        if self.on_event is not None:
            self.on_event(r)
        return r

    # ------------------------------------------------------------------ frames
    def base_pose(self) -> np.ndarray:
        return self.env.base_pose()

    def to_base(self, p_world: Point, pose: Point | None = None
                ) -> np.ndarray:
        """World point -> base frame (x forward, y left, z up) for a base pose (default: now)."""
        pose = self.base_pose() if pose is None else np.asarray(pose, float)
        p = np.asarray(p_world, float)
        xy = rot2d(-pose[2]) @ (p[:2] - pose[:2])
        return np.array([xy[0], xy[1], p[2]])

    def to_world(self, p_base: Point) -> np.ndarray:
        pose = self.base_pose()
        p = np.asarray(p_base, float)
        return np.array([*(pose[:2] + rot2d(pose[2]) @ p[:2]), p[2]])

    def grip_pos(self) -> np.ndarray:
        return self.env.data.site_xpos[self.env._eef_site].copy()

    def body_pos(self, name: str) -> np.ndarray:
        return self.env.data.xpos[self.model.body(name).id].copy()

    def joint_q(self, name: str) -> float:
        return float(self.env.data.qpos[self.model.joint(name).qposadr[0]])

    @staticmethod
    def reachable(p_base: np.ndarray) -> bool:
        return bool(REACH_FORWARD[0] <= p_base[0] <= REACH_FORWARD[1]
                    and abs(p_base[1]) <= REACH_LATERAL and REACH_Z[0] <= p_base[2] <= REACH_Z[1])

    # ------------------------------------------------------------------ arm
    def _arm_action(self, target_world: np.ndarray) -> np.ndarray:
        err = self.to_base(target_world) - self.to_base(self.grip_pos())
        return np.clip(err * ARM_GAIN / 0.05, -1.0, 1.0)

    def move_grip(self, target_world: Point, tol: float = 0.012,
                  max_steps: int = 120, speed: float = 1.0) -> Skill[bool]:
        """Drive the grip site to a world point with the base still; True when within tol."""
        target = np.asarray(target_world, float)
        for _ in range(max_steps):
            if np.linalg.norm(self.grip_pos() - target) < tol:
                return True
            yield from self.act(arm=self._arm_action(target) * speed, base=(0, 0, 0))
        return bool(np.linalg.norm(self.grip_pos() - target) < tol * 2)

    def move_grip_path(self, points: Sequence[Point], tol: float = 0.012) -> Skill[bool]:
        ok = True
        for p in points:
            ok = (yield from self.move_grip(p, tol)) and ok
        return ok

    def carry_pose(self) -> Skill[bool]:
        """Pull the arm in and up so the base can drive (what it holds stays above counters)."""
        return (yield from self.move_grip(self.to_world(CARRY), tol=0.03, max_steps=80))

