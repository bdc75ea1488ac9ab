"""Parts every articulated fixture is built from: the root body, the open-front carcass, the
interior site objects go into, and a hinged door with its handle; what the metadata records about
a fixture (``FixtureInfo``).

Builders work in the fixture's local frame: x across the front (width centred on 0), y from the
wall (0) out to the front face, z up from the unit's base. Doors open to positive joint angles, are
damped and gravity-compensated so they stay where the gripper leaves them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mujoco

from recallbench.world.mjcf import DOOR, VISUAL, Vec, box, r4, yaw_quat

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


def root(parent: mujoco.MjsBody, name: str, pos: Vec, yaw: float) -> mujoco.MjsBody:
    """The fixture's root body ``<name>_main`` at its world pose."""
    return parent.add_body(name=f"{name}_main", pos=r4(pos), quat=yaw_quat(yaw))


def carcass(
    body: mujoco.MjsBody, prefix: str, w: float, d: float, h: float, rgba: Vec, z0: float = 0.0
) -> None:
    """Open-front box: back, sides, bottom, top."""
    hw, hd, hh = w / 2, d / 2, h / 2
    box(body, f"{prefix}_back", (0, T / 2, z0 + hh), (hw, T / 2, hh), rgba)
    box(body, f"{prefix}_left", (-hw + T / 2, hd, z0 + hh), (T / 2, hd, hh), rgba)
    box(body, f"{prefix}_right", (hw - T / 2, hd, z0 + hh), (T / 2, hd, hh), rgba)
    box(body, f"{prefix}_bottom", (0, hd, z0 + T / 2), (hw, hd, T / 2), rgba)
    box(body, f"{prefix}_top", (0, hd, z0 + h - T / 2), (hw, hd, T / 2), rgba)


def interior(body: mujoco.MjsBody, info: FixtureInfo, center: Vec, half: Vec) -> None:
    """The box site objects are put into, recorded in ``info``."""
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


def _door_frame(
    hinge: str, x0: float, x1: float, z0: float, z1: float, y: float
) -> tuple[Vec, Vec, Vec, Vec, Vec]:
    """Where a door on ``hinge`` turns: hinge position and axis, then the panel centre, handle
    position and handle half extents in the door's frame."""
    w, h = x1 - x0, z1 - z0
    pos: Vec
    axis: Vec
    panel: Vec
    hpos: Vec
    hhalf: Vec
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
    return pos, axis, panel, hpos, hhalf


def hinged_door(
    parent: mujoco.MjsBody,
    info: FixtureInfo,
    door: str,
    hinge: str,
    x0: float,
    x1: float,
    z0: float,
    z1: float,
    y: float,
    rgba: Vec,
    handle_rgba: Vec,
    rng: tuple[float, float] = HINGE_RANGE,
    window: bool = False,
) -> mujoco.MjsBody:
    """A door panel on the plane y (front), spanning [x0,x1] x [z0,z1], hinged on one edge."""
    w, h = x1 - x0, z1 - z0
    jname = f"{info.name}_{door}_joint"
    pos, axis, panel, hpos, hhalf = _door_frame(hinge, x0, x1, z0, z1, y)
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
    handle = _door_handle(body, f"{info.name}_{door}", hpos, hhalf, hinge, handle_rgba)
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


def _door_handle(
    body: mujoco.MjsBody, prefix: str, hpos: Vec, hhalf: Vec, hinge: str, handle_rgba: Vec
) -> mujoco.MjsBody:
    """The handle bar ``<prefix>_handle`` with two standoffs, on a door body."""
    # gravcomp: an opened door must stay where it is left, not sag under its handle's weight
    handle = body.add_body(name=f"{prefix}_handle", pos=r4(hpos), gravcomp=1.0)
    box(handle, f"{prefix}_handle_g", (0, 0, 0), hhalf, handle_rgba, VISUAL, mass=0.1)
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
    return handle
