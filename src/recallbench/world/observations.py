"""What ``HomeEnv`` observes, robosuite style: the robot's state (base, grip site, arm, gripper)
and one image (optionally depth and segmentation) per camera, and the matching spaces."""

from __future__ import annotations

import math
from collections.abc import Sequence

import gymnasium as gym
import mujoco
import numpy as np

from recallbench.world.render import Renders

# Camera images are stored upright (row 0 is the top of the view), unlike robosuite's default
# OpenGL convention (rows bottom-up); served policies' presets turn frames by it (docs/vla.md).
IMAGE_CONVENTION = "upright"
_XYZW = np.array([1, 2, 3, 0])  # MuJoCo's (w, x, y, z) -> robosuite's (x, y, z, w)


class RobotState:
    """The robot's proprioception under robosuite's keys (``robot0_*``), read every step.

    Every value read from the ``MjData`` (poses, quaternions in robosuite's order, joint
    positions) is gathered by one ``take`` over a view spanning the arrays they live in (MuJoCo
    keeps them in one buffer), and the arrays returned are slices of that one copy and of one
    array of the derived values: a dozen numpy calls instead of two dozen, on a path run every
    step. The arithmetic is the same float64 operations in the same order as ever, so the values
    are the same bits. ``one_buffer=False`` concatenates the arrays per call instead (also the
    fallback where they do not share an aligned buffer)."""

    def __init__(
        self,
        d: mujoco.MjData,
        base_body: int,
        eef_site: int,
        eef_body: int,
        base_q: np.ndarray,
        arm_q: np.ndarray,
        one_buffer: bool = True,
    ) -> None:
        self._arrays = (d.qpos, d.xpos.reshape(-1), d.xquat.reshape(-1), d.site_xpos.reshape(-1))
        qpos, xpos, xquat, site = range(4)
        picks = [  # (array, flat indices) in the order of the keys below
            (xpos, [3 * base_body + i for i in range(3)]),
            (xquat, [4 * base_body + i for i in _XYZW]),
            (qpos, [int(i) for i in base_q]),
            (site, [3 * eef_site + i for i in range(3)]),
            (xquat, [4 * eef_body + i for i in _XYZW]),
            (qpos, [int(i) for i in arm_q]),
        ]
        self._span, starts = _one_span(self._arrays) if one_buffer else (None, None)
        if starts is None:  # offsets in the concatenation of the arrays
            starts = np.cumsum([0] + [a.size for a in self._arrays[:-1]]).tolist()
        self._idx = np.array([starts[a] + i for a, ids in picks for i in ids], dtype=np.intp)
        bounds = np.cumsum([0] + [len(ids) for _, ids in picks]).tolist()
        (self._bp, self._bq, self._pose, self._ep, self._eq, self._arm) = (
            slice(a, b) for a, b in zip(bounds[:-1], bounds[1:], strict=True)
        )
        self._yaw = bounds[2] + 2  # base_q is (x, y, yaw)

    def __call__(self, gripper_closed: bool, held: int | None) -> dict[str, np.ndarray]:
        span = self._span if self._span is not None else np.concatenate(self._arrays)
        vals = span.take(self._idx)  # one copy of every value read
        v = vals.tolist()
        bx, by, bz = v[self._bp]
        ex, ey, ez = v[self._ep]
        yaw = v[self._yaw]
        r0, r1, r2 = ex - bx, ey - by, ez - bz
        c, s = math.cos(yaw), math.sin(yaw)
        g0, g1 = (0.0, 0.0) if gripper_closed else (0.04, -0.04)
        derived = np.array(
            (c * r0 + s * r1, -s * r0 + c * r1, r2, g0, g1, 0.0 if held is None else 1.0)
        )
        return {
            "robot0_base_pos": vals[self._bp],
            "robot0_base_quat": vals[self._bq],
            "robot0_base_pose": vals[self._pose],
            "robot0_eef_pos": vals[self._ep],
            "robot0_eef_quat": vals[self._eq],
            "robot0_base_to_eef_pos": derived[0:3],
            "robot0_arm_qpos": vals[self._arm],
            "robot0_gripper_qpos": derived[3:5],
            "robot0_grasped": derived[5:6],
        }


def _one_span(arrays: Sequence[np.ndarray]) -> tuple[np.ndarray | None, list[int] | None]:
    """A float64 view from the first to the last element of ``arrays`` when they lie at
    whole-element distances from each other (MjData's arrays share one buffer), and each
    array's offset in it. Only ever read through ``take`` at indices inside the arrays."""
    addrs = [a.__array_interface__["data"][0] for a in arrays]
    lo = min(addrs)
    if any((x - lo) % 8 or a.dtype != np.float64 or not a.flags.c_contiguous
           for x, a in zip(addrs, arrays, strict=True)):
        return None, None
    first = arrays[addrs.index(lo)]
    size = max(x + a.nbytes for x, a in zip(addrs, arrays, strict=True)) - lo
    # the view keeps the data alive through ``first``; read-only, and nothing reads between
    span = np.lib.stride_tricks.as_strided(first, shape=(size // 8,), strides=(8,),
                                           writeable=False)
    return span, [(x - lo) // 8 for x in addrs]


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
