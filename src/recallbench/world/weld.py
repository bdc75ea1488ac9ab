"""Pose arithmetic of the magic gripper's weld: a grasped body keeps its pose relative to the
gripper body, recorded in the weld equality and in ``userdata`` (so saved states are complete)."""

from __future__ import annotations

import mujoco
import numpy as np


def relative_pose(d: mujoco.MjData, eef_body: int, body: int) -> tuple[np.ndarray, np.ndarray]:
    """Pose of ``body`` in the gripper body's frame: (position, quaternion)."""
    p1, q1 = d.xpos[eef_body], d.xquat[eef_body]
    p2, q2 = d.xpos[body], d.xquat[body]
    q1inv = np.empty(4)
    mujoco.mju_negQuat(q1inv, q1)
    relp = np.empty(3)
    mujoco.mju_rotVecQuat(relp, p2 - p1, q1inv)
    relq = np.empty(4)
    mujoco.mju_mulQuat(relq, q1inv, q2)
    return relp, relq


def welded_pose(
    d: mujoco.MjData, eef_body: int, rel_p: np.ndarray, rel_q: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """World pose of a body held at (rel_p, rel_q) in the gripper body's frame."""
    p1, q1 = d.xpos[eef_body], d.xquat[eef_body]
    pos = np.empty(3)
    mujoco.mju_rotVecQuat(pos, rel_p, q1)
    quat = np.empty(4)
    mujoco.mju_mulQuat(quat, q1, rel_q)
    return p1 + pos, quat


def activate_weld(
    m: mujoco.MjModel,
    d: mujoco.MjData,
    eq: int,
    relp: np.ndarray,
    relq: np.ndarray,
    torquescale: float,
) -> None:
    """Record the grasp in ``userdata`` and the weld's data, and turn the weld on."""
    d.userdata[0] = eq
    d.userdata[1:4] = relp
    d.userdata[4:8] = relq
    d.userdata[8] = torquescale
    m.eq_data[eq, 0:3] = 0.0
    m.eq_data[eq, 3:6] = relp
    m.eq_data[eq, 6:10] = relq
    m.eq_data[eq, 10] = torquescale
    d.eq_active[eq] = 1
