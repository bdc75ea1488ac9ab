"""``HomeEnv``: the built-in home as a gymnasium env that also speaks robosuite's dialect.

Three ways to act: ``step(action)`` with RoboCasa PandaOmron's 12-dim layout at 20 Hz,
``step_discrete(a)`` with FindingDory's STOP / MOVE_FORWARD / TURN_LEFT / TURN_RIGHT on the
navigation grid, and ``teleport(pose)``. SceneMem's loading steps work as on robosuite:
``set_ep_meta``, ``reset``, ``reset_from_xml_string(edit_model_xml(xml))``, ``sim.reset``,
``sim.set_state_from_flattened``, ``sim.forward``."""

from __future__ import annotations

import copy
import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from recallbench.world.gl import select_backend

select_backend()

import gymnasium as gym  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from recallbench.world.asset_store import model_from_xml  # noqa: E402
from recallbench.world.builder import KINDS, build_world  # noqa: E402
from recallbench.world.controls import arm_targets, clipped_action  # noqa: E402
from recallbench.world.grasp import MagicGrasp  # noqa: E402
from recallbench.world.observations import (  # noqa: E402
    RobotState,
    camera_images,
    index_or_slice,
    observation_space,
)
from recallbench.world.render import Renders  # noqa: E402
from recallbench.world.robot import (  # noqa: E402
    ARM_JOINTS,
    ARM_RANGES,
    BASE_JOINTS,
    BASE_RADIUS,
    CAMERAS,
    EEF_BODY,
    EEF_SITE,
    HEAD_SIZE,
    TORSO_JOINT,
    WRIST_JOINT,
)
from recallbench.world.sim import MjSim  # noqa: E402
from recallbench.world.stepper import Stepper  # noqa: E402

if TYPE_CHECKING:  # the nav grid (scipy) loads on first use
    from recallbench.world.navgrid import NavGrid

CONTROL_FREQ = 20
POS_SCALE = 0.05  # m per control step at |action| = 1 (robosuite OSC's output_max), by default
# SceneMem scenarios run the arm at robosuite PandaOmron's pace under its default controller
# (bench/bench_pace.py measures both side by side): its OSC asks for up to 0.05 m a step but the
# arm moves ~0.0125 m a step at full command, so a step budget means the same in both worlds.
PANDAOMRON_ARM_STEP = 0.0125
BASE_LIN_SPEED = 0.74  # m/s at |action| = 1: 0.037 m a step at 20 Hz, PandaOmron's pace
BASE_YAW_SPEED = 1.2  # rad/s
GRASP_REACH = 0.15  # m from the grip site to a graspable body's origin
EP_META_KEY = "recallbench_world"
ENV_NAMES = {"RecallbenchHome": "home", "RecallbenchKitchen": "kitchen"}


