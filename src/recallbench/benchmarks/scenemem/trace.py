"""A compact per-step trace of a SceneMem rollout, stored in the run log beside the outcome.

The outcome alone (``min_distance``, ``max_abs_qpos``) says that a rollout failed, not how: the
trace keeps, per recorded step, the robot base's pose (x, y, yaw), its distance to the target
fixture and the qpos of each of the fixture's listed joints, plus the xy of the scenario's
fixtures and the built-in world's room rectangles (so the viewer can draw a top-down map
without the simulator). Long rollouts are
thinned to at most ``MAX_SAMPLES`` evenly spaced steps (first and last always kept), so a record
stays a few KB. ``version`` changes whenever the fields do; records without a trace (older
runs, failed workers) are still valid.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from recallbench.benchmarks.scenemem.success import ROBOT_BASE_BODY, body_xy, qpos_addresses

TRACE_VERSION = 1
MAX_SAMPLES = 400


def _yaw(sim: Any, body: str) -> float:
    data = sim.data
    quats = data.body_xquat if hasattr(data, "body_xquat") else data.xquat
    return _quat_yaw(quats[sim.model.body_name2id(body)])


def _quat_yaw(quat: Any) -> float:
    w, x, y, z = (float(v) for v in quat)
    return math.atan2(2 * (w * z + x * y), 1 - 2 * (y * y + z * z))


def _joint_value(sim: Any, joint: str) -> float:
    return _largest(np.atleast_1d(sim.data.get_joint_qpos(joint)))


def _largest(q: np.ndarray) -> float:
    return float(q[np.argmax(np.abs(q))])  # a multi-dof joint: its largest coordinate


def fixture_positions(sim: Any, fixtures: dict[str, str]) -> dict[str, list[float]]:
    """{fixture name: [x, y]} for the bodies that exist in this model."""
    out: dict[str, list[float]] = {}
    for name, body in fixtures.items():
        try:
            out[name] = [round(float(v), 3) for v in body_xy(sim, body)]
        except Exception:  # a body the model does not have: left off the map, never fatal
            continue
    return out


class RolloutTrace:
    """Collects one sample per step; ``to_dict`` thins and rounds them for the run log."""

    def __init__(self, sim: Any, target: str, joints: list[str],
                 fixtures: dict[str, str], rooms: list[dict[str, Any]] | None = None) -> None:
        self.sim = sim
        self.rooms = rooms or []
        self.joints = list(joints)
        self.target = target
        self.fixtures = fixture_positions(sim, fixtures)
        self.rows: list[list[float]] = []
        self._resolved = self._resolve()
        self._data: Any = None
        self._cached: tuple[Any, Any, Any] = (None, None, None)
        singles = self._resolved[4] if self._resolved is not None else None
        self._singles = np.asarray(singles or [], dtype=np.intp)

    def _resolve(self) -> tuple[int, str, str, list[list[int]], list[int] | None] | None:
        """The base body's id, the pose arrays' names and each joint's qpos indices, found once
        for every step; None where the sim cannot say (then ``sample`` reads by name)."""
        try:
            data = self.sim.data
            body = int(self.sim.model.body_name2id(ROBOT_BASE_BODY))
            joints = [qpos_addresses(self.sim, [j]) for j in self.joints]
            if body < 0 or not all(joints):
                return None
            singles = [a[0] for a in joints] if all(len(a) == 1 for a in joints) else None
            return (body, "body_xpos" if hasattr(data, "body_xpos") else "xpos",
                    "body_xquat" if hasattr(data, "body_xquat") else "xquat", joints, singles)
        except Exception:
            return None

    def _views(self, data: Any) -> tuple[Any, Any, Any]:
        """The base's xy and quaternion rows and qpos: views into the MjData's buffers, fixed
        for its life, so a step reads them without attribute or id look-ups."""
        assert self._resolved is not None
        body, xpos_name, xquat_name, _, _ = self._resolved
        xpos, xquat, qpos = getattr(data, xpos_name), getattr(data, xquat_name), data.qpos
        views = (xpos[body, :2], xquat[body], qpos)
        if all(isinstance(a, np.ndarray) for a in (xpos, xquat, qpos)):
            self._data, self._cached = data, views  # ndarray rows are views: keep them
        return views

    def sample(self, step: int, distance: float) -> None:
        if self._resolved is not None:  # the same values as below, without the name look-ups
            joints, singles = self._resolved[3], self._resolved[4]
            data = self.sim.data
            xy, quat, qpos = self._cached if data is self._data else self._views(data)
            x, y = xy.tolist()
            w, qx, qy, qz = quat.tolist()
            yaw = math.atan2(2 * (w * qz + qx * qy), 1 - 2 * (qy * qy + qz * qz))  # _quat_yaw
            if singles is not None:  # every joint one coordinate: one read of them all
                values = qpos[self._singles].tolist()
            else:
                values = [_largest(qpos[a]) for a in joints]
            self.rows.append([step, x, y, yaw, float(distance), *values])
            return
        try:
            x, y = body_xy(self.sim, ROBOT_BASE_BODY)
            yaw = _yaw(self.sim, ROBOT_BASE_BODY)
            qpos = [_joint_value(self.sim, j) for j in self.joints]
        except Exception:  # a model without the card's base body: no pose, keep the rest
            x = y = yaw = math.nan
            qpos = [math.nan] * len(self.joints)
        self.rows.append([step, float(x), float(y), yaw, float(distance), *qpos])

    def to_dict(self) -> dict[str, Any]:
        rows = self.rows
        if len(rows) > MAX_SAMPLES:
            keep = np.unique(np.linspace(0, len(rows) - 1, MAX_SAMPLES).round().astype(int))
            rows = [rows[i] for i in keep]

        def col(i: int, digits: int = 3) -> list[float | None]:
            return [round(r[i], digits) if math.isfinite(r[i]) else None for r in rows]

        return {
            "version": TRACE_VERSION,
            "step": [int(r[0]) for r in rows],
            "base": [[a, b, c] for a, b, c in zip(col(1), col(2), col(3), strict=True)],
            "distance": col(4),
            "joints": self.joints,
            "qpos": [col(5 + j, 4) for j in range(len(self.joints))],
            "target": self.target,
            "fixtures": self.fixtures,
            "rooms": self.rooms,
        }


def room_bounds(env: Any) -> list[dict[str, Any]]:
    """The built-in world's rooms ({name, bounds: [x0, y0, x1, y1]}) for the map's floor plan;
    empty for robosuite scenes, which list none."""
    meta = getattr(env, "world_meta", None)
    rooms = meta.get("rooms", []) if isinstance(meta, dict) else []
    return [{"name": str(r.get("name")), "bounds": [round(float(v), 3) for v in r["bounds"]]}
            for r in rooms if isinstance(r, dict) and len(r.get("bounds") or []) == 4]


def scenario_fixtures(env: Any, tests: list[Any]) -> dict[str, str]:
    """{fixture name: body} of every probe's fixture, plus every fixture the built-in world lists
    (a memory module may choose one no probe names)."""
    out = {t.fixture.name: t.fixture.body_name for t in tests}
    meta = getattr(env, "world_meta", None)
    for f in (meta or {}).get("fixtures", []) if isinstance(meta, dict) else []:
        if isinstance(f, dict) and f.get("name") and f.get("body_name"):
            out.setdefault(str(f["name"]), str(f["body_name"]))
    return out
