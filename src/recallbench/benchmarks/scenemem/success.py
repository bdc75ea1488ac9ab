"""The card's success rule: memory_success = approached_fixture AND door_open.

Only robosuite's MjSim API is used (``sim.model.body_name2id``, ``sim.data.body_xpos``,
``sim.data.get_joint_qpos``), so the same code scores robosuite and the built-in world.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

# The card names this body; PandaOmron's support has the base's world xy.
ROBOT_BASE_BODY = "mobilebase0_support"


@dataclass(frozen=True)
class Thresholds:
    """Defaults are the card's: 1.2 m approach radius, |qpos| >= 0.5 (rad or m) for open."""

    approach_dist: float = 1.2
    open_qpos: float = 0.5
    # restore (not on the card's metric table): the object within this distance of its pose.
    restore_dist: float = 0.05


@dataclass(frozen=True)
class Measure:
    """What one step shows: distances and joint openings, and the two card conditions."""

    distance: float
    max_abs_qpos: float
    approached: bool
    door_open: bool

    @property
    def success(self) -> bool:
        return self.approached and self.door_open


def body_xpos(sim: Any, body: str) -> np.ndarray:
    # robosuite's MjData names the array body_xpos; a raw-MjData view (the built-in world's
    # DataView passes attributes through) calls the same array xpos.
    data = sim.data
    xpos = data.body_xpos if hasattr(data, "body_xpos") else data.xpos
    return np.asarray(xpos[sim.model.body_name2id(body)], dtype=float)


def body_xy(sim: Any, body: str) -> np.ndarray:
    return body_xpos(sim, body)[:2]


def measure(
    sim: Any,
    body_name: str,
    joint_names: list[str],
    thresholds: Thresholds,
    robot_body: str = ROBOT_BASE_BODY,
) -> Measure:
    """Score the current sim state against one fixture."""
    distance = float(np.linalg.norm(body_xy(sim, robot_body) - body_xy(sim, body_name)))
    # "any joint": every joint listed counts; a multi-dof joint counts by its largest coordinate.
    max_q = max(
        float(np.max(np.abs(np.atleast_1d(sim.data.get_joint_qpos(j))))) for j in joint_names
    )
    return Measure(
        distance=distance,
        max_abs_qpos=max_q,
        approached=distance < thresholds.approach_dist,
        door_open=max_q >= thresholds.open_qpos,
    )


class Probe:
    """``measure`` of one fixture with its body ids and qpos addresses resolved once: the rollout
    asks it after every step. Same values as ``measure``, which it falls back to where the sim
    cannot say where a joint lives (a custom env) or a joint has several coordinates."""

    def __init__(self, sim: Any, body_name: str, joint_names: list[str], thresholds: Thresholds,
                 robot_body: str = ROBOT_BASE_BODY) -> None:
        self.sim, self.thresholds = sim, thresholds
        self._args = (body_name, list(joint_names), thresholds, robot_body)
        # one qpos index per joint, in the listed order (max over joints as measure() takes it)
        self._qpos = qpos_addresses(sim, joint_names)
        if len(self._qpos) != len(joint_names):  # none found, or a multi-dof joint
            self._qpos = []
        self._one = self._qpos[0] if len(self._qpos) == 1 else -1
        self._data: Any = None
        try:
            self._robot = int(sim.model.body_name2id(robot_body))
            self._body = int(sim.model.body_name2id(body_name))
            self._xpos = "body_xpos" if hasattr(sim.data, "body_xpos") else "xpos"
            self()  # arrays this sim cannot index so: measure() by name instead
        except Exception:  # measure() raises the same error, where the caller expects it
            self._qpos = []

    def __call__(self) -> Measure:
        if not self._qpos:
            return measure(self.sim, *self._args)
        return self.judge(*self.read())

    def read(self) -> tuple[float, float]:
        """(distance, max |qpos|) of the current state, as ``measure`` computes them, without
        building a ``Measure``: the rollout loop keeps only these two floats per step."""
        if not self._qpos:
            m = measure(self.sim, *self._args)
            return m.distance, m.max_abs_qpos
        data = self.sim.data
        if data is not self._data:  # first read, or the sim swapped its data: views anew
            self._views(data)
            if not self._qpos:
                return self.read()
        # exactly as before: the xy difference, then np.linalg.norm's correctly rounded sqrt(dot)
        delta = self._robot_xy - self._body_xy
        distance = math.sqrt(float(delta.dot(delta)))
        if self._one >= 0:
            return distance, abs(float(self._qpos_view[self._one]))
        return distance, float(max([abs(self._qpos_view[a]) for a in self._qpos]))

    def judge(self, distance: float, max_q: float) -> Measure:
        """The ``Measure`` of a ``read``."""
        return Measure(
            distance=distance,
            max_abs_qpos=max_q,
            approached=distance < self.thresholds.approach_dist,
            door_open=max_q >= self.thresholds.open_qpos,
        )

    def _views(self, data: Any) -> None:
        # Views into the MjData's own buffers (fixed for its life): a step's read is then two
        # small subtractions and one qpos index, no attribute or id look-ups.
        # Arrays that are not float64 ndarrays would be copies, not views: read by name then.
        xpos, qpos = getattr(data, self._xpos), data.qpos
        if not all(isinstance(a, np.ndarray) and a.dtype == np.float64 for a in (xpos, qpos)):
            self._qpos = []
            return
        self._robot_xy, self._body_xy = xpos[self._robot, :2], xpos[self._body, :2]
        self._qpos_view = qpos
        self._data = data


def qpos_addresses(sim: Any, joints: list[str]) -> list[int]:
    """The qpos indices of ``joints`` (a multi-dof joint: all its coordinates), from the MjModel
    arrays every MjSim-like sim passes through; [] when the sim cannot say (read those by name)."""
    out: list[int] = []
    try:
        model = sim.model
        nq = len(sim.data.qpos)
        for joint in joints:
            j = model.joint_name2id(joint)
            if j < 0:
                return []
            adr = int(model.jnt_qposadr[j])
            width = {0: 7, 1: 4}.get(int(model.jnt_type[j]), 1)  # free, ball, else hinge/slide
            out.extend(range(adr, adr + width))
    except Exception:
        return []
    return out if all(0 <= a < nq for a in out) else []


def restore_distance(sim: Any, object_body: str, target_pos: list[float]) -> float:
    pos = body_xpos(sim, object_body)
    return float(np.linalg.norm(pos - np.asarray(target_pos, dtype=float)))


def failed_condition(approached: bool, door_open: bool) -> str | None:
    """Which card condition a finished rollout missed: "approach", "door", "both" or None."""
    if approached and door_open:
        return None
    if not approached and not door_open:
        return "both"
    return "approach" if not approached else "door"
