"""Pace of the built-in robot against robosuite's PandaOmron (default controller), side by side.

A SceneMem step budget (the card's 1,500 steps) means the same in both worlds only if the robots
move alike per control step. The built-in robot runs as in generated SceneMem scenarios
(``arm_step=PANDAOMRON_ARM_STEP``). Measured in the same run, in each world:

- base: metres per step at full forward command (steady state, after the base has sped up);
- arm: metres per step of the end effector at full command sideways (the base's y axis);
- door: steps to carry the grip from robosuite Door's handle 0.3 rad round its hinge line
  (robosuite's Door success; its hinge stops at 0.4 rad), with one arc-following controller in
  both worlds (the target runs a little ahead on the arc; the arm is commanded toward it as the
  oracle commands it), on the same radius in the built-in world. The grip sweeps the arc
  without holding the handle: a naive grasp of robosuite's bar stalls ~3 cm off it, and the
  built-in world's grasp is a weld, so the sweep is the comparable part of opening a door;
- for reference, the built-in oracle's own ``open_door``: steps from the handle grasp until the
  card's 0.5 rad on a kitchen cabinet door.

Prints each figure for both robots and the ratio built-in / PandaOmron (target within 0.8-1.2).

    MUJOCO_GL=egl PYTHONPATH=src .venv/bin/python bench/bench_pace.py
"""

from __future__ import annotations

import argparse
import math
import time
from collections.abc import Callable
from typing import Any

import numpy as np

BASE_STEPS = 40  # full forward command; the last half is the steady state
ARM_STEPS = 8
DOOR_ANGLE = 0.3  # robosuite Door's success (its hinge range is 0-0.4 rad)
CARD_ANGLE = 0.5
LEAD = 0.12  # rad the arc target runs ahead of the door
ARM_GAIN = 0.8  # as the oracle's arm servo: fraction of the remaining error commanded per step
# what an arm action of 1 asks for in both worlds (robosuite OSC's output_max): the same error
# gives the same action vector, so the two robots get the very same commands
NOMINAL_STEP = 0.05


def steady_speed(positions: list[np.ndarray]) -> float:
    """Mean xy displacement per step over the second half of a run."""
    p = np.asarray(positions)[:, :2]
    half = len(p) // 2
    return float(np.linalg.norm(p[-1] - p[half]) / (len(p) - 1 - half))


def rotate_about(p: np.ndarray, anchor: np.ndarray, axis: np.ndarray, angle: float) -> np.ndarray:
    """Point p turned by ``angle`` about the line through ``anchor`` along ``axis`` (Rodrigues)."""
    k = axis / np.linalg.norm(axis)
    v = p - anchor
    c, s = math.cos(angle), math.sin(angle)
    return anchor + v * c + np.cross(k, v) * s + k * np.dot(k, v) * (1 - c)


def follow_arc(step_arm: Callable[[np.ndarray], None], eef: Callable[[], np.ndarray],
               anchor: np.ndarray, sign: float, angle: float, limit: int = 400) -> int:
    """Steps for the grip to travel ``angle`` rad round a vertical hinge line at ``anchor``,
    the target running ``LEAD`` rad ahead of where the grip is (``step_arm(delta_world)``
    commands one control step)."""
    axis = np.array([0.0, 0.0, sign])
    p0 = eef()
    start = math.atan2(*(p0 - anchor)[1::-1])
    for steps in range(1, limit + 1):
        target = rotate_about(eef(), anchor, axis, LEAD)
        step_arm(target - eef())
        turned = math.atan2(*(eef() - anchor)[1::-1]) - start
        if sign * math.remainder(turned, 2 * math.pi) >= angle:
            return steps
    return limit


