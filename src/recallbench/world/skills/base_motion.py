"""Base motion: driving along the nav grid, and choosing base poses from which the arm reaches
its targets without the base touching a door panel (kinematic look-ups on scratch ``MjData``)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco
import numpy as np

from recallbench.world.geometry import wrap_angle
from recallbench.world.skills.core import (
    BASE_CLEARANCE,
    COLLIDE_Z,
    COMFORT_FORWARD,
    Point,
    Skill,
    SkillCore,
    SkillResult,
    rot2d,
)


class BaseMotion(SkillCore):
    """Drives the base and plans where it should stand."""

    last_nav_error: tuple[float, float]  # (xy m, yaw rad) left by the last navigate_to

    # ------------------------------------------------------------------ navigation
    def navigate_to(self, pose: Point, pos_tol: float = 0.03,
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
            vb = rot2d(-p[2]) @ v
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

    def work_pose(self, anchor_pose: Point, reach: Sequence[np.ndarray],
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

