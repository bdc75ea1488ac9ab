"""Static receptacles (tables, sofa, bed, shelves, counters): bodies ``<name>_main`` with a top
site ``<name>_top`` marking the surface objects can be placed on. Local frame as for fixtures:
back against the wall at y=0, front toward +y, width along x centred on 0."""

from __future__ import annotations

from dataclasses import dataclass

import mujoco

from recallbench.world.finishes import MAT_COVER, MAT_CUSHION, MAT_PILLOW, MAT_SOFA, MAT_WOOD
from recallbench.world.mjcf import (
    CAPSULE,
    CYL,
    ELLIPSOID,
    STATIC,
    VISUAL,
    Vec,
    box,
    geom,
    r4,
    yaw_quat,
)
from recallbench.world.styles import Style

# type -> (width, depth, height, against_wall)
SIZES: dict[str, tuple[float, float, float, bool]] = {
    "sofa": (2.0, 0.9, 0.85, True),
    "coffee_table": (1.1, 0.6, 0.45, False),
    "shelf": (1.0, 0.36, 1.6, True),
    "tv_stand": (1.5, 0.45, 0.5, True),
    "bed": (1.6, 2.1, 0.55, True),
    "nightstand": (0.5, 0.42, 0.58, True),
    "dresser": (1.2, 0.5, 0.9, True),
    "dining_table": (1.6, 0.9, 0.76, False),
    "sideboard": (1.6, 0.45, 0.85, True),
    "vanity": (1.0, 0.52, 0.85, True),
    "kitchen_table": (1.2, 0.8, 0.76, False),
    "chest_of_drawers": (0.8, 0.45, 0.95, True),
    "cabinet": (0.6, 0.45, 0.9, True),
}

# Each room's pieces, placed in this order where they fit (furnish.py). Rooms are furnished as
# homes are, walls lined with cabinets and chests: a robot walking along bare walls saw no
# object, receptacle or fixture in 13% of its walking frames (issue 38).
ROOM_FURNITURE: dict[str, tuple[str, ...]] = {
    "living_room": ("sofa", "coffee_table", "shelf", "tv_stand", "cabinet", "chest_of_drawers"),
    "bedroom": ("bed", "nightstand", "dresser", "shelf", "chest_of_drawers", "cabinet"),
    "dining_room": ("dining_table", "sideboard", "shelf", "cabinet", "chest_of_drawers"),
    "bathroom": ("vanity", "shelf", "cabinet", "chest_of_drawers"),
    "kitchen": ("kitchen_table", "cabinet", "cabinet"),
}
# The kitchen world (kind "kitchen", SceneMem's) keeps RoboCasa's layout: the run and a table.
KITCHEN_ALONE = ("kitchen_table",)


@dataclass
class ReceptacleInfo:
    name: str
    type: str
    room: str
    body_name: str
    top_site: str
    top_local: tuple[float, float, float]  # surface centre in the body frame
    top_half: tuple[float, float]

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "type": self.type,
            "room": self.room,
            "body_name": self.body_name,
            "top_site": self.top_site,
            "top_half_extents": r4(self.top_half),
        }


def _legs(
    body: mujoco.MjsBody,
    w: float,
    d: float,
    h: float,
    rgba: Vec,
    inset: float = 0.05,
    r: float = 0.025,
    y0: float = 0.0,
    material: str | None = None,
) -> None:
    for sx in (-1, 1):
        for sy in (0, 1):
            geom(
                body,
                None,
                CYL,
                (r, (h - 0.04) / 2),
                (sx * (w / 2 - inset), y0 + inset + sy * (d - 2 * inset), (h - 0.04) / 2),
                rgba,
                material=material,
            )


HIDDEN_GROUP = 3  # colliders a dressed piece shows through its visual parts (not rendered)
ALONG_X = (0.7071, 0.0, 0.7071, 0.0)  # turns a capsule's axis (local z) onto x
ALONG_Y = (0.7071, -0.7071, 0.0, 0.0)  # ... onto y


