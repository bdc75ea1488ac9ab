"""Furniture placement: each room's receptacles (tables, shelves, ...) against a wall or in the
middle, clear of doorways and each other, with a lane in front the robot can use."""

from __future__ import annotations

import math
from collections.abc import Sequence

import mujoco
import numpy as np

from recallbench.world import furniture as fu
from recallbench.world.kitchen import Placed
from recallbench.world.layout import WALL_THICKNESS, Layout, Room
from recallbench.world.mjcf import rotate_xy
from recallbench.world.slots import Slot, local_to_world
from recallbench.world.styles import Style

Box = tuple[float, float, float, float]  # world xy (x0, y0, x1, y1)


def _footprint(kind: str, pos: Sequence[float], yaw: float) -> tuple[float, float, float, float]:
    """World xy box (x0, y0, x1, y1) a piece of furniture covers (a dining table with its
    chairs' room)."""
    w, d, _, _ = fu.SIZES[kind]
    extra = 0.6 if kind == "dining_table" else 0.0
    corners = [rotate_xy(x, y, yaw) for x in (-w / 2, w / 2) for y in (-extra, d + extra)]
    xs = [pos[0] + c[0] for c in corners]
    ys = [pos[1] + c[1] for c in corners]
    return min(xs), min(ys), max(xs), max(ys)


def _overlaps(a: Box, b: Box, margin: float = 0.0) -> bool:
    return not (
        a[2] + margin <= b[0]
        or b[2] + margin <= a[0]
        or a[3] + margin <= b[1]
        or b[3] + margin <= a[1]
    )


def _doorway_zones(layout: Layout) -> list[Box]:
    """Boxes around the doorways that furniture must leave free."""
    zones = []
    for d in layout.doorways:
        cx, cy = d.center
        hw = d.width / 2 + 0.3
        if d.wall_axis == "x":
            zones.append((cx - hw, cy - 1.1, cx + hw, cy + 1.1))
        else:
            zones.append((cx - 1.1, cy - hw, cx + 1.1, cy + hw))
    return zones


def furnish(
    spec: mujoco.MjSpec,
    rng: np.random.Generator,
    layout: Layout,
    st: Style,
    slots: list[Slot],
    recs: list[Placed],
    kitchen_block: Box | None,
    *,
    home: bool = True,
) -> None:
    """Place each room's furniture (receptacles) clear of doorways, the kitchen run and each
    other, with a lane in front; appends them and their top surfaces to ``recs`` and ``slots``.
    A kitchen on its own (``home`` False: SceneMem's kitchen world) keeps only its table."""
    zones = _doorway_zones(layout)
    for room in layout.rooms:
        placed = [kitchen_block] if room.type == "kitchen" and kitchen_block else []
        kinds = fu.ROOM_FURNITURE.get(room.type, ()) if home else fu.KITCHEN_ALONE
        _furnish_room(spec.worldbody, rng, room, st, kinds, zones, placed, slots, recs)


def _furnish_room(world: mujoco.MjsBody, rng: np.random.Generator, room: Room, st: Style,
                  kinds: tuple[str, ...], zones: list[Box], placed: list[Box],
                  slots: list[Slot], recs: list[Placed]) -> None:
    """Each of ``kinds`` at the first of 60 drawn poses that fits inside the room, off the
    doorways, with its lane clear of what is already ``placed``; none if none fits."""
    counts: dict[str, int] = {}  # per room: a second piece of a kind is named ..._2
    for kind in kinds:
        for _ in range(60):
            pos, yaw = _draw_pose(rng, room, kind)
            fp = _footprint(kind, pos, yaw)
            x0, y0, x1, y1 = room.bounds
            if fp[0] < x0 or fp[1] < y0 or fp[2] > x1 or fp[3] > y1:
                continue
            lane = _with_lane(fp, yaw)
            if any(_overlaps(fp, z) for z in zones):
                continue
            if any(_overlaps(lane, p, 0.05) for p in placed):
                continue
            placed.append(lane)
            counts[kind] = counts.get(kind, 0) + 1
            name = kind if kind.startswith(room.type) else f"{room.name}_{kind}"
            if counts[kind] > 1:
                name = f"{name}_{counts[kind]}"
            _build_piece(world, kind, name, room.name, pos, yaw, st, slots, recs)
            break


def _draw_pose(rng: np.random.Generator, room: Room,
               kind: str) -> tuple[tuple[float, float], float]:
    """One candidate (xy, yaw): against a random wall, facing in, or near the room's middle."""
    w, d, _, wall = fu.SIZES[kind]
    x0, y0, x1, y1 = room.bounds
    inner = WALL_THICKNESS / 2 + 0.02
    if wall:
        side = int(rng.integers(0, 4))
        yaw = (0.0, math.pi / 2, math.pi, -math.pi / 2)[side]
        if side == 0:  # against the south wall, facing north
            pos = (rng.uniform(x0 + inner + w / 2, x1 - inner - w / 2), y0 + inner)
        elif side == 1:  # against the east wall, facing west
            pos = (x1 - inner, rng.uniform(y0 + inner + w / 2, y1 - inner - w / 2))
        elif side == 2:
            pos = (rng.uniform(x0 + inner + w / 2, x1 - inner - w / 2), y1 - inner)
        else:
            pos = (x0 + inner, rng.uniform(y0 + inner + w / 2, y1 - inner - w / 2))
    else:
        cx, cy = room.center
        yaw = float(rng.choice([0.0, math.pi / 2]))
        dx, dy = rotate_xy(0, d / 2, yaw)
        pos = (cx + rng.uniform(-0.6, 0.6) - dx, cy + rng.uniform(-0.5, 0.5) - dy)
    return (round(float(pos[0]), 4), round(float(pos[1]), 4)), yaw


def _with_lane(fp: Box, yaw: float) -> Box:
    """The footprint grown by a 0.7 m lane in front, so the robot can reach the piece."""
    fdx, fdy = rotate_xy(0, 0.7, yaw)
    return (
        min(fp[0], fp[0] + fdx),
        min(fp[1], fp[1] + fdy),
        max(fp[2], fp[2] + fdx),
        max(fp[3], fp[3] + fdy),
    )


def _build_piece(world: mujoco.MjsBody, kind: str, name: str, room: str,
                 pos: tuple[float, float], yaw: float, st: Style, slots: list[Slot],
                 recs: list[Placed]) -> None:
    """Add the piece to the world; record it and its top surface as a receptacle slot."""
    rec = fu.build(world, kind, name, room, (pos[0], pos[1], 0.0), yaw, st)
    recs.append((rec, (pos[0], pos[1], 0.0), yaw))
    c = local_to_world((pos[0], pos[1], 0.0), yaw, rec.top_local)
    slots.append(
        Slot("receptacle", name, room, c, yaw, rec.top_half, 0.25 if kind != "shelf" else 0.18)
    )
