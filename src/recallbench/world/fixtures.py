"""Articulated kitchen fixtures (RoboCasa naming: root ``<name>_main``, joints ``<name>_<joint>``):
cabinets, the drawer unit, the sink, and the static counters; the appliances live in
``appliances`` and are re-exported here, the shared parts in ``fixture_parts``.
"""

from __future__ import annotations

import mujoco

from recallbench.world.appliances import dishwasher, fridge_tower, microwave, oven, toaster_oven
from recallbench.world.fixture_parts import (
    BLACK,
    DRAWER_RANGE,
    SINK_HANDLE_RANGE,
    FixtureInfo,
    T,
    carcass,
    hinged_door,
    interior,
    root,
)
from recallbench.world.mjcf import CAPSULE, CYL, DOOR, VISUAL, Vec, box, geom, r4, yaw_quat
from recallbench.world.styles import Style

__all__ = [
    "FixtureInfo",
    "base_counter",
    "cabinet",
    "counter_top",
    "dishwasher",
    "drawer_unit",
    "fridge_tower",
    "microwave",
    "oven",
    "sink",
    "toaster_oven",
    "wall_backsplash",
]


def cabinet(
    world: mujoco.MjsBody,
    name: str,
    room: str,
    pos: Vec,
    yaw: float,
    st: Style,
    width: float,
    double: bool,
    height: float = 0.6,
    depth: float = 0.35,
) -> FixtureInfo:
    info = FixtureInfo(name, "cabinet", room, f"{name}_main")
    w, d, h = width, depth, height
    body = root(world, name, pos, yaw)
    carcass(body, name, w, d, h, st.cabinet)
    box(body, f"{name}_shelf", (0, d / 2, h / 2), (w / 2 - T, d / 2 - T, 0.008), st.cabinet)
    if double:
        hinged_door(
            body, info, "left_door", "left", -w / 2, -0.003, 0.0, h, d, st.cabinet, st.accent
        )
        hinged_door(
            body, info, "right_door", "right", 0.003, w / 2, 0.0, h, d, st.cabinet, st.accent
        )
    else:
        hinged_door(body, info, "door", "left", -w / 2, w / 2, 0.0, h, d, st.cabinet, st.accent)
    interior(body, info, (0, d / 2, T + 0.07), (w / 2 - 0.06, d / 2 - 0.05, 0.06))
    return info


def drawer_unit(
    world: mujoco.MjsBody, name: str, room: str, pos: Vec, yaw: float, st: Style, width: float
) -> FixtureInfo:
    """Base cabinet with one drawer on a slide joint, under a counter top."""
    info = FixtureInfo(name, "drawer", room, f"{name}_main")
    w, d, h = width, 0.58, 0.86
    body = root(world, name, pos, yaw)
    carcass(body, name, w, d, h, st.cabinet)
    box(body, f"{name}_lower_front", (0, d + T / 2, 0.33), (w / 2, T / 2, 0.25), st.cabinet)
    box(body, None, (0, d + T + 0.03, 0.5), (0.1, 0.012, 0.012), st.accent, VISUAL)
    box(body, None, (0, d - 0.02, 0.04), (w / 2, 0.02, 0.04), BLACK, VISUAL)
    dz0, dz1 = 0.62, 0.84
    drawer = body.add_body(name=f"{name}_drawer", pos=r4((0, 0, 0)), gravcomp=1.0)
    jname = f"{name}_slide_joint"
    drawer.add_joint(
        name=jname,
        type=mujoco.mjtJoint.mjJNT_SLIDE,
        axis=[0, 1, 0],
        range=list(DRAWER_RANGE),
        damping=20.0,
        frictionloss=1.0,
        armature=0.1,
        limited=1,
    )
    iw, idp = w / 2 - 0.03, d / 2 - 0.03
    _drawer_box(drawer, name, w, d, dz0, dz1, iw, idp, st)
    handle = _drawer_handle(drawer, name, d, dz0, dz1, st)
    info.joint_names.append(jname)
    info.doors.append(
        {
            "name": "drawer",
            "joint": jname,
            "kind": "slide",
            "hinge": "slide",
            "size": r4((w, dz1 - dz0)),
            "range": list(DRAWER_RANGE),
            "body": drawer.name,
            "handle_body": handle.name,
            "handle_geom": f"{name}_drawer_handle_g",
        }
    )
    s = drawer.add_site(
        name=f"{name}_interior",
        pos=r4((0, d / 2 + 0.02, dz0 + 0.06)),
        size=r4((iw - 0.03, idp - 0.03, 0.05)),
        type=mujoco.mjtGeom.mjGEOM_BOX,
        rgba=[0, 1, 0, 0.2],
        group=4,
    )
    info.interior_site = s.name
    info.interior_half_extents = r4((iw - 0.03, idp - 0.03, 0.05))
    info.interior_local = (0.0, d / 2 + 0.02, dz0 + 0.01)
    return info


