"""What ``HomeEnv`` observes, robosuite style: the robot's state (base, grip site, arm, gripper)
and one image (optionally depth and segmentation) per camera, and the matching spaces."""

from __future__ import annotations

import math
from collections.abc import Sequence

import gymnasium as gym
import mujoco
import numpy as np

from recallbench.world.render import Renders


def _quat_xyzw(q: np.ndarray) -> np.ndarray:
    return np.array([q[1], q[2], q[3], q[0]])


def robot_state(
    d: mujoco.MjData,
    base_body: int,
    eef_site: int,
    eef_body: int,
    base_q: np.ndarray,
    arm_q: np.ndarray,
    gripper_closed: bool,
    held: int | None,
) -> dict[str, np.ndarray]:
    """The robot's proprioception under robosuite's keys (``robot0_*``)."""
    yaw = d.qpos[base_q[2]]
    rel = d.site_xpos[eef_site] - d.xpos[base_body]
    c, s = math.cos(yaw), math.sin(yaw)
    return {
        "robot0_base_pos": d.xpos[base_body].copy(),
        "robot0_base_quat": _quat_xyzw(d.xquat[base_body]),
        "robot0_base_pose": d.qpos[base_q].copy(),
        "robot0_eef_pos": d.site_xpos[eef_site].copy(),
        "robot0_eef_quat": _quat_xyzw(d.xquat[eef_body]),
        "robot0_base_to_eef_pos": np.array(
            [c * rel[0] + s * rel[1], -s * rel[0] + c * rel[1], rel[2]]
        ),
        "robot0_arm_qpos": d.qpos[arm_q].copy(),
        "robot0_gripper_qpos": np.array([0.0, 0.0]) if gripper_closed else np.array([0.04, -0.04]),
        "robot0_grasped": np.array([0.0 if held is None else 1.0]),
    }


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