class HomeEnv(gym.Env):
    """A procedural home with a mobile manipulator. See docs/world.md for the full contract."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": CONTROL_FREQ}
    action_dim = 12
    renders: Renders  # set by _load (which closes the previous world's)

    def __init__(
        self,
        seed: int = 0,
        style: int = 0,
        kind: str = "home",
        *,
        n_objects: int | None = None,
        cameras: Sequence[str] = (),
        camera_width: int = 256,
        camera_height: int = 256,
        camera_sizes: dict[str, tuple[int, int]] | None = None,
        camera_depths: bool = False,
        camera_segmentations: bool = False,
        control_freq: int = CONTROL_FREQ,
        horizon: int | None = None,
        render_mode: str | None = None,
        shadows: bool = False,
        xml: str | None = None,
        world_meta: dict | None = None,
        arm_step: float = POS_SCALE,
    ) -> None:
        if kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}, got {kind!r}")
        self.world_seed, self.style, self.kind, self.n_objects = seed, style, kind, n_objects
        self.cameras = list(cameras)
        self.camera_sizes = {c: (camera_width, camera_height) for c in self.cameras}
        self.camera_sizes.update(camera_sizes or {})
        self.camera_depths = camera_depths
        self.camera_segmentations = camera_segmentations
        self.control_freq = control_freq
        if not 0 < arm_step <= POS_SCALE:
            raise ValueError(f"arm_step must be in (0, {POS_SCALE}], got {arm_step}")
        self.arm_step = float(arm_step)  # m the arm target moves per step at |action| = 1
        self.horizon = horizon
        self.render_mode = render_mode
        self.shadows = shadows
        self._ep_meta: dict = {}
        self._last_v: list[float] | None = None
        self._nav_grid: NavGrid | None = None
        self.action_space = gym.spaces.Box(-1.0, 1.0, (self.action_dim,), dtype=np.float64)
        if xml is None:
            built = build_world(seed, style, kind, n_objects)
            xml, world_meta = built.xml, built.meta
        elif world_meta is None:
            raise ValueError("world_meta is required with xml")
        else:  # a saved world: its metadata, not the arguments, says which world it is
            self.world_seed = int(world_meta.get("seed", seed))
            self.style = int(world_meta.get("style", style))
            self.kind = str(world_meta.get("kind", kind))
            self.n_objects = world_meta.get("n_objects", n_objects)
        self._load(xml, world_meta)
        self.observation_space = self._make_obs_space()

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
        # step() reads these every call: views of the data's arrays (valid for its life), ids
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
        if full:  # arm targets as plain floats: step() does their arithmetic
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

    # ------------------------------------------------------------------ robosuite-style API
    def set_ep_meta(self, meta: dict) -> None:
        self._ep_meta = copy.deepcopy(meta)

    def get_ep_meta(self) -> dict:
        meta = dict(self._ep_meta)
        meta[EP_META_KEY] = self.world_meta
        meta.setdefault("layout_id", self.world_seed)
        meta.setdefault("style_id", self.style)
        return meta

    def edit_model_xml(self, xml_str: str) -> str:
        """robosuite rewrites asset paths here; a built-in world has none to rewrite."""
        return xml_str

    def reset_from_xml_string(self, xml_string: str) -> None:
        meta = self._ep_meta.get(EP_META_KEY, self.world_meta)
        self._load(xml_string, meta)

    def reset(
        self, *, seed: int | None = None, options: dict | None = None
    ) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        meta = self._ep_meta.get(EP_META_KEY)
        if meta is not None and (meta.get("seed"), meta.get("style"), meta.get("kind")) != (
            self.world_seed,
            self.style,
            self.kind,
        ):
            # ep_meta names another world: rebuild it (RoboCasa rebuilds from layout/style too)
            self.world_seed, self.style, self.kind = meta["seed"], meta["style"], meta["kind"]
            built = build_world(self.world_seed, self.style, self.kind, meta.get("n_objects"))
            self._load(built.xml, built.meta)
        else:
            self._reset_data()
        return self._get_observations(), {}

    # ------------------------------------------------------------------ acting
    def step(
        self, action: Sequence[float] | np.ndarray
    ) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        self.advance(action)
        truncated = self.horizon is not None and self._steps >= self.horizon
        return self._get_observations(), 0.0, False, truncated, {}

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
        d = self.data
        rel = d.site_xpos[self._eef_site] - d.xpos[self._base_body]
        yaw = d.qpos[self._base_q[2]]
        c, s = math.cos(yaw), math.sin(yaw)
        return np.array([c * rel[0] + s * rel[1], -s * rel[0] + c * rel[1], rel[2]])

    def eef_action_toward(self, target_world: Sequence[float]) -> np.ndarray:
        """action[0:3] that moves the grip site toward a world point (clipped to one step)."""
        d = self.data
        rel = np.asarray(target_world, dtype=float) - d.xpos[self._base_body]
        yaw = d.qpos[self._base_q[2]]
        c, s = math.cos(yaw), math.sin(yaw)
        goal = np.array([c * rel[0] + s * rel[1], -s * rel[0] + c * rel[1], rel[2]])
        return np.clip((goal - self.eef_pos_base()) / self.arm_step, -1.0, 1.0)

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

    def step_discrete(self, action: int) -> dict[str, np.ndarray]:
        """FindingDory's discrete move on the nav grid (never through walls or furniture)."""
        from recallbench.world.navigation import DiscreteAction, apply_discrete

        pose = apply_discrete(self.nav_grid, self.base_pose(), DiscreteAction(int(action)))
        self.teleport(pose)
        return self._get_observations()

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

    # ------------------------------------------------------------------ observations
    def _get_observations(self, force_update: bool = False) -> dict[str, np.ndarray]:
        """robosuite-style observation dict (``force_update`` accepted for API parity; every
        call reads the current state)."""
        obs = self.proprio()
        if self.cameras:
            obs.update(camera_images(self.renders, self.data, self.cameras, self.camera_sizes,
                                     self.camera_depths, self.camera_segmentations))
        return obs

    def proprio(self) -> dict[str, np.ndarray]:
        """The robot's state alone (``robot0_*``), without rendering any camera."""
        return self._robot_state(self._gripper_closed, self.held_body())

    def _make_obs_space(self) -> gym.spaces.Dict:
        return observation_space(self._get_observations(), self.cameras, self.camera_sizes,
                                 self.camera_depths, self.camera_segmentations, self.model.nbody)

    def render_camera(
        self,
        camera: str | mujoco.MjvCamera = "robot0_head",
        width: int | None = None,
        height: int | None = None,
        mode: str = "rgb",
    ) -> np.ndarray:
        """One frame of any camera: mode 'rgb' (H,W,3 uint8), 'depth' (H,W float32 m) or
        'segmentation' (H,W int32 body ids, -1 background)."""
        if width is None or height is None:
            width, height = (
                HEAD_SIZE if camera == "robot0_head" else self.camera_sizes.get(camera, (256, 256))
            )
        if mode == "rgb":
            return self.renders.rgb(self.data, camera, width, height)
        if mode == "depth":
            return self.renders.depth(self.data, camera, width, height)
        if mode == "segmentation":
            return self.renders.segmentation(self.data, camera, width, height)
        raise ValueError(f"mode must be rgb, depth or segmentation, got {mode!r}")

    def render(self) -> np.ndarray:
        cam = self.cameras[0] if self.cameras else "robot0_head"
        return self.render_camera(cam)

    def close(self) -> None:
        self.renders.close()

    # ------------------------------------------------------------------ lookups
    def room_of(self, xy: Sequence[float]) -> str | None:
        """Name of the room whose floor contains the point (None outside every room)."""
        x, y = float(xy[0]), float(xy[1])
        for r in self.world_meta["rooms"]:
            x0, y0, x1, y1 = r["bounds"]
            if x0 <= x <= x1 and y0 <= y <= y1:
                return r["name"]
        return None

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


def make_env(env_name: str, **kwargs: Any) -> HomeEnv:
    """``make_env("RecallbenchHome", seed=3, style=1, cameras=[...])``; also
    ``"RecallbenchKitchen"`` (one room). A drop-in for ``robosuite.make``: robosuite's keyword
    arguments (``use_camera_obs``, ``camera_names``, ``camera_widths``, ``has_renderer``,
    ``ignore_done``, ...) are translated or dropped (``world.robosuite_kwargs``)."""
    from recallbench.world.robosuite_kwargs import translate

    if env_name not in ENV_NAMES:
        raise ValueError(f"unknown env {env_name!r}; known: {sorted(ENV_NAMES)}")
    kwargs = translate(kwargs)
    kwargs.setdefault("kind", ENV_NAMES[env_name])
    return HomeEnv(**kwargs)


__all__ = ["HomeEnv", "make_env", "CAMERAS", "ENV_NAMES", "EP_META_KEY"]
