"""``HomeWorld``: one loaded home and its robot, without gymnasium's or robosuite's dialect.

It loads a world's MJCF, resets it to the start keyframe, advances one control step of the
12-dim action, moves the base kinematically, answers where the grip site is, grasps and lets go,
builds the navigation grid and looks names up in the world's metadata. ``env.HomeEnv`` adds the
env on top: constructor options, observations and their spaces, reset/step, robosuite's loading
steps and ``make_env``."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING

from recallbench.world.gl import select_backend

select_backend()

import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from recallbench.world.asset_store import model_from_xml  # noqa: E402
from recallbench.world.controls import arm_targets, clipped_action  # noqa: E402
from recallbench.world.geometry import room_of  # noqa: E402
from recallbench.world.grasp import MagicGrasp  # noqa: E402
from recallbench.world.observations import RobotState, index_or_slice  # noqa: E402
from recallbench.world.render import Renders  # noqa: E402
from recallbench.world.robot import (  # noqa: E402
    ARM_JOINTS,
    ARM_RANGES,
    BASE_JOINTS,
    BASE_RADIUS,
    EEF_BODY,
    EEF_SITE,
    TORSO_JOINT,
    WRIST_JOINT,
)
from recallbench.world.sim import MjSim  # noqa: E402
from recallbench.world.stepper import Stepper  # noqa: E402

if TYPE_CHECKING:  # the nav grid (scipy) loads on first use
    from recallbench.world.navgrid import NavGrid

BASE_LIN_SPEED = 0.74  # m/s at |action| = 1: 0.037 m a step at 20 Hz, PandaOmron's pace
BASE_YAW_SPEED = 1.2  # rad/s
GRASP_REACH = 0.15  # m from the grip site to a graspable body's origin


class HomeWorld:
    """A loaded world (``xml`` and its metadata) stepped at ``control_freq`` with the arm target
    moving ``arm_step`` m per step at |action| = 1."""

    action_dim = 12
    renders: Renders  # set by _load (which closes the previous world's)

    def __init__(self, xml: str, meta: dict, *, control_freq: int, arm_step: float,
                 shadows: bool) -> None:
        self.control_freq = control_freq
        self.arm_step = float(arm_step)  # m the arm target moves per step at |action| = 1
        self.shadows = shadows
        self._last_v: list[float] | None = None
        self._nav_grid: NavGrid | None = None
        self._load(xml, meta)

    # ------------------------------------------------------------------ model loading
    def _load(self, xml: str, meta: dict) -> None:
        self.xml = xml
        self.world_meta = meta
        self.model = model_from_xml(xml)
        self.data = mujoco.MjData(self.model)
        m = self.model
        self.n_substeps = max(1, round(1.0 / (self.control_freq * m.opt.timestep)))
        self.sim = MjSim(m, self.data, on_state_loaded=self._sync_from_state)
        if hasattr(self, "renders"):
            self.renders.close()
        self.renders = Renders(m, shadows=self.shadows)
        self._nav_grid = None
        j = m.joint
        self._base_q = np.array([j(n).qposadr[0] for n in BASE_JOINTS])
        self._base_v = np.array([j(n).dofadr[0] for n in BASE_JOINTS])
        self._base_act = np.array([m.actuator(n.replace("joint", "act")).id for n in BASE_JOINTS])
        arm = (*ARM_JOINTS, WRIST_JOINT, TORSO_JOINT)
        self._arm_q = np.array([j(n).qposadr[0] for n in arm])
        self._arm_act = np.array([m.actuator(n.replace("joint", "act")).id for n in arm])
        self._arm_lo = np.array([ARM_RANGES[n][0] for n in arm])
        self._arm_hi = np.array([ARM_RANGES[n][1] for n in arm])
        self._eef_body = m.body(EEF_BODY).id
        self._eef_site = m.site(EEF_SITE).id
        self._base_body = m.body("mobilebase0_base").id
        self._key_start = mujoco.mj_name2id(m, mujoco.mjtObj.mjOBJ_KEY, "start")
        # grasp welds: one per graspable body (objects, door handles), all inactive at rest
        self._grasp = MagicGrasp(m, self.data, self._eef_body, self._eef_site)
        # advance() reads these every call: views of the data's arrays (valid for its life), ids
        self._ctrl, self._qpos = self.data.ctrl, self.data.qpos
        self._arm_ctrl = index_or_slice(self._arm_act)
        self._base_ctrl = index_or_slice(self._base_act)
        self._yaw_q = int(self._base_q[2])
        self._bounds = list(zip(self._arm_lo.tolist(), self._arm_hi.tolist(), strict=True))
        self._robot_state = RobotState(self.data, self._base_body, self._eef_site,
                                       self._eef_body, self._base_q, self._arm_q)
        self._stepper = Stepper(m, self.data)
        self._gripper_closed = False
        self._steps = 0
        self._reset_data()

    def _reset_data(self) -> None:
        if self._key_start >= 0:
            mujoco.mj_resetDataKeyframe(self.model, self.data, self._key_start)
        else:
            mujoco.mj_resetData(self.model, self.data)
        self.data.userdata[:] = 0.0
        self.data.userdata[0] = -1.0
        self._sync_from_state(False)
        mujoco.mj_forward(self.model, self.data)

    def _sync_from_state(self, full: bool) -> None:
        """After a state load: arm targets follow the state, grasp weld pose is restored."""
        d, m = self.data, self.model
        self._stepper.drop()  # the weld pose in the model may change below
        if full:  # arm targets as plain floats: advance() does their arithmetic
            self._targets: list[float] = d.ctrl[self._arm_act].tolist()
        else:
            self._targets = np.clip(d.qpos[self._arm_q], self._arm_lo, self._arm_hi).tolist()
            d.ctrl[self._arm_act] = self._targets
            d.ctrl[self._base_act] = 0.0
            d.eq_active[self._grasp.eqs] = 0
            if m.nuserdata:
                d.userdata[:] = 0.0
                d.userdata[0] = -1.0
        eq = int(d.userdata[0]) if m.nuserdata else -1
        if eq >= 0:
            m.eq_data[eq, 0:3] = 0.0
            m.eq_data[eq, 3:10] = d.userdata[1:8]
            m.eq_data[eq, 10] = d.userdata[8]
        self._gripper_closed = eq >= 0
        self._steps = 0

    # ------------------------------------------------------------------ acting
    def advance(self, action: Sequence[float] | np.ndarray) -> None:
        """``step`` without building its observation: for a caller that discards it (the
        SceneMem harness, whose policies ask ``_get_observations()`` themselves), so camera
        images are rendered when asked for, not also on every step."""
        v = clipped_action(action, self.action_dim)
        self._last_v = v
        t = self._targets = arm_targets(self._targets, v, self.arm_step, self._bounds)
        ctrl = self._ctrl
        ctrl[self._arm_ctrl] = t
        if v[6] > 0 and not self._gripper_closed:
            self._gripper_closed = True
            self.grasp()
        elif v[6] < 0 and self._gripper_closed:
            self.release()
        yaw = self._qpos[self._yaw_q]
        c, s = math.cos(yaw), math.sin(yaw)
        vf, vs = v[7] * BASE_LIN_SPEED, v[8] * BASE_LIN_SPEED
        ctrl[self._base_ctrl] = (c * vf - s * vs, s * vf + c * vs, v[9] * BASE_YAW_SPEED)
        self._stepper.step(self.n_substeps)
        self._steps += 1

    @property
    def last_action(self) -> np.ndarray | None:  # the last step's clipped action, for recorders
        return None if self._last_v is None else np.array(self._last_v)

    def base_pose(self) -> np.ndarray:
        """(x, y, yaw) of the base in the world."""
        return self.data.qpos[self._base_q].copy()

    def teleport(
        self, pose: Sequence[float] | np.ndarray, *, for_render: bool = False
    ) -> None:
        """Put the base at (x, y, yaw) kinematically; a held object moves with the gripper,
        a held door handle is let go. ``for_render``: refresh only what a render reads (body
        and camera poses), ~15x cheaper than the full ``mj_forward``, for re-posing the robot
        to look from many places without acting there."""
        pose = np.asarray(pose, dtype=float).reshape(3)
        held = self.held_body()
        if held is not None and held not in self._grasp.free_joint_of:
            self.release()
            held = None
        d = self.data
        d.qpos[self._base_q] = pose
        d.qvel[self._base_v] = 0.0
        d.ctrl[self._base_act] = 0.0
        mujoco.mj_kinematics(self.model, d)
        if held is not None:
            self._grasp.carry(held)
        if for_render:
            if held is not None:
                mujoco.mj_kinematics(self.model, d)
            mujoco.mj_camlight(self.model, d)
        else:
            mujoco.mj_forward(self.model, d)

    def eef_pos(self) -> np.ndarray:
        """Grip site (``gripper0_grip_site``) in the world."""
        return self.data.site_xpos[self._eef_site].copy()

    def eef_pos_base(self) -> np.ndarray:
        """Grip site in the base frame (x forward, y left, z up from the floor)."""
        return self._in_base_frame(self.data.site_xpos[self._eef_site])

    def eef_action_toward(self, target_world: Sequence[float]) -> np.ndarray:
        """action[0:3] that moves the grip site toward a world point (clipped to one step)."""
        goal = self._in_base_frame(np.asarray(target_world, dtype=float))
        return np.clip((goal - self.eef_pos_base()) / self.arm_step, -1.0, 1.0)

    def _in_base_frame(self, point: np.ndarray) -> np.ndarray:
        d = self.data
        rel = point - d.xpos[self._base_body]
        yaw = d.qpos[self._base_q[2]]
        c, s = math.cos(yaw), math.sin(yaw)
        return np.array([c * rel[0] + s * rel[1], -s * rel[0] + c * rel[1], rel[2]])

    def proprio(self) -> dict[str, np.ndarray]:
        """The robot's state alone (``robot0_*``), without rendering any camera."""
        return self._robot_state(self._gripper_closed, self.held_body())

    # ------------------------------------------------------------------ navigation
    @property
    def nav_grid(self) -> NavGrid:
        """Navigation grid of this world (doors as in the start state), built on first use."""
        if self._nav_grid is None:
            self._nav_grid = self.build_nav_grid()
        return self._nav_grid

    def build_nav_grid(
        self, resolution: float = 0.05, robot_radius: float = BASE_RADIUS
    ) -> NavGrid:
        from recallbench.world.navigation import NavGrid

        d = mujoco.MjData(self.model)
        if self._key_start >= 0:
            mujoco.mj_resetDataKeyframe(self.model, d, self._key_start)
        mujoco.mj_forward(self.model, d)
        return NavGrid.from_model(self.model, d, resolution=resolution, robot_radius=robot_radius)

    # ------------------------------------------------------------------ magic grasp
    def held_body(self) -> int | None:
        return self._grasp.held()

    def grasp(self, reach: float = GRASP_REACH) -> str | None:
        """Weld the nearest graspable body (object or handle) within ``reach`` of the grip site
        to the gripper, at its current relative pose. Returns its name or None."""
        held = self._grasp.held()
        if held is not None:
            return self.model.body(held).name
        name = self._grasp.weld_nearest(reach)
        if name is not None:
            self._gripper_closed = True
        return name

    def release(self) -> None:
        self._grasp.release()
        self._gripper_closed = False

    def close(self) -> None:
        self.renders.close()

    # ------------------------------------------------------------------ lookups
    def room_of(self, xy: Sequence[float]) -> str | None:
        """Name of the room whose floor contains the point (None outside every room)."""
        return room_of(xy, {r["name"]: r["bounds"] for r in self.world_meta["rooms"]})

    def approach_pose(self, name: str) -> np.ndarray:
        """A navigable base pose in front of a fixture or receptacle, facing its root body:
        the metadata's hint snapped to the navigation grid."""
        entry = _named(self.world_meta["fixtures"] + self.world_meta["receptacles"], name,
                       "fixture or receptacle")
        xy = self.nav_grid.snap(np.asarray(entry["approach_pose"][:2], dtype=float))
        target = self.data.xpos[self.model.body(entry["body_name"]).id]
        yaw = math.atan2(target[1] - xy[1], target[0] - xy[0])
        return np.array([xy[0], xy[1], yaw])

    def fixture(self, name: str) -> dict:
        return _named(self.world_meta["fixtures"], name, "fixture")

    def object(self, name: str) -> dict:
        return _named(self.world_meta["objects"], name, "object")


def _named(entries: list[dict], name: str, kind: str) -> dict:
    """The world metadata entry called ``name``; KeyError naming the ``kind`` otherwise."""
    entry = next((e for e in entries if e["name"] == name), None)
    if entry is None:
        raise KeyError(f"no {kind} {name!r}")
    return entry
