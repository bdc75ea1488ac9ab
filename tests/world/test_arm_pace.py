"""The built-in robot's pace: SceneMem scenarios run the arm at PandaOmron's measured 0.0125 m a
step (bench/bench_pace.py compares the two side by side) and the base at 0.037 m a step; the
default arm step stays 0.05 m (FindingDory's days)."""

from __future__ import annotations

import numpy as np
import pytest

world_env = pytest.importorskip("recallbench.world.env")


def _arm_speed(env) -> float:
    env.reset()
    tips = [env.eef_pos()]
    for _ in range(8):
        a = np.zeros(12)
        a[1] = 1.0  # sideways, clear of the arm's limits from its rest pose
        env.step(a)
        tips.append(env.eef_pos())
    return float(np.linalg.norm(tips[-1] - tips[2]) / 6)


def test_scenemem_arm_runs_at_pandaomron_pace():
    slow = world_env.HomeEnv(0, 0, "kitchen", arm_step=world_env.PANDAOMRON_ARM_STEP)
    fast = world_env.HomeEnv(0, 0, "kitchen")
    try:
        assert _arm_speed(slow) == pytest.approx(0.0125, rel=0.2)
        assert _arm_speed(fast) == pytest.approx(0.05, rel=0.2)
    finally:
        slow.close()
        fast.close()
    from recallbench.world.home import BASE_LIN_SPEED

    base_step = BASE_LIN_SPEED / world_env.CONTROL_FREQ
    assert base_step == pytest.approx(0.037, rel=0.01)


def test_arm_step_is_checked():
    with pytest.raises(ValueError, match="arm_step"):
        world_env.HomeEnv(0, 0, "kitchen", arm_step=0.0)
