"""Door skills: open and close hinged or sliding doors, turn the sink lever, approach a fixture."""

from __future__ import annotations

import math

import numpy as np

from recallbench.world.skills.base_motion import BaseMotion
from recallbench.world.skills.core import APPROACH_RADIUS, Skill, SkillResult


class DoorSkills(BaseMotion):
    """Skills that move a fixture's doors (or stand by it), built on base motion and the arm."""

    # ------------------------------------------------------------------ doors
    def fixture(self, name: str) -> dict:
        return self.env.fixture(name)

    def door_of(self, fixture: dict, door: str | None = None) -> dict:
        doors = fixture["doors"]
        if door is None:
            return doors[0]
        for d in doors:
            if d["name"] == door:
                return d
        raise KeyError(f"{fixture['name']} has no door {door!r}")

    def hinge_kind(self, door: dict) -> str:
        """"side" (vertical hinge), "bottom" (drops toward the viewer) or "slide"."""
        if door["kind"] == "slide":
            return "slide"
        axis = self.model.jnt_axis[self.model.joint(door["joint"]).id]
        return "side" if abs(axis[2]) > 0.5 else "bottom"

    def open_targets(self, door: dict) -> list[float]:
        """Opening angles to try, widest first (a wide-open door may sweep through the base)."""
        lo, hi = door["range"]
        if door["kind"] == "slide":
            return [hi - 0.02]
        first = 1.25 if self.hinge_kind(door) == "side" else 0.95  # bottom doors drop low
        return [min(hi - 0.05, a) for a in (first, 1.0, 0.8, 0.65) if a <= first]

    def open_door(self, fixture_name: str, door: str | None = None, angle: float | None = None
                  ) -> Skill[SkillResult]:
        """Drive up, grasp the handle, pull it along its hinge arc (or slide axis), let go."""
        return self._move_door(fixture_name, door, angle, opening=True)

    def close_door(self, fixture_name: str, door: str | None = None) -> Skill[SkillResult]:
        return self._move_door(fixture_name, door, 0.0, opening=False)

    def _door_plan(self, fx: dict, d: dict, q0: float, q1: float) -> np.ndarray | None:
        lo = min(q0, q1)
        hi = max(q0, q1)
        qs = np.linspace(lo, hi, 9)
        handles = [self.handle_at(d, q) for q in qs]
        approach = handles[0 if q0 == lo else -1].copy()
        avoid = [c for q in qs for c in self._low_door_boxes(d, q)]
        # SceneMem counts a fixture approached within 1.2 m of its body: prefer poses there
        near = (self.body_pos(fx["body_name"]), APPROACH_RADIUS, False)
        return self.work_pose(fx["approach_pose"], [*handles, approach], avoid, near=near)

    def approach(self, fixture_name: str, within: float = APPROACH_RADIUS
                 ) -> Skill[SkillResult]:
        """Drive to within ``within`` m (xy) of the fixture's body, clear of its open doors."""
        start = self.frame
        fx = self.fixture(fixture_name)
        body = self.body_pos(fx["body_name"])
        info = {"fixture": fixture_name}
        if float(np.linalg.norm(self.base_pose()[:2] - body[:2])) <= within:
            return self._done("approach", True, start, "already there", **info)
        pose = self.work_pose(fx["approach_pose"], [], self._open_door_boxes(fx), lateral=1.0,
                              back=(-0.6, 0.7), near=(body, within, True), step=0.025,
                              sweep_from=self.base_pose())
        if pose is None:
            return self._done("approach", False, start, "no free pose that close", **info)
        yield from self.carry_pose()
        # sideways first, then straight in: the nav grid does not know the open door, and a
        # diagonal drive could sweep the base through it
        mid = self._mid(self.base_pose(), pose)
        yield from self.navigate_to(np.array([mid[0], mid[1], pose[2]]), straight=True)
        nav = yield from self.navigate_to(pose, straight=True)
        dist = float(np.linalg.norm(self.base_pose()[:2] - body[:2]))
        return self._done("approach", bool(nav.success and dist <= within + 0.05), start,
                          f"{dist:.2f} m from {fx['body_name']}", **info)

    def _front(self, fx: dict) -> np.ndarray:
        """Unit xy vector out of the fixture's front."""
        yaw = float(fx["yaw"]) + math.pi / 2
        return np.array([math.cos(yaw), math.sin(yaw)])

    def _door_normal_point(self, door: dict, p: np.ndarray, out: float) -> np.ndarray:
        """``p`` moved ``out`` metres along the door panel's outward normal (its local +y)."""
        rot = self.env.data.xmat[self.model.body(door["body"]).id].reshape(3, 3)
        return p + rot[:, 1] * out

    def _move_door(self, fixture_name: str, door_name: str | None, angle: float | None,
                   opening: bool) -> Skill[SkillResult]:
        start = self.frame
        skill = "open_door" if opening else "close_door"
        fx = self.fixture(fixture_name)
        d = self.door_of(fx, door_name)
        q0 = self.joint_q(d["joint"])
        if not opening:
            targets = [0.0 if d["kind"] == "slide" else max(d["range"][0], 0.0)]
        else:
            targets = self.open_targets(d) if angle is None else [float(angle)]
        info = {"fixture": fixture_name, "door": d["name"], "joint": d["joint"]}
        if self.env.held_body() is not None:
            return self._done(skill, False, start, "hands full", **info)
        if abs(targets[0] - q0) < 0.02:
            return self._done(skill, True, start, "already there", **info)
        pose, q1 = None, targets[0]
        for q1 in targets:
            pose = self._door_plan(fx, d, q0, q1)
            if pose is not None:
                break
        if pose is None:
            return self._done(skill, False, start, "no base pose reaches the handle", **info)
        yield from self.carry_pose()
        nav = yield from self.navigate_to(pose)
        if not nav.success:
            return self._done(skill, False, start,
                              f"could not drive to the door {self.last_nav_error}", **info)
        handle = self.body_pos(d["handle_body"])
        pre = self._door_normal_point(d, handle, 0.1)
        if self.reachable(self.to_base(pre)):  # come at the handle from its front
            yield from self.move_grip(pre, tol=0.02)
        yield from self.move_grip(handle, tol=0.01)
        yield from self.act(grip=1.0)
        if self.env.held_body() != self.model.body(d["handle_body"]).id:
            yield from self.act(grip=-1.0)
            yield from self.carry_pose()
            return self._done(skill, False, start, "missed the handle", **info)
        offset = self.grip_pos() - handle  # keep the grasp point where it is on the handle
        n = max(8, int(abs(q1 - q0) / 0.03))
        for q in np.linspace(q0, q1, n + 1)[1:]:
            yield from self.move_grip(self.handle_at(d, q) + offset, tol=0.015, max_steps=6)
        yield from self.move_grip(self.handle_at(d, q1) + offset, tol=0.01, max_steps=30)
        for _ in range(6):  # hold still so the door has no speed left when let go
            yield from self.act(arm=self._arm_action(self.handle_at(d, q1) + offset))
        yield from self.act(grip=-1.0)
        # back the gripper straight off the handle before pulling the arm in
        back = self._door_normal_point(d, self.grip_pos(), 0.08)
        if self.reachable(self.to_base(back)):
            yield from self.move_grip(back, tol=0.02, max_steps=40)
        yield from self.carry_pose()
        for _ in range(5):
            yield from self.act()
        q = self.joint_q(d["joint"])
        # an opened door may sag past the target under its handle's weight: open enough counts
        ok = q >= q1 - 0.15 if opening else abs(q - q1) < 0.08
        return self._done(skill, bool(ok), start, f"{d['joint']} = {q:.2f}", q=round(q, 3),
                          **info)

    def turn_sink(self, fixture_name: str = "sink", angle: float = 1.0) -> Skill[SkillResult]:
        """Turn the sink's lever handle to ``angle`` (rad) by pushing it round its axis."""
        r = yield from self._move_door(fixture_name, None, angle, opening=True)
        r.skill = "turn_sink"
        return r


    def _open_door_boxes(self, fx: dict) -> list[np.ndarray]:
        return [c for d in fx["doors"] for c in self._low_door_boxes(d, self.joint_q(d["joint"]))]

