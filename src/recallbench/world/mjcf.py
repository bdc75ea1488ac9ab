"""Small MjSpec helpers shared by the world builders: collision classes, boxes, poses."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import mujoco

# Collision classes as (contype, conaffinity). Static furniture never tests against other static
# parts or doors, which keeps the contact pass cheap; objects collide with everything.
STATIC = (1, 4 | 8)
DOOR = (2, 4 | 8)
OBJECT = (4, 1 | 2 | 4 | 8)
ROBOT = (8, 1 | 2 | 4)
VISUAL = (0, 0)

BOX = mujoco.mjtGeom.mjGEOM_BOX
CYL = mujoco.mjtGeom.mjGEOM_CYLINDER
SPHERE = mujoco.mjtGeom.mjGEOM_SPHERE
CAPSULE = mujoco.mjtGeom.mjGEOM_CAPSULE
ELLIPSOID = mujoco.mjtGeom.mjGEOM_ELLIPSOID

Vec = Sequence[float]


def make_directional(light: mujoco.MjsLight) -> None:
    """Make a spec light directional on every MuJoCo 3.x we support: up to 3.3 it is a boolean
    ``directional``; later releases replaced it with ``type = mjLIGHT_DIRECTIONAL``."""
    light_type = getattr(mujoco, "mjtLightType", None)
    if light_type is not None:
        light.type = light_type.mjLIGHT_DIRECTIONAL
    else:
        light.directional = True


def r4(v: Vec) -> list[float]:
    """Round to 0.1 mm so the generated XML is identical across runs and platforms."""
    return [round(float(x), 4) for x in v]


def yaw_quat(yaw: float) -> list[float]:
    return r4([math.cos(yaw / 2), 0.0, 0.0, math.sin(yaw / 2)])


def rotate_xy(x: float, y: float, yaw: float) -> tuple[float, float]:
    c, s = math.cos(yaw), math.sin(yaw)
    return c * x - s * y, s * x + c * y


def geom(
    body: mujoco.MjsBody,
    name: str | None,
    gtype: mujoco.mjtGeom,
    size: Vec,
    pos: Vec,
    rgba: Vec,
    cls: tuple[int, int] = STATIC,
    quat: Vec | None = None,
    material: str | None = None,
    mass: float | None = None,
) -> mujoco.MjsGeom:
    g = body.add_geom(
        type=gtype, size=r4(list(size) + [0.0] * (3 - len(size))), pos=r4(pos), rgba=r4(rgba)
    )
    if name:
        g.name = name
    g.contype, g.conaffinity = cls
    if quat is not None:
        g.quat = r4(quat)
    if material:
        g.material = material
    if mass is not None:
        g.mass = mass
    return g


def box(
    body: mujoco.MjsBody,
    name: str | None,
    center: Vec,
    half: Vec,
    rgba: Vec,
    cls: tuple[int, int] = STATIC,
    **kw: Any,
) -> mujoco.MjsGeom:
    return geom(body, name, BOX, half, center, rgba, cls, **kw)


def look_at_xyaxes(eye: Vec, target: Vec, up: Vec = (0.0, 0.0, 1.0)) -> list[float]:
    """Camera xyaxes (right, up) so a MuJoCo camera at eye looks at target."""
    import numpy as np

    f = np.asarray(target, float) - np.asarray(eye, float)
    f /= np.linalg.norm(f)
    right = np.cross(f, np.asarray(up, float))
    right /= np.linalg.norm(right)
    cam_up = np.cross(right, f)
    return r4(list(right) + list(cam_up))


def xyaxes_quat(xyaxes: Vec) -> list[float]:
    """Quaternion of a frame given its x and y axes (MJCF's ``xyaxes``)."""
    import numpy as np

    x = np.asarray(xyaxes[:3], float)
    x /= np.linalg.norm(x)
    y = np.asarray(xyaxes[3:], float)
    y -= x * (x @ y)
    y /= np.linalg.norm(y)
    mat = np.stack([x, y, np.cross(x, y)], axis=1)
    q = np.empty(4)
    mujoco.mju_mat2Quat(q, mat.ravel())
    return [round(float(v), 8) for v in q]  # cameras need sub-0.01 degree accuracy