def _drawer_box(
    drawer: mujoco.MjsBody,
    name: str,
    w: float,
    d: float,
    dz0: float,
    dz1: float,
    iw: float,
    idp: float,
    st: Style,
) -> None:
    """The drawer's front, bottom and three walls (it moves with them: door collision class)."""
    box(
        drawer,
        f"{name}_drawer_front",
        (0, d + T / 2, (dz0 + dz1) / 2),
        (w / 2, T / 2, (dz1 - dz0) / 2),
        st.cabinet,
        DOOR,
        mass=1.0,
    )
    box(
        drawer,
        f"{name}_drawer_bottom",
        (0, d / 2 + 0.02, dz0 + 0.01),
        (iw, idp, 0.005),
        st.cabinet,
        DOOR,
        mass=0.5,
    )
    for sx in (-1, 1):
        box(
            drawer,
            None,
            (sx * iw, d / 2 + 0.02, dz0 + 0.07),
            (0.005, idp, 0.06),
            st.cabinet,
            DOOR,
            mass=0.2,
        )
    box(drawer, None, (0, 0.05, dz0 + 0.07), (iw, 0.005, 0.06), st.cabinet, DOOR, mass=0.2)


def _drawer_handle(
    drawer: mujoco.MjsBody, name: str, d: float, dz0: float, dz1: float, st: Style
) -> mujoco.MjsBody:
    """The handle bar on the drawer front, with two standoffs."""
    handle = drawer.add_body(
        name=f"{name}_drawer_handle", pos=r4((0, d + T + 0.035, (dz0 + dz1) / 2))
    )
    box(
        handle,
        f"{name}_drawer_handle_g",
        (0, 0, 0),
        (0.12, 0.012, 0.012),
        st.accent,
        VISUAL,
        mass=0.1,
    )
    for sx in (-1, 1):
        box(handle, None, (sx * 0.1, -0.02, 0), (0.008, 0.02, 0.008), st.accent, VISUAL, mass=0.01)
    return handle


def sink(
    world: mujoco.MjsBody, name: str, room: str, pos: Vec, yaw: float, st: Style, width: float
) -> FixtureInfo:
    """Counter section with a basin and a lever handle on a hinge (no door, like RoboCasa)."""
    info = FixtureInfo(name, "sink", room, f"{name}_main")
    w, d, h = width, 0.58, 0.86
    body = root(world, name, pos, yaw)
    carcass(body, name, w, d, h - 0.2, st.cabinet)
    # apron between the cabinet fronts and the counter top, hiding the basin
    box(body, f"{name}_apron", (0, d + T / 2, h - 0.1), (w / 2, T / 2, 0.1), st.cabinet)
    for sx in (-1, 1):  # closed cabinet fronts under the sink
        box(
            body,
            None,
            (sx * w / 4, d + T / 2, (h - 0.2) / 2),
            (w / 4 - 0.003, T / 2, (h - 0.2) / 2),
            st.cabinet,
        )
        box(body, None, (sx * 0.04, d + T + 0.03, h - 0.35), (0.012, 0.012, 0.1), st.accent, VISUAL)
    steel = (0.72, 0.74, 0.76, 1.0)
    bw, bd, bz = 0.25, 0.19, 0.2  # basin half width, half depth, depth
    cy = 0.33
    ct = st.counter
    top = h + 0.02
    # counter slabs around the basin hole
    box(body, f"{name}_top_back", (0, (cy - bd) / 2, top), (w / 2, (cy - bd) / 2, 0.02), ct)
    box(
        body,
        f"{name}_top_front",
        (0, (cy + bd + 0.62) / 2, top),
        (w / 2, (0.62 - cy - bd) / 2, 0.02),
        ct,
    )
    for sx in (-1, 1):
        box(body, None, (sx * (bw + w / 2) / 2, cy, top), ((w / 2 - bw) / 2, bd, 0.02), ct)
    # basin
    box(body, f"{name}_basin_bottom", (0, cy, h - bz), (bw, bd, 0.01), steel)
    box(body, None, (0, cy - bd, h - bz / 2), (bw, 0.01, bz / 2), steel)
    box(body, None, (0, cy + bd, h - bz / 2), (bw, 0.01, bz / 2), steel)
    for sx in (-1, 1):
        box(body, None, (sx * bw, cy, h - bz / 2), (0.01, bd, bz / 2), steel)
    _faucet_and_lever(body, info, name, top, steel)
    interior(body, info, (0, cy, h - bz + 0.07), (bw - 0.04, bd - 0.04, 0.06))
    return info