# ------------------------------------------------------------------------------ robosuite
def robosuite_pace() -> dict[str, float]:
    import robosuite

    env = robosuite.make("Door", robots="PandaOmron", has_renderer=False,
                         has_offscreen_renderer=False, use_camera_obs=False, use_latch=False,
                         ignore_done=True, control_freq=20, hard_reset=False)
    cc = env.robots[0].composite_controller
    sim = env.sim  # hard_reset=False: reset keeps this simulator
    base_id = sim.model.body_name2id("mobilebase0_support")
    eef_id = sim.model.site_name2id("gripper0_right_grip_site")

    def act(arm: np.ndarray | None = None, base: np.ndarray | None = None, grip: float = -1.0,
            base_mode: float = -1.0) -> None:
        parts: dict[str, Any] = {"right": np.r_[arm if arm is not None else np.zeros(3),
                                                np.zeros(3)],
                                 "right_gripper": [grip], "base_mode": base_mode}
        if base is not None:
            parts["base"] = base
        env.step(cc.create_action_vector(parts))

    def base_xy() -> np.ndarray:
        return np.array(sim.data.body_xpos[base_id])

    def base_yaw() -> float:
        m = np.array(sim.data.body_xmat[base_id]).reshape(3, 3)
        return math.atan2(m[1, 0], m[0, 0])

    def eef() -> np.ndarray:
        return np.array(sim.data.site_xpos[eef_id])

    def to_base(v: np.ndarray) -> np.ndarray:
        c, s = math.cos(-base_yaw()), math.sin(-base_yaw())
        return np.array([c * v[0] - s * v[1], s * v[0] + c * v[1], v[2]])

    out: dict[str, float] = {}
    env.reset()
    poses = [base_xy()]
    for _ in range(BASE_STEPS):
        act(base=np.array([1.0, 0.0, 0.0]), base_mode=1.0)
        poses.append(base_xy())
    out["base_m_per_step"] = steady_speed(poses)

    env.reset()
    tips = [eef()]
    for _ in range(ARM_STEPS):
        act(arm=np.array([0.0, 1.0, 0.0]))
        tips.append(eef())
    out["arm_m_per_step"] = float(np.linalg.norm(tips[-1] - tips[2]) / (len(tips) - 3))

    env.reset()
    handle = np.array(sim.data.site_xpos[env.door_handle_site_id])
    for _ in range(200):  # reach toward the handle (a naive grasp stalls ~3 cm off the bar)
        err = handle - eef()
        if np.linalg.norm(err) < 0.01:
            break
        act(arm=np.clip(to_base(err) * ARM_GAIN / NOMINAL_STEP, -1, 1))
    jid = sim.model.joint_name2id(env.door.joints[0])
    anchor = np.array(sim.data.xanchor[jid])
    out["door_radius_m"] = float(np.linalg.norm((eef() - anchor)[:2]))

    def step_arm(delta: np.ndarray) -> None:
        act(arm=np.clip(to_base(delta) * ARM_GAIN / NOMINAL_STEP, -1, 1))

    # the door's own arc, swept by the arm (hinge axis +z opens robosuite's door)
    out["door_steps"] = follow_arc(step_arm, eef, anchor, 1.0, DOOR_ANGLE)
    env.close()
    return out


# ------------------------------------------------------------------------------ built-in
def _builtin_env(seed: int) -> Any:
    from recallbench.world.env import PANDAOMRON_ARM_STEP, HomeEnv

    return HomeEnv(seed, 0, "kitchen", arm_step=PANDAOMRON_ARM_STEP)  # SceneMem's pace


def _door_fixture(env: Any) -> tuple[str, dict]:
    """A side-hinged cabinet door (the commonest SceneMem fixture kind)."""
    from recallbench.world.skills import Oracle

    o = Oracle(env)
    for f in env.world_meta["fixtures"]:
        for d in f["doors"]:
            if f["type"] == "cabinet" and o.hinge_kind(d) == "side":
                return f["name"], d
    raise RuntimeError("no side-hinged cabinet door in this kitchen")


def _free_run(env: Any, length: float) -> tuple[float, float, float]:
    """A base pose (x, y, yaw) with ``length`` m of free floor straight ahead."""
    grid = env.nav_grid
    rng = np.random.default_rng(0)
    lo, hi = np.min([r["bounds"][:2] for r in env.world_meta["rooms"]], axis=0), np.max(
        [r["bounds"][2:] for r in env.world_meta["rooms"]], axis=0)
    for _ in range(5000):
        x, y = rng.uniform(lo, hi)
        yaw = float(rng.choice([0.0, math.pi / 2, math.pi, -math.pi / 2]))
        end = (x + length * math.cos(yaw), y + length * math.sin(yaw))
        if grid.is_navigable((x, y)) and grid.segment_free((x, y), end):
            return x, y, yaw
    raise RuntimeError(f"no {length} m straight run in this kitchen")


