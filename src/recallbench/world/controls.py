"""The 12-dim action's arithmetic for ``HomeEnv.step``, in plain Python floats.

Twelve numbers: Python floats are cheaper than numpy calls here, and +, *, min and max give the
same float64 bits either way (so trajectories are those of the numpy version before).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

ROT_SCALE = 0.5  # rad per step for the wrist yaw at |action| = 1
TORSO_SCALE = 0.02  # m per step
# Where each part sits in the 12-dim action (RoboCasa PandaOmron's order, docs/world.md): the
# arm is driven by end-effector deltas ("eef"); read by served policies' presets (docs/vla.md).
ACTION_PARTS = {"eef": (0, 6), "gripper": (6, 7), "base": (7, 10), "torso": (10, 11),
                "mode": (11, 12)}


def clipped_action(action: Sequence[float] | np.ndarray, dim: int) -> list[float]:
    """The action as floats clipped to [-1, 1]; ValueError on a wrong shape, NaN or inf."""
    a = np.asarray(action, dtype=float).reshape(-1)
    if a.shape != (dim,):
        raise ValueError(f"action must have shape ({dim},), got {a.shape}")
    v = a.tolist()
    if not all(map(math.isfinite, v)):
        raise ValueError("action contains NaN or inf")
    return [-1.0 if x < -1.0 else 1.0 if x > 1.0 else x for x in v]


def arm_targets(
    targets: list[float],
    action: Sequence[float],
    arm_step: float,
    bounds: Sequence[tuple[float, float]],
) -> list[float]:
    """The arm targets (x, y, z, wrist, torso) moved by a clipped action (arm x/y/z at
    ``arm_step`` m, wrist yaw, torso lift) and clipped to their (low, high)."""
    deltas = (action[0] * arm_step, action[1] * arm_step, action[2] * arm_step,
              action[5] * ROT_SCALE, action[10] * TORSO_SCALE)
    moved = [t + d for t, d in zip(targets, deltas, strict=True)]
    return [
        lo if x < lo else hi if x > hi else x for x, (lo, hi) in zip(moved, bounds, strict=True)
    ]
