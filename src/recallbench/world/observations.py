"""What ``HomeEnv`` observes, robosuite style: the robot's state (base, grip site, arm, gripper)
and one image (optionally depth and segmentation) per camera, and the matching spaces."""

from __future__ import annotations

import math
from collections.abc import Sequence

import gymnasium as gym
import mujoco
import numpy as np

from recallbench.world.render import Renders

_XYZW = np.array([1, 2, 3, 0])  # MuJoCo's (w, x, y, z) -> robosuite's (x, y, z, w)


class RobotState:
    """The robot's proprioception under robosuite's keys (``robot0_*``), read every step.

    Keeps the views of one ``MjData``'s arrays and the ids it reads (looking them up per call
    costs more than the reads themselves); the arithmetic is the same float64 operations in the
    same order as ever, so the values are the same bits."""

    def __init__(
        self,
        d: mujoco.MjData,
        base_body: int,
        eef_site: int,
        eef_body: int,
        base_q: np.ndarray,
        arm_q: np.ndarray,
    ) -> None:
        self._qpos, self._xpos, self._xquat = d.qpos, d.xpos, d.xquat
        self._site_xpos = d.site_xpos
        self._base, self._site, self._eef = int(base_body), int(eef_site), int(eef_body)
        self._base_q = np.asarray(base_q)
        self._yaw_q = int(base_q[2])
        self._arm_q = np.asarray(arm_q)
        # contiguous joint addresses read as a slice (a view copy, no fancy indexing)
        self._base_sl = index_or_slice(self._base_q)
        self._arm_sl = index_or_slice(self._arm_q)

    def __call__(self, gripper_closed: bool, held: int | None) -> dict[str, np.ndarray]:
        qpos, xpos, xquat = self._qpos, self._xpos, self._xquat
        base_pos = xpos[self._base].copy()
        eef_pos = self._site_xpos[self._site].copy()
        yaw = qpos[self._yaw_q]
        (bx, by, bz), (ex, ey, ez) = base_pos.tolist(), eef_pos.tolist()
        r0, r1, r2 = ex - bx, ey - by, ez - bz
        c, s = math.cos(yaw), math.sin(yaw)
        return {
            "robot0_base_pos": base_pos,
            "robot0_base_quat": xquat[self._base][_XYZW],
            "robot0_base_pose": qpos[self._base_sl].copy(),
            "robot0_eef_pos": eef_pos,
            "robot0_eef_quat": xquat[self._eef][_XYZW],
            "robot0_base_to_eef_pos": np.array([c * r0 + s * r1, -s * r0 + c * r1, r2]),
            "robot0_arm_qpos": qpos[self._arm_sl].copy(),
            "robot0_gripper_qpos": np.array([0.0, 0.0] if gripper_closed else [0.04, -0.04]),
            "robot0_grasped": np.array([0.0 if held is None else 1.0]),
        }


def index_or_slice(idx: np.ndarray) -> slice | np.ndarray:
    """``idx`` as a slice when it is a run of consecutive ascending ids, else itself (a slice
    reads and writes cheaper than fancy indexing)."""
    if idx.size and np.array_equal(idx, np.arange(idx[0], idx[0] + idx.size)):
        return slice(int(idx[0]), int(idx[0]) + idx.size)
    return idx


def camera_images(
    renders: Renders,
    d: mujoco.MjData,
    cameras: Sequence[str],
    sizes: dict[str, tuple[int, int]],
    depths: bool,
    segmentations: bool,
) -> dict[str, np.ndarray]:
    """``<camera>_image`` (and ``_depth``, ``_segmentation_instance`` when asked) per camera."""
    obs = {}
    for cam in cameras:
        w, h = sizes[cam]
        obs[f"{cam}_image"] = renders.rgb(d, cam, w, h)
        if depths:
            obs[f"{cam}_depth"] = renders.depth(d, cam, w, h)
        if segmentations:
            obs[f"{cam}_segmentation_instance"] = renders.segmentation(d, cam, w, h)
    return obs


def observation_space(
    sample: dict[str, np.ndarray],
    cameras: Sequence[str],
    sizes: dict[str, tuple[int, int]],
    depths: bool,
    segmentations: bool,
    nbody: int,
) -> gym.spaces.Dict:
    """Spaces for an observation like ``sample``: unbounded state, bounded images."""
    box = gym.spaces.Box
    spaces: dict[str, gym.Space] = {
        k: box(-np.inf, np.inf, v.shape, dtype=np.float64) for k, v in sample.items()
    }
    for cam in cameras:
        w, h = sizes[cam]
        spaces[f"{cam}_image"] = box(0, 255, (h, w, 3), dtype=np.uint8)
        if depths:
            spaces[f"{cam}_depth"] = box(0, np.inf, (h, w), dtype=np.float32)
        if segmentations:
            spaces[f"{cam}_segmentation_instance"] = box(-1, nbody, (h, w), dtype=np.int32)
    return gym.spaces.Dict(spaces)
