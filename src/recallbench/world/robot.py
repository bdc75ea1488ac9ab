"""The mobile manipulator: omni base (slide x, slide y, hinge yaw), torso lift, a Cartesian arm
(three slides + wrist yaw) and a magic gripper, named like RoboCasa's PandaOmron
(``mobilebase0_*``, ``robot0_*``, ``gripper0_*``)."""

from __future__ import annotations

import math

import mujoco

from recallbench.world.mjcf import (
    BOX,
    CYL,
    ROBOT,
    VISUAL,
    Vec,
    box,
    geom,
    look_at_xyaxes,
    r4,
    xyaxes_quat,
)

BASE_RADIUS = 0.28
HEAD_HEIGHT = 1.31
HEAD_TILT_DEG = 30.0
HEAD_HFOV_DEG = 43.0
HEAD_ASPECT = 0.75  # width / height, portrait
SUPPORT_Z = 0.32
ARM_Z0 = 0.55  # carriage height above the torso origin

BASE_JOINTS = ("mobilebase0_joint_x", "mobilebase0_joint_y", "mobilebase0_joint_yaw")
TORSO_JOINT = "robot0_torso_lift_joint"
ARM_JOINTS = ("robot0_arm_x_joint", "robot0_arm_y_joint", "robot0_arm_z_joint")
WRIST_JOINT = "robot0_wrist_joint"
ARM_RANGES = {
    "robot0_arm_x_joint": (0.1, 1.1),
    "robot0_arm_y_joint": (-0.5, 0.5),
    "robot0_arm_z_joint": (-0.8, 0.8),
    TORSO_JOINT: (0.0, 0.5),
    WRIST_JOINT: (-math.pi, math.pi),
}
ARM_HOME = {
    "robot0_arm_x_joint": 0.15,
    "robot0_arm_y_joint": 0.0,
    "robot0_arm_z_joint": -0.3,
    TORSO_JOINT: 0.15,
    WRIST_JOINT: 0.0,
}
EEF_BODY = "gripper0_eef"
EEF_SITE = "gripper0_grip_site"
CAMERAS = ("robot0_agentview_left", "robot0_agentview_right", "robot0_eye_in_hand", "robot0_head")
HEAD_SIZE = (480, 640)  # width, height (FindingDory's portrait head camera)

BODY = (0.22, 0.22, 0.24, 1)
TRIM = (0.85, 0.45, 0.1, 1)
LIGHT = (0.8, 0.8, 0.82, 1)


def head_fovy_deg() -> float:
    """MuJoCo's fovy is vertical: tan(v/2) = tan(h/2) / aspect."""
    return math.degrees(2 * math.atan(math.tan(math.radians(HEAD_HFOV_DEG) / 2) / HEAD_ASPECT))


def _slide(
    body: mujoco.MjsBody,
    name: str,
    axis: Vec,
    rng: Vec,
    damping: float = 50.0,
) -> None:
    body.add_joint(
        name=name,
        type=mujoco.mjtJoint.mjJNT_SLIDE,
        axis=list(axis),
        range=list(rng),
        limited=1,
        damping=damping,
        armature=0.1,
    )


def build_robot(spec: mujoco.MjSpec) -> None:
    """The mobile manipulator: base, mast with the cameras, arm, gripper, then the actuators."""
    base = _base(spec.worldbody)
    support = _mast_and_cameras(base)
    wrist = _arm(support)
    _gripper(wrist)
    _actuators(spec)


