"""Articulated kitchen fixtures (RoboCasa naming: root ``<name>_main``, joints ``<name>_<joint>``).

Each builder works in the fixture's local frame: x across the front (width centred on 0), y from
the wall (0) out to the front face, z up from the unit's base. Doors open to positive joint
angles, are damped and gravity-compensated so they stay where the gripper leaves them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco

from recallbench.world.mjcf import (
    CAPSULE,
    CYL,
    DOOR,
    VISUAL,
    box,
    geom,
    r4,
    yaw_quat,
)
from recallbench.world.styles import Style

T = 0.02  # panel thickness
DOOR_DAMPING = 3.0
DOOR_FRICTION = 0.3
HINGE_RANGE = (0.0, 1.57)
OVEN_RANGE = (0.0, 1.15)
DRAWER_RANGE = (0.0, 0.4)
SINK_HANDLE_RANGE = (-1.57, 1.57)
GLASS = (0.08, 0.09, 0.1, 1.0)
BLACK = (0.05, 0.05, 0.05, 1.0)


@dataclass
class FixtureInfo:
    """What the metadata JSON records about one fixture (see docs/world.md)."""

    name: str
    type: str
    room: str
    body_name: str
    joint_names: list[str] = field(default_factory=list)
    doors: list[dict] = field(default_factory=list)
    interior_site: str = ""
    interior_half_extents: list[float] = field(default_factory=list)
    interior_local: tuple = (0.0, 0.0, 0.0)  # surface centre in the root frame (for placement)
    approach_local: tuple = (0.0, 0.0)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "type": self.type,
            "room": self.room,
            "body_name": self.body_name,
            "joint_names": list(self.joint_names),
            "doors": self.doors,
            "interior_site": self.interior_site,
            "interior_half_extents": self.interior_half_extents,
        }


def _root(parent: mujoco.MjsBody, name: str, pos, yaw: float) -> mujoco.MjsBody:
    return parent.add_body(name=f"{name}_main", pos=r4(pos), quat=yaw_quat(yaw))


def _carcass(
    body: mujoco.MjsBody, prefix: str, w: float, d: float, h: float, rgba, z0: float = 0.0
) -> None:
    """Open-front box: back, sides, bottom, top."""
    hw, hd, hh = w / 2, d / 2, h / 2
    box(body, f"{prefix}_back", (0, T / 2, z0 + hh), (hw, T / 2, hh), rgba)
    box(body, f"{prefix}_left", (-hw + T / 2, hd, z0 + hh), (T / 2, hd, hh), rgba)
    box(body, f"{prefix}_right", (hw - T / 2, hd, z0 + hh), (T / 2, hd, hh), rgba)
    box(body, f"{prefix}_bottom", (0, hd, z0 + T / 2), (hw, hd, T / 2), rgba)
    box(body, f"{prefix}_top", (0, hd, z0 + h - T / 2), (hw, hd, T / 2), rgba)


def _interior(body: mujoco.MjsBody, info: FixtureInfo, center, half) -> None:
    s = body.add_site(
        name=f"{info.name}_interior",
        pos=r4(center),
        size=r4(half),
        type=mujoco.mjtGeom.mjGEOM_BOX,
        rgba=[0, 1, 0, 0.2],
        group=4,
    )
    info.interior_site = s.name
    info.interior_half_extents = r4(half)
    info.interior_local = (center[0], center[1], center[2] - half[2])


def _door(
    parent: mujoco.MjsBody,
    info: FixtureInfo,
    door: str,
    hinge: str,
    x0: float,
    x1: float,
    z0: float,
    z1: float,
    y: float,
    rgba,
    handle_rgba,
    rng=HINGE_RANGE,
    window: bool = False,
) -> mujoco.MjsBody:
    """A door panel on the plane y (front), spanning [x0,x1] x [z0,z1], hinged on one edge."""
    w, h = x1 - x0, z1 - z0
    jname = f"{info.name}_{door}_joint"
    if hinge == "left":
        pos, axis = (x0, y, (z0 + z1) / 2), (0, 0, 1)
        panel, hpos, hhalf = (
            (w / 2, T / 2, 0),
            (w - 0.06, T + 0.035, 0),
            (0.012, 0.012, min(0.15, h / 3)),
        )
    elif hinge == "right":
        pos, axis = (x1, y, (z0 + z1) / 2), (0, 0, -1)
        panel, hpos, hhalf = (
            (-w / 2, T / 2, 0),
            (-w + 0.06, T + 0.035, 0),
            (0.012, 0.012, min(0.15, h / 3)),
        )
    else:  # bottom hinge: drops down toward the viewer
        pos, axis = ((x0 + x1) / 2, y, z0), (-1, 0, 0)
        panel, hpos, hhalf = (
            (0, T / 2, h / 2),
            (0, T + 0.035, h - 0.05),
            (min(0.2, w / 3), 0.012, 0.012),
        )
    body = parent.add_body(name=f"{info.name}_{door}", pos=r4(pos), gravcomp=1.0)
    body.add_joint(
        name=jname,
        type=mujoco.mjtJoint.mjJNT_HINGE,
        axis=list(axis),
        range=list(rng),
        damping=DOOR_DAMPING,
        frictionloss=DOOR_FRICTION,
        armature=0.01,
        limited=1,
    )
    box(body, f"{info.name}_{door}_panel", panel, (w / 2, T / 2, h / 2), rgba, DOOR, mass=1.5)
    if window:
        wx = (panel[0], T + 0.001, panel[2])
        box(body, None, wx, (w / 2 * 0.7, 0.001, h / 2 * 0.65), GLASS, VISUAL)
    # gravcomp: an opened door must stay where it is left, not sag under its handle's weight
    handle = body.add_body(name=f"{info.name}_{door}_handle", pos=r4(hpos), gravcomp=1.0)
    box(handle, f"{info.name}_{door}_handle_g", (0, 0, 0), hhalf, handle_rgba, VISUAL, mass=0.1)
    # standoffs so the bar reads as a handle
    off = (0, -0.02, hhalf[2] * 0.8) if hinge != "bottom" else (hhalf[0] * 0.8, -0.02, 0)
    for sgn in (1, -1):
        box(
            handle,
            None,
            (off[0] * sgn, off[1], off[2] * sgn),
            (0.008, 0.02, 0.008),
            handle_rgba,
            VISUAL,
            mass=0.01,
        )
    info.joint_names.append(jname)
    info.doors.append(
        {
            "name": door,
            "joint": jname,
            "kind": "hinge",
            "hinge": hinge,  # left / right (vertical axis) or bottom (drops down)
            "size": r4((w, h)),
            "range": list(rng),
            "body": body.name,
            "handle_body": handle.name,
            "handle_geom": f"{info.name}_{door}_handle_g",
        }
    )
    return body


def microwave(world, name: str, room: str, pos, yaw: float, st: Style) -> FixtureInfo:
    info = FixtureInfo(name, "microwave", room, f"{name}_main")
    w, d, h = 0.52, 0.38, 0.3
    body = _root(world, name, pos, yaw)
    dark = (0.18, 0.18, 0.19, 1.0)
    _carcass(body, name, w, d, h, dark)
    box(
        body,
        f"{name}_panel",
        (w / 2 - 0.06, d + T / 2, h / 2),
        (0.06, T / 2, h / 2),
        (0.12, 0.12, 0.13, 1),
    )
    for k in range(3):  # buttons
        box(
            body,
            None,
            (w / 2 - 0.06, d + T + 0.002, h * 0.75 - 0.05 * k),
            (0.03, 0.002, 0.012),
            (0.5, 0.55, 0.6, 1),
            VISUAL,
        )
    box(body, f"{name}_tray", (-0.06, d / 2, T + 0.005), (0.18, 0.15, 0.005), (0.7, 0.7, 0.7, 1))
    _door(
        body,
        info,
        "door",
        "left",
        -w / 2,
        w / 2 - 0.12,
        0.01,
        h - 0.01,
        d,
        dark,
        st.accent,
        window=True,
    )
    _interior(body, info, (-0.06, d / 2 + 0.01, T + 0.07), (0.17, 0.13, 0.06))
    return info


def toaster_oven(world, name: str, room: str, pos, yaw: float, st: Style) -> FixtureInfo:
    info = FixtureInfo(name, "toaster_oven", room, f"{name}_main")
    w, d, h = 0.42, 0.32, 0.24
    body = _root(world, name, pos, yaw)
    shell = (0.75, 0.75, 0.77, 1.0)
    _carcass(body, name, w, d, h, shell)
    box(body, f"{name}_panel", (w / 2 - 0.05, d + T / 2, h / 2), (0.05, T / 2, h / 2), BLACK)
    for k in range(2):
        geom(
            body,
            None,
            CYL,
            (0.018, 0.01),
            (w / 2 - 0.05, d + T + 0.01, h * 0.68 - 0.09 * k),
            (0.8, 0.8, 0.8, 1),
            VISUAL,
            quat=(0.7071, 0.7071, 0, 0),
        )
    for f in (-1, 1):
        box(body, None, (f * (w / 2 - 0.06), d / 2, -0.01), (0.02, 0.02, 0.01), BLACK)
    _door(
        body,
        info,
        "door",
        "bottom",
        -w / 2 + 0.01,
        w / 2 - 0.1,
        0.015,
        h - 0.015,
        d,
        shell,
        BLACK,
        window=True,
    )
    _interior(body, info, (-0.05, d / 2, T + 0.05), (0.13, 0.11, 0.04))
    return info


def oven(world, name: str, room: str, pos, yaw: float, st: Style) -> FixtureInfo:
    info = FixtureInfo(name, "oven", room, f"{name}_main")
    w, d, h = 0.76, 0.6, 0.86
    body = _root(world, name, pos, yaw)
    steel = st.appliance
    _carcass(body, name, w, d, h, steel)
    box(body, f"{name}_cooktop", (0, d / 2 + 0.01, h + 0.02), (w / 2, d / 2 + 0.01, 0.02), BLACK)
    for bx, by in ((-0.18, 0.18), (0.18, 0.18), (-0.18, 0.42), (0.18, 0.42)):
        geom(body, None, CYL, (0.09, 0.003), (bx, by, h + 0.041), (0.25, 0.25, 0.25, 1), VISUAL)
        geom(body, None, CYL, (0.05, 0.004), (bx, by, h + 0.042), (0.12, 0.12, 0.12, 1), VISUAL)
    box(body, f"{name}_controls", (0, d + T / 2, h - 0.06), (w / 2, T / 2, 0.06), steel)
    for k in range(5):
        geom(
            body,
            None,
            CYL,
            (0.02, 0.012),
            (-0.28 + 0.14 * k, d + T + 0.012, h - 0.06),
            BLACK,
            VISUAL,
            quat=(0.7071, 0.7071, 0, 0),
        )
    box(
        body,
        f"{name}_rack",
        (0, d / 2, 0.35),
        (w / 2 - T, d / 2 - 0.03, 0.005),
        (0.55, 0.55, 0.55, 1),
    )
    _door(
        body,
        info,
        "door",
        "bottom",
        -w / 2 + 0.01,
        w / 2 - 0.01,
        0.1,
        h - 0.125,
        d,
        steel,
        st.accent,
        rng=OVEN_RANGE,
        window=True,
    )
    box(body, None, (0, d + T / 2, 0.05), (w / 2, T / 2, 0.05), BLACK, VISUAL)
    _interior(body, info, (0, d / 2, 0.36 + 0.08), (0.3, 0.22, 0.08))
    return info


def dishwasher(world, name: str, room: str, pos, yaw: float, st: Style) -> FixtureInfo:
    info = FixtureInfo(name, "dishwasher", room, f"{name}_main")
    w, d, h = 0.6, 0.6, 0.86
    body = _root(world, name, pos, yaw)
    _carcass(body, name, w, d, h, (0.85, 0.86, 0.87, 1))
    box(
        body,
        f"{name}_rack",
        (0, d / 2, 0.2),
        (w / 2 - T, d / 2 - 0.04, 0.005),
        (0.6, 0.62, 0.65, 1),
    )
    box(body, None, (0, d + T / 2, 0.05), (w / 2, T / 2, 0.05), BLACK, VISUAL)
    door = _door(
        body,
        info,
        "door",
        "bottom",
        -w / 2 + 0.005,
        w / 2 - 0.005,
        0.1,
        h - 0.01,
        d,
        st.appliance,
        st.accent,
    )
    box(door, None, (0, T + 0.001, h - 0.16), (w / 2 - 0.02, 0.001, 0.02), BLACK, VISUAL)
    _interior(body, info, (0, d / 2, 0.21 + 0.08), (0.24, 0.22, 0.08))
    return info


def cabinet(
    world,
    name: str,
    room: str,
    pos,
    yaw: float,
    st: Style,
    width: float,
    double: bool,
    height: float = 0.6,
    depth: float = 0.35,
) -> FixtureInfo:
    info = FixtureInfo(name, "cabinet", room, f"{name}_main")
    w, d, h = width, depth, height
    body = _root(world, name, pos, yaw)
    _carcass(body, name, w, d, h, st.cabinet)
    box(body, f"{name}_shelf", (0, d / 2, h / 2), (w / 2 - T, d / 2 - T, 0.008), st.cabinet)
    if double:
        _door(body, info, "left_door", "left", -w / 2, -0.003, 0.0, h, d, st.cabinet, st.accent)
        _door(body, info, "right_door", "right", 0.003, w / 2, 0.0, h, d, st.cabinet, st.accent)
    else:
        _door(body, info, "door", "left", -w / 2, w / 2, 0.0, h, d, st.cabinet, st.accent)
    _interior(body, info, (0, d / 2, T + 0.07), (w / 2 - 0.06, d / 2 - 0.05, 0.06))
    return info


def fridge_tower(world, room: str, pos, yaw: float, st: Style) -> list[FixtureInfo]:
    """Fridge below, freezer above: two fixtures, two roots, separate doors (like RoboCasa)."""
    w, d = 0.8, 0.7
    fridge = FixtureInfo("fridge", "fridge", room, "fridge_main")
    fb = _root(world, "fridge", pos, yaw)
    white = st.appliance
    _carcass(fb, "fridge", w, d, 1.24, white)
    box(fb, "fridge_shelf", (0, d / 2, 0.6), (w / 2 - T, d / 2 - T, 0.008), (0.85, 0.9, 0.95, 1))
    _door(fb, fridge, "door", "left", -w / 2, w / 2, 0.01, 1.23, d, white, st.accent)
    _interior(fb, fridge, (0, d / 2, 0.6 + 0.08), (0.3, 0.25, 0.07))
    freezer = FixtureInfo("freezer", "freezer", room, "freezer_main")
    zb = _root(world, "freezer", (pos[0], pos[1], pos[2] + 1.26), yaw)
    _carcass(zb, "freezer", w, d, 0.56, white)
    _door(zb, freezer, "door", "left", -w / 2, w / 2, 0.01, 0.55, d, white, st.accent)
    _interior(zb, freezer, (0, d / 2, T + 0.08), (0.3, 0.25, 0.07))
    return [fridge, freezer]


def drawer_unit(
    world, name: str, room: str, pos, yaw: float, st: Style, width: float
) -> FixtureInfo:
    """Base cabinet with one drawer on a slide joint, under a counter top."""
    info = FixtureInfo(name, "drawer", room, f"{name}_main")
    w, d, h = width, 0.58, 0.86
    body = _root(world, name, pos, yaw)
    _carcass(body, name, w, d, h, st.cabinet)
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


def sink(world, name: str, room: str, pos, yaw: float, st: Style, width: float) -> FixtureInfo:
    """Counter section with a basin and a lever handle on a hinge (no door, like RoboCasa)."""
    info = FixtureInfo(name, "sink", room, f"{name}_main")
    w, d, h = width, 0.58, 0.86
    body = _root(world, name, pos, yaw)
    _carcass(body, name, w, d, h - 0.2, st.cabinet)
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
    _interior(body, info, (0, cy, h - bz + 0.07), (bw - 0.04, bd - 0.04, 0.06))
    return info


def base_counter(world, name: str, pos, yaw: float, st: Style, width: float) -> mujoco.MjsBody:
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


def counter_top(world, name: str, pos, yaw: float, st: Style, width: float) -> None:
    body = world.add_body(name=f"{name}_top", pos=r4(pos), quat=yaw_quat(yaw))
    box(body, f"{name}_top_g", (0, 0.31, 0.88), (width / 2, 0.31, 0.02), st.counter)


def wall_backsplash(world, name: str, pos, yaw: float, width: float, rgba) -> None:
    body = world.add_body(name=name, pos=r4(pos), quat=yaw_quat(yaw))
    box(body, None, (0, 0.005, 1.15), (width / 2, 0.005, 0.25), rgba, VISUAL)