def _faucet_and_lever(
    body: mujoco.MjsBody, info: FixtureInfo, name: str, top: float, steel: Vec
) -> None:
    """The sink's faucet and its lever handle on a hinge, recorded as the sink's one "door"."""
    # faucet
    geom(body, f"{name}_faucet", CYL, (0.018, 0.15), (0, 0.06, top + 0.15), steel, VISUAL)
    geom(
        body,
        None,
        CAPSULE,
        (0.014, 0.08),
        (0, 0.14, top + 0.29),
        steel,
        VISUAL,
        quat=(0.7071, 0.7071, 0, 0),
    )
    handle = body.add_body(name=f"{name}_handle", pos=r4((0.13, 0.09, top + 0.06)), gravcomp=1.0)
    jname = f"{name}_handle_joint"
    handle.add_joint(
        name=jname,
        type=mujoco.mjtJoint.mjJNT_HINGE,
        axis=[0, 0, 1],
        range=list(SINK_HANDLE_RANGE),
        damping=0.5,
        frictionloss=0.2,
        armature=0.01,
        limited=1,
    )
    geom(handle, f"{name}_handle_base", CYL, (0.02, 0.04), (0, 0, 0), steel, VISUAL, mass=0.1)
    # the lever tip is what the gripper holds: off the hinge axis, so pulling it turns the handle
    lever = handle.add_body(name=f"{name}_handle_lever", pos=[0, 0.1, 0.03])
    geom(
        lever,
        f"{name}_handle_g",
        CAPSULE,
        (0.01, 0.05),
        (0, -0.04, 0),
        steel,
        VISUAL,
        quat=(0.7071, 0.7071, 0, 0),
        mass=0.05,
    )
    info.joint_names.append(jname)
    info.doors.append(
        {
            "name": "handle",
            "joint": jname,
            "kind": "hinge",
            "hinge": "lever",
            "size": [0.1, 0.04],
            "range": list(SINK_HANDLE_RANGE),
            "body": handle.name,
            "handle_body": lever.name,
            "handle_geom": f"{name}_handle_g",
        }
    )


def base_counter(
    world: mujoco.MjsBody, name: str, pos: Vec, yaw: float, st: Style, width: float
) -> mujoco.MjsBody:
    """Plain base cabinet with counter top (static; appliances stand on it)."""
    w, d, h = width, 0.58, 0.86
    body = world.add_body(name=f"{name}_main", pos=r4(pos), quat=yaw_quat(yaw))
    box(body, f"{name}_carcass", (0, d / 2, h / 2), (w / 2, d / 2, h / 2), st.cabinet)
    n = max(1, round(w / 0.45))
    for k in range(n):
        cx = -w / 2 + (k + 0.5) * w / n
        box(
            body,
            None,
            (cx, d + 0.002, h / 2 - 0.02),
            (w / n / 2 - 0.004, 0.002, h / 2 - 0.07),
            st.cabinet,
            VISUAL,
        )
        box(
            body,
            None,
            (cx + (w / n / 2 - 0.05) * (1 if k % 2 else -1), d + 0.03, h - 0.2),
            (0.012, 0.012, 0.08),
            st.accent,
            VISUAL,
        )
    box(body, None, (0, d - 0.02, 0.04), (w / 2, 0.02, 0.04), BLACK, VISUAL)
    return body


def counter_top(
    world: mujoco.MjsBody, name: str, pos: Vec, yaw: float, st: Style, width: float
) -> None:
    body = world.add_body(name=f"{name}_top", pos=r4(pos), quat=yaw_quat(yaw))
    box(body, f"{name}_top_g", (0, 0.31, 0.88), (width / 2, 0.31, 0.02), st.counter)


def wall_backsplash(
    world: mujoco.MjsBody, name: str, pos: Vec, yaw: float, width: float, rgba: Vec
) -> None:
    body = world.add_body(name=name, pos=r4(pos), quat=yaw_quat(yaw))
    box(body, None, (0, 0.005, 1.15), (width / 2, 0.005, 0.25), rgba, VISUAL)