def _base(world: mujoco.MjsBody) -> mujoco.MjsBody:
    """The round base on planar x / y / yaw joints, with its wheels."""
    base = world.add_body(name="mobilebase0_base", pos=[0, 0, 0], gravcomp=1.0)
    for name, axis in zip(BASE_JOINTS[:2], ((1, 0, 0), (0, 1, 0)), strict=True):
        base.add_joint(
            name=name, type=mujoco.mjtJoint.mjJNT_SLIDE, axis=list(axis), damping=0.0, armature=1.0
        )
    base.add_joint(
        name=BASE_JOINTS[2],
        type=mujoco.mjtJoint.mjJNT_HINGE,
        axis=[0, 0, 1],
        damping=0.0,
        armature=1.0,
    )
    geom(base, "mobilebase0_body", CYL, (BASE_RADIUS, 0.13), (0, 0, 0.16), BODY, ROBOT, mass=40.0)
    geom(base, None, CYL, (BASE_RADIUS + 0.005, 0.01), (0, 0, 0.29), TRIM, VISUAL)
    for sx, sy in ((0.15, 0.18), (0.15, -0.18), (-0.15, 0.18), (-0.15, -0.18)):
        geom(
            base,
            None,
            CYL,
            (0.05, 0.02),
            (sx, sy, 0.05),
            (0.05, 0.05, 0.05, 1),
            VISUAL,
            quat=(0.7071, 0.7071, 0, 0),
        )
    return base


def _mast_and_cameras(base: mujoco.MjsBody) -> mujoco.MjsBody:
    """The mast (``mobilebase0_support``) with the head and the two agent-view cameras."""
    support = base.add_body(name="mobilebase0_support", pos=[0, 0, SUPPORT_Z], gravcomp=1.0)
    box(support, "mobilebase0_mast", (-0.1, 0, 0.55), (0.05, 0.05, 0.55), LIGHT, VISUAL, mass=2.0)
    # head camera on a small pan-tilt box at 1.31 m
    hz = HEAD_HEIGHT - SUPPORT_Z
    box(support, "robot0_head_g", (-0.08, 0, hz), (0.05, 0.1, 0.04), BODY, VISUAL, mass=0.3)
    t = math.radians(HEAD_TILT_DEG)
    support.add_camera(
        name="robot0_head",
        pos=r4((-0.02, 0, hz)),
        fovy=round(head_fovy_deg(), 4),
        quat=xyaxes_quat((0, -1, 0, math.sin(t), 0, math.cos(t))),
    )
    for name, sy in (("robot0_agentview_left", 1), ("robot0_agentview_right", -1)):
        eye = (-0.3, 0.6 * sy, 1.45 - SUPPORT_Z)
        target = (0.8, -0.1 * sy, 0.85 - SUPPORT_Z)
        support.add_camera(
            name=name, pos=r4(eye), fovy=60.0, quat=xyaxes_quat(look_at_xyaxes(eye, target))
        )
    return support


def _arm(support: mujoco.MjsBody) -> mujoco.MjsBody:
    """Torso lift, then the arm's z / y / x slides and the wrist hinge; returns the wrist."""
    torso = support.add_body(name="robot0_torso", pos=[0, 0, 0], gravcomp=1.0)
    _slide(torso, TORSO_JOINT, (0, 0, 1), ARM_RANGES[TORSO_JOINT], damping=200.0)
    box(torso, "robot0_torso_g", (-0.1, 0, 0.45), (0.06, 0.06, 0.25), BODY, VISUAL, mass=3.0)
    carriage = torso.add_body(name="robot0_arm_z", pos=[0, 0, ARM_Z0], gravcomp=1.0)
    _slide(carriage, "robot0_arm_z_joint", (0, 0, 1), ARM_RANGES["robot0_arm_z_joint"], 100.0)
    box(carriage, "robot0_carriage_g", (-0.1, 0, 0), (0.08, 0.08, 0.05), TRIM, VISUAL, mass=1.0)
    lateral = carriage.add_body(name="robot0_arm_y", pos=[0, 0, 0], gravcomp=1.0)
    _slide(lateral, "robot0_arm_y_joint", (0, 1, 0), ARM_RANGES["robot0_arm_y_joint"], 100.0)
    box(lateral, None, (-0.1, 0, 0), (0.03, 0.03, 0.03), LIGHT, VISUAL, mass=0.5)
    ext = lateral.add_body(name="robot0_arm_x", pos=[0, 0, 0], gravcomp=1.0)
    _slide(ext, "robot0_arm_x_joint", (1, 0, 0), ARM_RANGES["robot0_arm_x_joint"], 100.0)
    # telescoping beam: its back end stays behind the mast as the arm extends
    box(ext, "robot0_arm_beam", (-0.35, 0, 0), (0.4, 0.025, 0.02), LIGHT, VISUAL, mass=1.0)
    wrist = ext.add_body(name="robot0_wrist", pos=[0.05, 0, 0], gravcomp=1.0)
    wrist.add_joint(
        name=WRIST_JOINT,
        type=mujoco.mjtJoint.mjJNT_HINGE,
        axis=[0, 0, 1],
        range=list(ARM_RANGES[WRIST_JOINT]),
        limited=1,
        damping=5.0,
        armature=0.05,
    )
    geom(wrist, None, CYL, (0.03, 0.03), (0, 0, 0), BODY, VISUAL, mass=0.3)
    return wrist


