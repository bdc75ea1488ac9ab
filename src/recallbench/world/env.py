"""``HomeEnv``: the built-in home as a gymnasium env that also speaks robosuite's dialect.

Three ways to act: ``step(action)`` with RoboCasa PandaOmron's 12-dim layout at 20 Hz,
``step_discrete(a)`` with FindingDory's STOP / MOVE_FORWARD / TURN_LEFT / TURN_RIGHT on the
navigation grid, and ``teleport(pose)``. SceneMem's loading steps work as on robosuite:
``set_ep_meta``, ``reset``, ``reset_from_xml_string(edit_model_xml(xml))``, ``sim.reset``,
``sim.set_state_from_flattened``, ``sim.forward``. The loaded world itself (acting, moving,
grasping, lookups) is ``home.HomeWorld``; this module adds the env around it."""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from recallbench.world.gl import select_backend

select_backend()

import gymnasium as gym  # noqa: E402
import mujoco  # noqa: E402
import numpy as np  # noqa: E402

from recallbench.world.builder import KINDS, build_world  # noqa: E402
from recallbench.world.home import HomeWorld  # noqa: E402
from recallbench.world.observations import camera_images, observation_space  # noqa: E402
from recallbench.world.robot import CAMERAS, HEAD_SIZE  # noqa: E402

CONTROL_FREQ = 20
POS_SCALE = 0.05  # m per control step at |action| = 1 (robosuite OSC's output_max), by default
# SceneMem scenarios run the arm at robosuite PandaOmron's pace under its default controller
# (bench/bench_pace.py measures both side by side): its OSC asks for up to 0.05 m a step but the
# arm moves ~0.0125 m a step at full command, so a step budget means the same in both worlds.
PANDAOMRON_ARM_STEP = 0.0125
EP_META_KEY = "recallbench_world"
ENV_NAMES = {"RecallbenchHome": "home", "RecallbenchKitchen": "kitchen"}


class HomeEnv(HomeWorld, gym.Env):
    """A procedural home with a mobile manipulator. See docs/world.md for the full contract."""

    metadata = {"render_modes": ["rgb_array"], "render_fps": CONTROL_FREQ}

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
        if not 0 < arm_step <= POS_SCALE:
            raise ValueError(f"arm_step must be in (0, {POS_SCALE}], got {arm_step}")
        self.horizon = horizon
        self.render_mode = render_mode
        self._ep_meta: dict = {}
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
        super().__init__(xml, world_meta, control_freq=control_freq, arm_step=arm_step,
                         shadows=shadows)
        self.observation_space = self._make_obs_space()

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

    def step_discrete(self, action: int) -> dict[str, np.ndarray]:
        """FindingDory's discrete move on the nav grid (never through walls or furniture)."""
        from recallbench.world.navigation import DiscreteAction, apply_discrete

        pose = apply_discrete(self.nav_grid, self.base_pose(), DiscreteAction(int(action)))
        self.teleport(pose)
        return self._get_observations()

    # ------------------------------------------------------------------ observations
    def _get_observations(self, force_update: bool = False) -> dict[str, np.ndarray]:
        """robosuite-style observation dict (``force_update`` accepted for API parity; every
        call reads the current state)."""
        obs = self.proprio()
        if self.cameras:
            obs.update(camera_images(self.renders, self.data, self.cameras, self.camera_sizes,
                                     self.camera_depths, self.camera_segmentations))
        return obs

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