def _sofa(body: mujoco.MjsBody, name: str, w: float, d: float, st: Style
          ) -> tuple[tuple[float, float, float], tuple[float, float]]:
    """A sofa: base, back and arms in its fabric; the seat surface (objects rest on it) is a
    hidden collider under three seat cushions with rolled fronts and three back cushions, all
    visual and inside the footprint. Returns the top surface (centre, half extents)."""
    fabric, cushion = st.fabric, _lighter(st.fabric, 0.15)
    box(body, f"{name}_base", (0, d / 2, 0.2), (w / 2, d / 2, 0.2), fabric, material=MAT_SOFA)
    seat = box(body, f"{name}_seat", (0, d / 2 + 0.1, 0.45), (w / 2 - 0.2, d / 2 - 0.1, 0.05),
               fabric)
    seat.group = HIDDEN_GROUP
    box(body, f"{name}_back", (0, 0.1, 0.6), (w / 2, 0.1, 0.25), fabric, material=MAT_SOFA)
    for sx in (-1, 1):
        box(body, None, (sx * (w / 2 - 0.1), d / 2, 0.55), (0.1, d / 2, 0.15), fabric,
            material=MAT_SOFA)
        geom(body, None, CAPSULE, (0.1, d / 2 - 0.1), (sx * (w / 2 - 0.1), d / 2, 0.7), fabric,
             VISUAL, quat=ALONG_Y, material=MAT_SOFA)
    inner = w / 2 - 0.2  # the seat spans [-inner, inner]
    cw = 2 * inner / 3
    for k in range(3):
        cx = -inner + cw * (k + 0.5)
        hx = cw / 2 - 0.006
        box(body, None, (cx, 0.525, 0.45), (hx, 0.325, 0.05), cushion, VISUAL, material=MAT_CUSHION)
        geom(body, None, CAPSULE, (0.05, hx - 0.05), (cx, d - 0.05, 0.45), cushion, VISUAL,
             quat=ALONG_X, material=MAT_CUSHION)
        box(body, None, (cx, 0.25, 0.64), (hx, 0.05, 0.14), cushion, VISUAL, material=MAT_CUSHION)
        geom(body, None, CAPSULE, (0.05, hx - 0.05), (cx, 0.25, 0.78), cushion, VISUAL,
             quat=ALONG_X, material=MAT_CUSHION)
    return (0.0, d / 2 + 0.1, 0.5), (w / 2 - 0.35, d / 2 - 0.2)


def _bed(body: mujoco.MjsBody, name: str, w: float, d: float, st: Style
         ) -> tuple[tuple[float, float, float], tuple[float, float]]:
    """A bed: wooden frame and headboard, a mattress, a patterned cover (the surface objects
    rest on) draping over the sides and foot, a turned-down sheet and two pillows. Returns the
    top surface (centre, half extents)."""
    box(body, f"{name}_frame", (0, d / 2, 0.17), (w / 2, d / 2, 0.15), st.wood, material=MAT_WOOD)
    box(body, f"{name}_mattress", (0, d / 2, 0.42), (w / 2 - 0.03, d / 2 - 0.03, 0.1),
        (0.95, 0.95, 0.93, 1), material=MAT_PILLOW)
    cy, chy = d / 2 + 0.3, d / 2 - 0.3  # the cover's centre and half length (to the foot)
    box(body, f"{name}_cover", (0, cy, 0.53), (w / 2 - 0.02, chy, 0.012), st.fabric,
        material=MAT_COVER)
    for sx in (-1, 1):  # drapes, just outside the mattress and inside the frame
        box(body, None, (sx * (w / 2 - 0.014), cy, 0.43), (0.008, chy, 0.11), st.fabric,
            VISUAL, material=MAT_COVER)
    box(body, None, (0, d - 0.022, 0.43), (w / 2 - 0.006, 0.008, 0.11), st.fabric, VISUAL,
        material=MAT_COVER)
    box(body, None, (0, 0.68, 0.535), (w / 2 - 0.015, 0.08, 0.01), (0.97, 0.97, 0.95, 1),
        VISUAL, material=MAT_PILLOW)  # the sheet turned down over the cover's head end
    box(body, f"{name}_headboard", (0, 0.04, 0.6), (w / 2, 0.04, 0.6), st.wood, material=MAT_WOOD)
    for px in (-0.4, 0.4):
        geom(body, None, ELLIPSOID, (0.27, 0.16, 0.07), (px, 0.3, 0.575), (0.98, 0.98, 0.98, 1),
             material=MAT_PILLOW)
    return (0.0, d / 2 + 0.3, 0.545), (w / 2 - 0.2, d / 2 - 0.5)


def _lighter(c: Vec, amount: float) -> tuple[float, ...]:
    """``c`` mixed toward white by ``amount``."""
    return (*(v + (1.0 - v) * amount for v in c[:3]), c[3])


def build(
    world: mujoco.MjsBody, kind: str, name: str, room: str, pos: Vec, yaw: float, st: Style
) -> ReceptacleInfo:
    w, d, h, _ = SIZES[kind]
    body = world.add_body(name=f"{name}_main", pos=r4(pos), quat=yaw_quat(yaw))
    wood = st.wood
    top = (0.0, d / 2, h)
    half = (w / 2 - 0.08, d / 2 - 0.08)
    if kind in ("coffee_table", "dining_table", "kitchen_table"):
        _table(body, name, kind, w, d, h, wood)
    elif kind == "sofa":
        top, half = _sofa(body, name, w, d, st)
    elif kind == "bed":
        top, half = _bed(body, name, w, d, st)
    elif kind == "shelf":
        top, half = _shelf(body, w, d, h, wood)
    elif kind == "tv_stand":
        top, half = _tv_stand(body, name, w, d, h, wood)
    else:  # nightstand, dresser, sideboard, vanity, chest of drawers, cabinet: closed, a top
        top = _cabinet(body, name, kind, w, d, h, st)
    site = body.add_site(
        name=f"{name}_top",
        pos=r4((top[0], top[1], top[2] + 0.05)),
        size=r4((half[0], half[1], 0.05)),
        type=mujoco.mjtGeom.mjGEOM_BOX,
        rgba=[0, 0, 1, 0.2],
        group=4,
    )
    return ReceptacleInfo(name, kind, room, body.name, site.name, top, half)