def builtin_pace(seed: int, door_radius: float) -> dict[str, float]:
    from recallbench.world.skills import Oracle

    env = _builtin_env(seed)
    out: dict[str, float] = {}
    env.reset()
    env.teleport(_free_run(env, 1.4))  # a straight run with nothing in the way
    poses = [env.base_pose()]
    for _ in range(BASE_STEPS):
        a = np.zeros(12)
        a[7] = 1.0
        env.step(a)
        poses.append(env.base_pose())
    out["base_m_per_step"] = steady_speed(poses)

    env.reset()
    tips = [env.eef_pos()]
    for _ in range(ARM_STEPS):
        a = np.zeros(12)
        a[1] = 1.0
        env.step(a)
        tips.append(env.eef_pos())
    out["arm_m_per_step"] = float(np.linalg.norm(tips[-1] - tips[2]) / (len(tips) - 3))

    # door: the same arc (radius and angle) swept by the built-in arm from its rest pose
    env.reset()
    o = Oracle(env)

    def step_arm(delta: np.ndarray) -> None:
        a = np.zeros(12)
        a[0:3] = np.clip((o.to_base(env.eef_pos() + delta) - o.to_base(env.eef_pos()))
                         * ARM_GAIN / NOMINAL_STEP, -1, 1)
        env.step(a)

    # hinge line to the robot's left; the sweep carries the grip forward (the rest pose sits at
    # the back of the arm's range)
    anchor = o.to_world(o.to_base(env.eef_pos()) + np.array([0.0, door_radius, 0.0]))
    out["door_radius_m"] = door_radius
    out["door_steps"] = follow_arc(step_arm, env.eef_pos, anchor, 1.0, DOOR_ANGLE)

    name, door = _door_fixture(env)
    handle_id = env.model.body(door["handle_body"]).id
    jid = env.model.joint(door["joint"]).id
    qadr = env.model.jnt_qposadr[jid]

    def hinge() -> float:
        return abs(float(env.data.qpos[qadr]))

    # the oracle's own skill, as the generator and the agents open doors
    env.reset()
    o = Oracle(env)
    skill = o.open_door(name, door["name"], angle=0.9)
    held_at = None
    for _ in range(3000):
        try:
            env.step(next(skill))
        except StopIteration:
            break
        if held_at is None and env.held_body() == handle_id:
            held_at = o.frame
        if held_at is not None and abs(hinge()) >= CARD_ANGLE:
            out["oracle_steps_handle_to_0.5"] = o.frame - held_at
            break
    env.close()
    return out


ROWS = (
    ("base_m_per_step", "base m/step at full command"),
    ("arm_m_per_step", "arm (end effector) m/step at full command"),
    ("door_steps", "door: steps to sweep its arc 0 -> 0.3 rad"),
    ("door_radius_m", "door: grip to hinge line, m"),
)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seed", type=int, default=0, help="built-in kitchen layout seed")
    args = ap.parse_args()
    t0 = time.perf_counter()
    rs = robosuite_pace()
    t1 = time.perf_counter()
    bi = builtin_pace(args.seed, rs["door_radius_m"])
    t2 = time.perf_counter()
    print(f"{'figure':44s} {'built-in':>10s} {'PandaOmron':>11s} {'ratio':>7s}")
    for key, label in ROWS:
        a, b = bi.get(key), rs.get(key)
        ratio = a / b if a is not None and b else float("nan")
        flag = "" if key == "door_radius_m" or 0.8 <= ratio <= 1.2 else "  OUTSIDE 20%"
        print(f"{label:44s} {a:10.4f} {b:11.4f} {ratio:7.2f}{flag}")
    if "oracle_steps_handle_to_0.5" in bi:
        print(f"built-in oracle open_door: {bi['oracle_steps_handle_to_0.5']} steps from the "
              "handle grasp to the card's 0.5 rad")
    print(f"(robosuite {t1 - t0:.1f} s, built-in {t2 - t1:.1f} s)")


if __name__ == "__main__":
    main()
