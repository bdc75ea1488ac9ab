"""The card's success rule: memory_success = approached_fixture AND door_open.

Only robosuite's MjSim API is used (``sim.model.body_name2id``, ``sim.data.body_xpos``,
``sim.data.get_joint_qpos``), so the same code scores robosuite and the built-in world.
"""

from __future__ import annotations

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
