"""Floor and obstacle footprints of a compiled MuJoCo model: what the navigation grid rasterises."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

from recallbench.world.geometry import Footprint

if TYPE_CHECKING:  # mujoco is imported lazily: this module must stay cheap to import
    import mujoco


def model_footprints(
    model: mujoco.MjModel,
    data: mujoco.MjData,
    *,
    z_band: tuple[float, float],
    floor_geom_prefix: str,
    ignore_body_prefixes: tuple[str, ...],
    ignore_free_bodies: bool,
) -> tuple[list[Footprint], list[Footprint]]:
    """(floor, obstacle) footprints of a model's geoms at the configuration in ``data``.

    Boxes, ellipsoids, meshes, height fields and SDFs: the xy convex hull of their (rotated)
    bounding box, which is the exact footprint of a box and never smaller than the world AABB's
    share of the shape. Spheres: discs. Capsules and cylinders: their axis projected to xy and
    swept by the radius (a disc when upright). A geom counts only if its vertical extent overlaps
    ``z_band``; planes never count.
    """
    import mujoco

    d = _posed_copy(model, data)
    ignored = _ignored_bodies(model, ignore_body_prefixes, ignore_free_bodies)
    floors: list[Footprint] = []
    obstacles: list[Footprint] = []
    infinite: list[str] = []
    zlo, zhi = z_band
    for g in range(model.ngeom):
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_GEOM, g) or ""
        gtype = int(model.geom_type[g])
        pos = d.geom_xpos[g].copy()
        rot = d.geom_xmat[g].reshape(3, 3)
        size = model.geom_size[g]
        is_floor = bool(floor_geom_prefix) and name.startswith(floor_geom_prefix)
        if gtype == mujoco.mjtGeom.mjGEOM_PLANE:  # planes are never obstacles
            if is_floor:
                plane = _plane_footprint(pos, rot, size, name)
                if plane is None:
                    infinite.append(name)  # no extent to rasterise; finite floors define the plan
                else:
                    floors.append(plane)
            continue
        if ignored[model.geom_bodyid[g]] and not is_floor:
            continue
        fp, zext, pos = _solid_footprint(gtype, model.geom_aabb[g], pos, rot, size, name)
        if is_floor:
            floors.append(fp)
        elif pos[2] + zext >= zlo and pos[2] - zext <= zhi:
            obstacles.append(fp)
    _check_finite_floor(floors, infinite)
    return floors, obstacles


def _plane_footprint(pos: np.ndarray, rot: np.ndarray, size: np.ndarray, name: str
                     ) -> Footprint | None:
    """A finite plane's rectangle in xy; None for an infinite plane (a half-size <= 0)."""
    if size[0] <= 0 or size[1] <= 0:
        return None
    corners = np.array([[sx, sy, 0.0] for sx in (-1, 1) for sy in (-1, 1)]) * [
        size[0],
        size[1],
        0.0,
    ]
    return Footprint(hull=(pos + corners @ rot.T)[:, :2], name=name)


def _solid_footprint(gtype: int, aabb: np.ndarray, pos: np.ndarray, rot: np.ndarray,
                     size: np.ndarray, name: str) -> tuple[Footprint, float, np.ndarray]:
    """Any geom but a plane: its footprint, its vertical half-extent and the world centre
    that extent is about (a round shape's own position, a bounding box's centre)."""
    import mujoco

    G = mujoco.mjtGeom
    if gtype in (G.mjGEOM_SPHERE, G.mjGEOM_CAPSULE, G.mjGEOM_CYLINDER):
        fp, zext = _round_footprint(gtype, pos, rot, size, name)
        return fp, zext, pos
    return _box_footprint(aabb, pos, rot, name)


def _check_finite_floor(floors: list[Footprint], infinite: list[str]) -> None:
    """ValueError when the only floor geoms are infinite planes: the plan has no extent."""
    if not floors and infinite:
        raise ValueError(
            f"floor geom(s) {infinite} are infinite planes and no finite floor geom exists: "
            "give the floor a size"
        )


def _posed_copy(model: mujoco.MjModel, data: mujoco.MjData) -> mujoco.MjData:
    """Kinematics on a private copy at ``data``'s configuration: the caller's data is left
    untouched."""
    import mujoco

    d = mujoco.MjData(model)
    d.qpos[:] = data.qpos
    if model.nmocap:
        d.mocap_pos[:] = data.mocap_pos
        d.mocap_quat[:] = data.mocap_quat
    mujoco.mj_kinematics(model, d)
    return d


def _ignored_bodies(model: mujoco.MjModel, ignore_body_prefixes: tuple[str, ...],
                    ignore_free_bodies: bool) -> np.ndarray:
    """Per body, whether its geoms are left out: named with an ignored prefix, below such a
    body, or (when asked) carrying a free joint."""
    import mujoco

    ignored = np.zeros(model.nbody, dtype=bool)
    free = np.zeros(model.nbody, dtype=bool)
    for j in range(model.njnt):
        if model.jnt_type[j] == mujoco.mjtJoint.mjJNT_FREE:
            free[model.jnt_bodyid[j]] = True
    for b in range(1, model.nbody):  # parents come before children in MuJoCo's body order
        name = mujoco.mj_id2name(model, mujoco.mjtObj.mjOBJ_BODY, b) or ""
        parent = model.body_parentid[b]
        own = name.startswith(tuple(ignore_body_prefixes)) if ignore_body_prefixes else False
        ignored[b] = own or ignored[parent] or (ignore_free_bodies and free[b])
    return ignored


def _round_footprint(gtype: int, pos: np.ndarray, rot: np.ndarray, size: np.ndarray,
                     name: str) -> tuple[Footprint, float]:
    """Sphere, capsule or cylinder: its axis projected to xy and swept by the radius, and its
    vertical half-extent."""
    import mujoco

    G = mujoco.mjtGeom
    r = float(size[0])
    half = 0.0 if gtype == G.mjGEOM_SPHERE else float(size[1])
    axis = rot[:, 2]
    az = abs(float(axis[2]))
    if gtype == G.mjGEOM_CYLINDER:
        zext = az * half + r * math.sqrt(max(1.0 - az * az, 0.0))
    else:
        zext = az * half + r
    fp = Footprint(
        seg=(pos[:2] - half * axis[:2], pos[:2] + half * axis[:2]), radius=r, name=name
    )
    return fp, zext


def _box_footprint(aabb: np.ndarray, pos: np.ndarray, rot: np.ndarray, name: str
                   ) -> tuple[Footprint, float, np.ndarray]:
    """Any other geom: the xy hull of its rotated bounding box, its vertical half-extent and
    the box's world centre."""
    centre, halfs = aabb[:3], aabb[3:]
    signs = np.array([[sx, sy, sz] for sx in (-1, 1) for sy in (-1, 1) for sz in (-1, 1)])
    corners = pos + (centre + signs * halfs) @ rot.T
    zext = float(np.abs(rot[2]) @ halfs)
    return Footprint(hull=corners[:, :2], name=name), zext, pos + rot @ centre
