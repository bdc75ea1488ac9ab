"""Surfaces objects can be put on (fixture interiors, receptacle tops) and putting the home's
objects on them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import mujoco
import numpy as np

from recallbench.world.mjcf import rotate_xy
from recallbench.world.objects import CATEGORIES, ROOM_CATEGORIES, add_object


@dataclass
class Slot:
    """A surface objects can be put on: world pose of its centre and local half extents."""

    kind: str  # "fixture" | "receptacle"
    name: str
    room: str
    center: tuple[float, float, float]  # world, z = surface height
    yaw: float
    half: tuple[float, float]
    max_half_height: float


def local_to_world(
    origin: Sequence[float], yaw: float, local: Sequence[float]
) -> tuple[float, float, float]:
    """A point given in a frame at ``origin`` turned by ``yaw``, in world coordinates."""
    dx, dy = rotate_xy(local[0], local[1], yaw)
    return (origin[0] + dx, origin[1] + dy, origin[2] + (local[2] if len(local) > 2 else 0.0))


def place_objects(
    spec: mujoco.MjSpec, rng: np.random.Generator, slots: list[Slot], n_objects: int
) -> list[dict]:
    """Put ``n_objects`` objects on the slots (about half in fixtures), each of a category that
    fits the slot and its room; returns their metadata entries."""
    fixture_slots = [s for s in slots if s.kind == "fixture"]
    rec_slots = [s for s in slots if s.kind == "receptacle"]
    n_fix = min(len(fixture_slots), max(1, n_objects // 2))
    chosen = [fixture_slots[i] for i in rng.permutation(len(fixture_slots))[:n_fix]]
    while len(chosen) < n_objects and rec_slots:
        chosen.append(rec_slots[int(rng.integers(0, len(rec_slots)))])
    occupied: dict[str, list[tuple[float, float, float]]] = {}
    per_cat: dict[str, int] = {}
    objects = []
    for slot in chosen:
        room_type = slot.room.rstrip("_0123456789") if slot.room != "kitchen" else "kitchen"
        cats = [
            c
            for c in ROOM_CATEGORIES.get(room_type, ROOM_CATEGORIES["kitchen"])
            if CATEGORIES[c].half_height <= slot.max_half_height
            and CATEGORIES[c].radius <= min(slot.half) + 0.03
        ]
        if not cats:
            continue
        fresh = [c for c in cats if c not in per_cat]  # prefer variety
        cat = CATEGORIES[str(rng.choice(fresh or cats))]
        for _ in range(20):
            lx = rng.uniform(-1, 1) * max(0.0, slot.half[0] - cat.radius * 0.5)
            ly = rng.uniform(-1, 1) * max(0.0, slot.half[1] - cat.radius * 0.5)
            if all(
                math.hypot(lx - ox, ly - oy) > cat.radius + orad + 0.02
                for ox, oy, orad in occupied.get(slot.name, [])
            ):
                break
        else:
            continue
        occupied.setdefault(slot.name, []).append((lx, ly, cat.radius))
        per_cat[cat.name] = per_cat.get(cat.name, 0) + 1
        name = f"obj_{cat.name}_{per_cat[cat.name]}"
        pos = local_to_world(slot.center, slot.yaw, (lx, ly, cat.half_height + 0.003))
        entry = add_object(spec, name, cat.name, pos, float(rng.uniform(-math.pi, math.pi)), rng)
        entry["initial_location"] = {"kind": slot.kind, "name": slot.name, "room": slot.room}
        objects.append(entry)
    return objects