def _gripper(wrist: mujoco.MjsBody) -> None:
    """Palm, fingers, the grip site and the eye-in-hand camera."""
    eef = wrist.add_body(name=EEF_BODY, pos=[0.06, 0, 0], gravcomp=1.0)
    box(eef, "gripper0_palm", (0, 0, 0), (0.02, 0.05, 0.02), BODY, VISUAL, mass=0.3)
    for sy in (1, -1):
        box(
            eef,
            f"gripper0_finger_{'l' if sy > 0 else 'r'}",
            (0.04, sy * 0.035, 0),
            (0.03, 0.007, 0.015),
            LIGHT,
            VISUAL,
            mass=0.05,
        )
    eef.add_site(name=EEF_SITE, pos=[0.05, 0, 0], size=[0.01, 0, 0], rgba=[1, 0, 0, 1], group=4)
    d = math.radians(25)
    eef.add_camera(
        name="robot0_eye_in_hand",
        pos=[-0.02, 0, 0.06],
        fovy=75.0,
        quat=xyaxes_quat((0, -1, 0, math.sin(d), 0, math.cos(d))),
    )


def _actuators(spec: mujoco.MjSpec) -> None:
    # Base: velocity servos in world x / y / yaw (the env rotates base-frame commands).
    for jn, kv, lim in (
        (BASE_JOINTS[0], 2000.0, 3000.0),
        (BASE_JOINTS[1], 2000.0, 3000.0),
        (BASE_JOINTS[2], 300.0, 600.0),
    ):
        a = spec.add_actuator(
            name=jn.replace("joint", "act"), target=jn, trntype=mujoco.mjtTrn.mjTRN_JOINT
        )
        a.gaintype = mujoco.mjtGain.mjGAIN_FIXED
        a.biastype = mujoco.mjtBias.mjBIAS_AFFINE
        a.gainprm[0] = kv
        a.biasprm[:3] = [0.0, 0.0, -kv]
        a.forcelimited = 1
        a.forcerange = [-lim, lim]
    # Arm, torso and wrist: position servos; targets are integrated from delta actions.
    for jn, kp, kv in (
        (TORSO_JOINT, 20000.0, 2000.0),
        ("robot0_arm_x_joint", 8000.0, 400.0),
        ("robot0_arm_y_joint", 8000.0, 400.0),
        ("robot0_arm_z_joint", 8000.0, 400.0),
        (WRIST_JOINT, 200.0, 10.0),
    ):
        a = spec.add_actuator(
            name=jn.replace("joint", "act"), target=jn, trntype=mujoco.mjtTrn.mjTRN_JOINT
        )
        a.gaintype = mujoco.mjtGain.mjGAIN_FIXED
        a.biastype = mujoco.mjtBias.mjBIAS_AFFINE
        a.gainprm[0] = kp
        a.biasprm[:3] = [0.0, -kp, -kv]
        a.ctrllimited = 1
        a.ctrlrange = list(ARM_RANGES[jn])


__all__ = ["build_robot", "BASE_RADIUS", "CAMERAS", "EEF_SITE", "EEF_BODY", "BOX"]
