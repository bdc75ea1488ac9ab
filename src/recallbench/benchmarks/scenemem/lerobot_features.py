"""SceneMem's cameras, state and action as LeRobot features: the one naming that
``recallbench export --format lerobot`` writes and ``--policy lerobot:FOLDER`` reads, so a policy
``lerobot-train`` trained on an export runs with no map (docs/vla.md, docs/export.md).

Plain data and numpy: the export (which imports lerobot) and the loader (in a worker) both import
it, and neither depends on the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

IMAGE_PREFIX = "observation.images."
STATE = "observation.state"
ACTION = "action"
# feature -> the env camera (its recorded video is ``videos/<camera>.mp4``; its observation is
# ``<camera>_image``), in the order the export writes them
CAMERAS = {f"{IMAGE_PREFIX}agentview_left": "robot0_agentview_left",
           f"{IMAGE_PREFIX}agentview_right": "robot0_agentview_right",
           f"{IMAGE_PREFIX}eye_in_hand": "robot0_eye_in_hand"}
# ``observation.state``: these env observations concatenated in this order (the built-in arm:
# 3 + 3 + 5 + 2 = 13 values; ``state_names`` names each value ``<part>_<i>``)
STATE_PARTS = ("robot0_base_pose", "robot0_base_to_eef_pos", "robot0_arm_qpos",
               "robot0_gripper_qpos")
# ``action``: the env's 12-dim PandaOmron action (docs/world.md), slot by slot
ACTION_NAMES = ("eef_dx", "eef_dy", "eef_dz", "eef_droll", "eef_dpitch", "eef_dyaw", "gripper",
                "base_forward", "base_left", "base_yaw", "torso_lift", "base_mode")


def image_key(camera: str) -> str:
    """The env observation holding ``camera``'s image (robosuite's ``<camera>_image``)."""
    return f"{camera}_image"


def env_keys(feature: str) -> list[str] | None:
    """The env observations a feature of this naming is made of (images: one key; the state: its
    parts, concatenated), or None for a feature outside it."""
    if feature in CAMERAS:
        return [image_key(CAMERAS[feature])]
    if feature == STATE:
        return list(STATE_PARTS)
    return None


def state_names(sizes: Mapping[str, int]) -> list[str]:
    """The name of every value of ``observation.state``, given each part's length."""
    return [f"{part}_{i}" for part in STATE_PARTS for i in range(int(sizes[part]))]


def state_vector(obs: Mapping[str, Any]) -> np.ndarray:
    """``observation.state`` from an observation dict holding the parts (float32)."""
    return np.concatenate([np.asarray(obs[p], np.float32).reshape(-1) for p in STATE_PARTS])


def state_columns(names: Sequence[str]) -> list[int]:
    """Where each value of ``observation.state`` sits in a recorded state whose columns are named
    ``names`` (``<key>_<i>``, as ``videos/trajectory.npz`` records them); ValueError naming a
    part the recording lacks."""
    index = {n: i for i, n in enumerate(names)}
    columns: list[int] = []
    for part in STATE_PARTS:
        found = sorted((int(n.rpartition("_")[2]), i) for n, i in index.items()
                       if n.rpartition("_")[0] == part and n.rpartition("_")[2].isdigit())
        if not found:
            raise ValueError(f"state_names has no {part}_<i> (the state's parts: "
                             f"{', '.join(STATE_PARTS)})")
        columns += [i for _, i in found]
    return columns