def _table(body: mujoco.MjsBody, name: str, kind: str, w: float, d: float, h: float,
           wood: Vec) -> None:
    """A table: top and four legs; a dining table also gets its chairs (seat, back, post)."""
    box(body, f"{name}_top_g", (0, d / 2, h - 0.02), (w / 2, d / 2, 0.02), wood,
        material=MAT_WOOD)
    _legs(body, w, d, h, wood, material=MAT_WOOD)
    if kind == "dining_table":
        for sx in (-0.45, 0.45):
            for sy, back in ((-0.35, -1), (d + 0.35, 1)):
                c = (sx, sy, 0)
                box(body, None, (c[0], c[1], 0.45), (0.2, 0.2, 0.025), wood, material=MAT_WOOD)
                box(body, None, (c[0], c[1] + back * 0.18, 0.7), (0.2, 0.02, 0.25), wood,
                    material=MAT_WOOD)
                geom(body, None, CYL, (0.02, 0.21), (c[0], c[1], 0.21), wood)


def _shelf(body: mujoco.MjsBody, w: float, d: float, h: float, wood: Vec
           ) -> tuple[tuple[float, float, float], tuple[float, float]]:
    """An open shelf: sides, back and five boards. Returns the surface objects go on (the
    third board: centre, half extents)."""
    for sx in (-1, 1):
        box(body, None, (sx * (w / 2 - 0.015), d / 2, h / 2), (0.015, d / 2, h / 2), wood,
            material=MAT_WOOD)
    box(body, None, (0, 0.01, h / 2), (w / 2, 0.01, h / 2), wood, material=MAT_WOOD)
    for z in (0.05, 0.45, 0.85, 1.25, h - 0.015):
        box(body, None, (0, d / 2, z), (w / 2, d / 2, 0.015), wood, material=MAT_WOOD)
    return (0.0, d / 2, 0.865), (w / 2 - 0.08, d / 2 - 0.07)


def _tv_stand(body: mujoco.MjsBody, name: str, w: float, d: float, h: float, wood: Vec
              ) -> tuple[tuple[float, float, float], tuple[float, float]]:
    """A TV stand with the TV on its foot at the back. Returns the top surface in front of
    the TV (centre, half extents)."""
    box(body, f"{name}_body", (0, d / 2, h / 2), (w / 2, d / 2, h / 2), wood, material=MAT_WOOD)
    box(body, f"{name}_tv", (0, 0.1, h + 0.4), (0.6, 0.025, 0.35), (0.03, 0.03, 0.03, 1))
    box(body, None, (0, 0.1, h + 0.03), (0.1, 0.06, 0.03), (0.1, 0.1, 0.1, 1))
    return (0.0, d / 2 + 0.08, h), (w / 2 - 0.1, d / 2 - 0.14)


def _cabinet(body: mujoco.MjsBody, name: str, kind: str, w: float, d: float, h: float,
             st: Style) -> tuple[float, float, float]:
    """A closed piece: body, fronts and handles. Drawers in rows (a chest of drawers has four,
    narrower than a dresser's three), except a cabinet's two doors with upright handles; a
    vanity also gets a counter top and a mirror. Returns the top surface's centre."""
    color = st.cabinet if kind == "vanity" else st.wood
    cab_mat = None if kind == "vanity" else MAT_WOOD
    box(body, f"{name}_body", (0, d / 2, h / 2), (w / 2, d / 2, h / 2), color, material=cab_mat)
    if kind == "cabinet":
        for sx in (-1, 1):
            box(body, None, (sx * w / 4, d + 0.002, h / 2), (w / 4 - 0.015, 0.002, h / 2 - 0.02),
                color, material=cab_mat)
            box(body, None, (sx * 0.04, d + 0.02, h * 0.6), (0.01, 0.012, 0.07), st.accent)
        return (0.0, d / 2, h)
    rows = {"nightstand": 2, "vanity": 2, "chest_of_drawers": 4}.get(kind, 3)
    for k in range(rows):
        z = h * (k + 0.5) / rows
        box(body, None, (0, d + 0.002, z), (w / 2 - 0.02, 0.002, h / rows / 2 - 0.015), color,
            material=cab_mat)
        box(body, None, (0, d + 0.02, z), (0.06, 0.012, 0.01), st.accent)
    if kind == "vanity":
        box(body, None, (0, d / 2, h + 0.015), (w / 2, d / 2, 0.015), st.counter)
        box(
            body, None, (0, 0.01, h + 0.5), (w / 2 - 0.1, 0.01, 0.3), (0.75, 0.85, 0.9, 1)
        )  # mirror
        return (0.0, d / 2, h + 0.03)
    return (0.0, d / 2, h)


__all__ = ["SIZES", "ROOM_FURNITURE", "KITCHEN_ALONE", "ReceptacleInfo", "build", "STATIC"]
