"""The scripted oracle: skills that act only through ``HomeEnv.step`` (the 12-dim PandaOmron
actions), each checking its own success from the simulator state afterwards.

Every control step goes through ``Oracle.act``, which also hands the step to an optional
recorder (``recorder.capture(env)``), so a recorded video shows exactly what the actions did.
Skills plan with kinematic look-ups on a scratch ``MjData`` (where is a handle at angle q, does
an opened door sweep through the base), never by moving the real state.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

import mujoco
import numpy as np

from recallbench.world.geometry import wrap_angle

T = TypeVar("T")
# A skill is a generator of 12-dim actions that returns its outcome; ``Oracle.run`` steps the env
# with them, a policy hands them out one ``get_action`` at a time.
Skill = Generator[np.ndarray, None, T]

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


def _rot(yaw: float) -> np.ndarray:
    c, s = math.cos(yaw), math.sin(yaw)
    return np.array([[c, -s], [s, c]])


class Oracle:
    """Drives a ``HomeEnv`` through skills. ``on_step(env)`` is called after every env step."""

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

    def act(self, arm: Sequence[float] | None = None, base: Sequence[float] | None = None,
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

    def to_base(self, p_world: Sequence[float], pose: Sequence[float] | None = None
                ) -> np.ndarray:
        """World point -> base frame (x forward, y left, z up) for a base pose (default: now)."""
        pose = self.base_pose() if pose is None else np.asarray(pose, float)
        p = np.asarray(p_world, float)
        xy = _rot(-pose[2]) @ (p[:2] - pose[:2])
        return np.array([xy[0], xy[1], p[2]])

    def to_world(self, p_base: Sequence[float]) -> np.ndarray:
        pose = self.base_pose()
        p = np.asarray(p_base, float)
        return np.array([*(pose[:2] + _rot(pose[2]) @ p[:2]), p[2]])

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
        return np.clip(err * ARM_GAIN / self.env.arm_step, -1.0, 1.0)

    def move_grip(self, target_world: Sequence[float], tol: float = 0.012,
                  max_steps: int = 120, speed: float = 1.0) -> Skill[bool]:
        """Drive the grip site to a world point with the base still; True when within tol."""
        target = np.asarray(target_world, float)
        for _ in range(max_steps):
            if np.linalg.norm(self.grip_pos() - target) < tol:
                return True
            yield from self.act(arm=self._arm_action(target) * speed, base=(0, 0, 0))
        return bool(np.linalg.norm(self.grip_pos() - target) < tol * 2)

    def move_grip_path(self, points: Sequence[Sequence[float]], tol: float = 0.012) -> Skill[bool]:
        ok = True
        for p in points:
            ok = (yield from self.move_grip(p, tol)) and ok
        return ok

    def carry_pose(self) -> Skill[bool]:
        """Pull the arm in and up so the base can drive (what it holds stays above counters)."""
        return (yield from self.move_grip(self.to_world(CARRY), tol=0.03, max_steps=80))

    # ------------------------------------------------------------------ navigation
    def navigate_to(self, pose: Sequence[float], pos_tol: float = 0.03,
                    yaw_tol: float = 0.03, straight: bool = False) -> Skill[SkillResult]:
        """Plan on the nav grid and follow the path with base velocity commands.

        ``straight``: drive the straight segment instead (short moves the caller has checked
        against what the grid does not know, such as open doors)."""
        start = self.frame
        goal = np.asarray(pose, float)
        grid = self.env.nav_grid
        here = self.base_pose()
        path = (np.array([here[:2], goal[:2]]) if straight
                else grid.shortest_path(here[:2], goal[:2]))
        if path is None:
            return self._done("navigate", False, start, "no path", goal=goal.tolist())
        path = np.vstack([path, goal[None, :2]])
        k = 1
        last_progress, best = self.frame, math.inf
        while self.frame - start < self.limit * 2:
            p = self.base_pose()
            while k < len(path) - 1 and np.linalg.norm(path[k] - p[:2]) < 0.25:
                k += 1
            to_goal = float(np.linalg.norm(goal[:2] - p[:2]))
            if to_goal < pos_tol and abs(wrap_angle(goal[2] - p[2])) < yaw_tol:
                break
            wp = path[k]
            d = wp - p[:2]
            dist = float(np.linalg.norm(d))
            # face the way we drive while far, the goal heading near the end
            heading = math.atan2(d[1], d[0]) if to_goal > 0.6 and dist > 0.05 else goal[2]
            speed = min(1.0, 0.25 + to_goal) if k == len(path) - 1 else 1.0
            v = np.zeros(2) if dist < 1e-6 else d / dist * min(speed, dist * 4.0 / 0.6)
            vb = _rot(-p[2]) @ v
            yaw_rate = np.clip(wrap_angle(heading - p[2]) * 2.5, -1.0, 1.0)
            if abs(wrap_angle(heading - p[2])) > 0.8 and to_goal > 0.6:
                vb = vb * 0.2  # turn mostly in place before long moves
            yield from self.act(base=(float(vb[0]), float(vb[1]), float(yaw_rate)))
            if to_goal < best - 0.01:
                best, last_progress = to_goal, self.frame
            elif self.frame - last_progress > 80:
                break
        for _ in range(6):  # let the base settle
            yield from self.act(base=(0, 0, 0))
        p = self.base_pose()
        self.last_nav_error = (float(np.linalg.norm(goal[:2] - p[:2])),
                               float(wrap_angle(goal[2] - p[2])))
        ok = bool(np.linalg.norm(goal[:2] - p[:2]) < max(pos_tol * 2, 0.06)
                  and abs(wrap_angle(goal[2] - p[2])) < 0.08)
        return self._done("navigate", ok, start, "" if ok else "did not reach the goal",
                          goal=[round(float(v), 4) for v in goal])

    # ------------------------------------------------------------------ kinematic look-ups
    def _kin(self, joint_values: dict[str, float]) -> mujoco.MjData:
        s = self._scratch
        s.qpos[:] = self.env.data.qpos
        for j, q in joint_values.items():
            s.qpos[self.model.joint(j).qposadr[0]] = q
        mujoco.mj_kinematics(self.model, s)
        return s

    def handle_at(self, door: dict, q: float) -> np.ndarray:
        return self._kin({door["joint"]: q}).xpos[self.model.body(door["handle_body"]).id].copy()

    def _low_door_boxes(self, door: dict, q: float) -> list[np.ndarray]:
        """xy outlines of the parts of the door's collision boxes lower than COLLIDE_Z at
        angle q (only those can hit the base)."""
        s = self._kin({door["joint"]: q})
        m = self.model
        body = m.body(door["body"]).id
        signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
        out = []
        for g in range(m.ngeom):
            if m.geom_bodyid[g] != body or m.geom_contype[g] == 0:
                continue
            if m.geom_type[g] != mujoco.mjtGeom.mjGEOM_BOX:
                continue
            pts = (signs * m.geom_size[g]) @ s.geom_xmat[g].reshape(3, 3).T + s.geom_xpos[g]
            low = [p[:2] for p in pts if p[2] < COLLIDE_Z]
            for i in range(8):
                for j in range(i + 1, 8):
                    if np.count_nonzero(signs[i] != signs[j]) != 1:
                        continue  # not an edge of the box
                    a, b = pts[i], pts[j]
                    if (a[2] - COLLIDE_Z) * (b[2] - COLLIDE_Z) < 0:
                        t = (COLLIDE_Z - a[2]) / (b[2] - a[2])
                        low.append((a + t * (b - a))[:2])
            if low:
                out.append(np.array(low))
        return out

    @staticmethod
    def _mid(here: np.ndarray, pose: np.ndarray) -> np.ndarray:
        """Corner of the L-shaped drive to ``pose``: same depth as ``here``, pose's lateral."""
        fwd = np.array([math.cos(pose[2]), math.sin(pose[2])])
        return pose[:2] + float(np.dot(here[:2] - pose[:2], fwd)) * fwd

    def _legs_clear(self, here: np.ndarray, pose: np.ndarray, avoid: Sequence[np.ndarray],
                    radius: float) -> bool:
        mid = self._mid(here, pose)
        for a, b in ((here[:2], mid), (mid, pose[:2])):
            n = max(2, int(np.linalg.norm(b - a) / 0.04) + 1)
            for t in np.linspace(0.0, 1.0, n):
                p = a + t * (b - a)
                if any(self._dist_to_box(p, c) < radius for c in avoid):
                    return False
        return True

    @staticmethod
    def _dist_to_box(xy: np.ndarray, corners: np.ndarray) -> float:
        """Distance from a point to the segments between outline points (thin panels)."""
        from itertools import combinations

        if len(corners) == 1:
            return float(np.linalg.norm(xy - corners[0]))
        best = math.inf
        for a, b in combinations(corners, 2):
            ab = b - a
            t = np.clip(np.dot(xy - a, ab) / max(np.dot(ab, ab), 1e-12), 0.0, 1.0)
            best = min(best, float(np.linalg.norm(xy - (a + t * ab))))
        return best

    def work_pose(self, anchor_pose: Sequence[float], reach: Sequence[np.ndarray],
                  avoid: Sequence[np.ndarray] = (), lateral: float = 0.8,
                  back: tuple[float, float] = (-0.45, 0.7),
                  near: tuple[np.ndarray, float, bool] | None = None, step: float = 0.05,
                  sweep_from: np.ndarray | None = None) -> np.ndarray | None:
        """A base pose near ``anchor_pose`` (same heading) from which every ``reach`` point is
        in the arm's reach and no ``avoid`` box (door panels) comes within the base radius.

        ``near = (xy, radius, hard)``: stay within ``radius`` of ``xy`` (a must when ``hard``,
        else a preference). ``sweep_from``: the base drives there from this xy, sideways then
        straight in (``approach``), and neither leg may pass an ``avoid`` box."""
        anchor = np.asarray(anchor_pose, float)
        yaw = anchor[2]
        fwd = np.array([math.cos(yaw), math.sin(yaw)])
        left = np.array([-fwd[1], fwd[0]])
        grid = self.env.nav_grid
        radius = float(self.env.world_meta["robot"]["radius"]) + BASE_CLEARANCE
        here = self.base_pose()[:2]
        best, best_cost = None, math.inf
        for a in np.arange(-lateral, lateral + 1e-9, step):
            for b in np.arange(back[0], back[1] + 1e-9, step):
                xy = anchor[:2] + a * left - b * fwd
                cost = abs(a) + abs(b) * 0.7
                if near is not None:
                    over = float(np.linalg.norm(xy - near[0][:2])) - near[1]
                    if over > 0 and near[2]:
                        continue
                    cost += 3.0 * max(over, 0.0)
                if cost >= best_cost or not grid.is_navigable(xy):
                    continue
                pose = np.array([xy[0], xy[1], yaw])
                local = [self.to_base(p, pose) for p in reach]
                if not all(self.reachable(q) for q in local):
                    continue
                cost += 2.0 * max([0.0, *(q[0] - COMFORT_FORWARD for q in local)])
                if cost >= best_cost:
                    continue
                if any(self._dist_to_box(xy, c) < radius for c in avoid):
                    continue
                if sweep_from is not None and not self._legs_clear(sweep_from, pose, avoid,
                                                                   radius):
                    continue
                if not math.isfinite(grid.geodesic(here, xy)):
                    continue
                best, best_cost = pose, cost
        return best

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

    # ------------------------------------------------------------------ objects
    def object_pos(self, name: str) -> np.ndarray:
        return self.body_pos(self.env.object(name)["body_name"])

    def _location(self, name: str) -> tuple[str, dict]:
        for f in self.env.world_meta["fixtures"]:
            if f["name"] == name:
                return "fixture", f
        for r in self.env.world_meta["receptacles"]:
            if r["name"] == name:
                return "receptacle", r
        raise KeyError(f"no fixture or receptacle {name!r}")

    def _open_door_boxes(self, fx: dict) -> list[np.ndarray]:
        return [c for d in fx["doors"] for c in self._low_door_boxes(d, self.joint_q(d["joint"]))]

    def where_is(self, obj: str) -> str | None:
        """The fixture interior or receptacle top the object is in/on now, else None."""
        p = self.object_pos(obj)
        for f in self.env.world_meta["fixtures"]:
            if self._in_site(p, f["interior_site"], margin=0.03, below=0.06):
                return f["name"]
        for r in self.env.world_meta["receptacles"]:
            if self._in_site(p, r["top_site"], margin=0.05, below=0.1):
                return r["name"]
        return None

    def _in_site(self, p: np.ndarray, site: str, margin: float, below: float) -> bool:
        sid = self.model.site(site).id
        rot = self.env.data.site_xmat[sid].reshape(3, 3)
        local = rot.T @ (p - self.env.data.site_xpos[sid])
        half = self.model.site_size[sid]
        return bool(abs(local[0]) <= half[0] + margin and abs(local[1]) <= half[1] + margin
                    and -half[2] - below <= local[2] <= half[2] + margin)

    def pick(self, obj: str) -> Skill[SkillResult]:
        """Drive to the object, reach it from the front, grasp, lift, pull back to carry."""
        start = self.frame
        meta = self.env.object(obj)
        body = self.model.body(meta["body_name"]).id
        where = self.where_is(obj)
        info = {"object": obj, "from": where}
        if where is None:
            return self._done("pick", False, start, "object is not on a known surface", **info)
        kind, loc = self._location(where)
        p = self.object_pos(obj)
        f = self._front(loc) if kind == "fixture" else None
        if kind == "fixture":
            path = [p + np.array([f[0] * 0.35, f[1] * 0.35, 0.02]), p + np.array([0, 0, 0.02])]
            lift = [p + np.array([0, 0, 0.03]),
                    p + np.array([f[0] * 0.45, f[1] * 0.45, 0.03])]
        else:
            path = [p + np.array([0, 0, 0.15]), p.copy()]
            lift = [p + np.array([0, 0, 0.2])]
        pose = self.work_pose(loc["approach_pose"], [*path, *lift], self._open_door_boxes(loc)
                              if kind == "fixture" else ())
        if pose is None:
            return self._done("pick", False, start, "no base pose reaches it", **info)
        yield from self.carry_pose()
        if not (yield from self.navigate_to(pose)).success:
            return self._done("pick", False, start,
                              f"could not drive there {self.last_nav_error}", **info)
        p = self.object_pos(obj)  # it may have settled since planning
        path[-1] = p + (np.array([0, 0, 0.02]) if kind == "fixture" else 0.0)
        yield from self.move_grip_path(path)
        yield from self.act(grip=1.0)
        if self.env.held_body() != body:
            yield from self.act(grip=-1.0)
            yield from self.carry_pose()
            return self._done("pick", False, start, "grasp missed", **info)
        yield from self.move_grip_path(lift)
        yield from self.carry_pose()
        ok = self.env.held_body() == body and self.where_is(obj) is None
        return self._done("pick", bool(ok), start, "", **info)

    def place_target(self, obj: str, target: str) -> tuple[str, dict, np.ndarray]:
        """World point where the object's origin should rest in/on ``target``."""
        kind, loc = self._location(target)
        meta = self.env.object(obj)
        site = loc["interior_site"] if kind == "fixture" else loc["top_site"]
        sid = self.model.site(site).id
        c = self.env.data.site_xpos[sid].copy()
        half = self.model.site_size[sid]
        rot = self.env.data.site_xmat[sid].reshape(3, 3)
        bottom = c - rot[:, 2] * half[2]
        x_off = 0.0
        y_off = 0.0
        if kind == "fixture":
            x_off = self._free_side(loc, half[0])
            y_off = min(0.08, 0.4 * half[1])  # toward the opening: shorter reach in
        else:
            bottom = c - rot[:, 2] * half[2] if half[2] > 0 else c
            # spread objects along the top so they do not land on each other
            x_off = self._free_spot(loc, c, rot, half)
        up = meta["half_height"] + 0.01
        p = bottom + rot[:, 0] * x_off + rot[:, 1] * y_off + rot[:, 2] * up
        return kind, loc, p

    def _free_side(self, fx: dict, half_x: float) -> float:
        """Lateral offset in the interior away from any opened side-hinged door panel."""
        for d in fx["doors"]:
            if d["kind"] != "hinge" or self.joint_q(d["joint"]) < 0.3:
                continue
            axis = self.model.jnt_axis[self.model.joint(d["joint"]).id]
            if abs(axis[2]) > 0.5:  # side hinge: +z axis hinges on the left, -z on the right
                return 0.45 * half_x if axis[2] > 0 else -0.45 * half_x
        return 0.0

    def _free_spot(self, rec: dict, c: np.ndarray, rot: np.ndarray, half: np.ndarray) -> float:
        others = [self.object_pos(o["name"]) for o in self.env.world_meta["objects"]]
        best, best_d = 0.0, -1.0
        for x in np.linspace(-0.6, 0.6, 7) * half[0]:
            p = c + rot[:, 0] * x
            d = min((float(np.linalg.norm((q - p)[:2])) for q in others), default=9.0)
            if d > best_d + 1e-9:
                best, best_d = float(x), d
        return best

    def place(self, obj: str, target: str) -> Skill[SkillResult]:
        """Carry the held object to ``target`` (fixture interior or receptacle top), set it
        down, let go and pull the arm back out."""
        start = self.frame
        body = self.model.body(self.env.object(obj)["body_name"]).id
        info = {"object": obj, "to": target}
        if self.env.held_body() != body:
            return self._done("place", False, start, "not holding it", **info)
        kind, loc, p = self.place_target(obj, target)
        # a sink's lever is no door: the basin is open whichever way the handle points
        doors = [d for d in loc.get("doors", []) if d["body"] != d["handle_body"]
                 and d.get("hinge") != "lever"]
        if doors and max(self.joint_q(d["joint"]) for d in doors) < 0.3:
            return self._done("place", False, start, "the door is closed", **info)
        if kind == "fixture" and loc["type"] == "sink":
            # an open basin below the counter top: lower the object in from above
            path = [p + [0, 0, 0.3], p + [0, 0, 0.02]]
            back = [p + [0, 0, 0.32]]
            avoid = []
        elif kind == "fixture":
            f = self._front(loc)
            out = np.array([f[0], f[1], 0.0])
            path = [p + out * 0.45 + [0, 0, 0.04], p + [0, 0, 0.04]]
            back = [p + out * 0.45 + [0, 0, 0.02]]
            avoid = self._open_door_boxes(loc)
        else:
            path = [p + [0, 0, 0.15], p + [0, 0, 0.01]]
            back = [p + [0, 0, 0.18]]
            avoid = []
        pose = self.work_pose(loc["approach_pose"], [*path, *back], avoid)
        if pose is None:
            return self._done("place", False, start, "no base pose reaches the target", **info)
        yield from self.carry_pose()
        if not (yield from self.navigate_to(pose)).success:
            return self._done("place", False, start, "could not drive there", **info)
        # the held object sits below the grip site by a fixed offset: aim the object, not it
        offset = self.grip_pos() - self.object_pos(obj)
        yield from self.move_grip_path([q + offset for q in path])
        yield from self.act(grip=-1.0)
        for _ in range(8):
            yield from self.act()
        yield from self.move_grip_path([q + offset for q in back])
        yield from self.carry_pose()
        for _ in range(10):
            yield from self.act()
        ok = self.where_is(obj) == target and self.env.held_body() is None
        return self._done("place", bool(ok), start, f"now in {self.where_is(obj)}", **info)


__all__ = ["Oracle", "Skill", "SkillResult"]
