"""An LL navigation policy that reads only its pose and goal, so it runs the same in-process
and served (`recallbench serve-policy`); loaded by path (``.../ll_policies.py:StraightLL``)."""

from __future__ import annotations

import math
import os
from typing import Any

import numpy as np

_acts = 0  # per process: a served policy's server can be made to die mid-run


def _wrap(angle: float) -> float:
    return (angle + math.pi) % (2 * math.pi) - math.pi


class StraightLL:
    """Turn toward the goal, drive straight, turn to its heading, STOP. With ``$RB_DIE_AFTER``
    set, the process exits on that many-th action (a policy server dying mid-drive)."""

    def reset(self, env: Any) -> None:
        pass

    def act(self, pose: np.ndarray, goal: Any) -> int:
        global _acts
        _acts += 1
        if _acts == int(os.environ.get("RB_DIE_AFTER", "0")):
            os._exit(1)
        x, y, yaw = (float(v) for v in pose)
        gx, gy, gyaw = goal.pose
        if math.hypot(gx - x, gy - y) > 0.3:
            error = _wrap(math.atan2(gy - y, gx - x) - yaw)
            return 1 if abs(error) < 0.3 else (2 if error > 0 else 3)
        error = _wrap(gyaw - yaw)
        return 0 if abs(error) < 0.3 else (2 if error > 0 else 3)
