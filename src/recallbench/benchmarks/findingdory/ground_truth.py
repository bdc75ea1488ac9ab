"""FindingDory's per-frame x per-entity ground truth, measured in a built-in world.

One implementation for the stored ground truth and the live low-level verdicts: the generator
runs ``annotate_day`` over a day's frames in the end-of-day world (``annotations.npz``), and the
LL phase runs it over the robot's stop poses in the saved episode world (``ll_rollout``).

For every pose and every candidate entity (objects on receptacles, receptacles, rooms) it
measures what FindingDory's goal predicates need (schema: ``annotations.py``): the geodesic
distance from the base pose (to the object snapped to the floor; to the nearest viewpoint of a
receptacle; to a room's floor), the angle between the robot's forward axis and the target, and
the target's coverage of the head camera's instance segmentation, rendered once per distinct
pose with the robot re-posed by teleport. Scoring is then array look-ups.

A moved object is only where the final world shows it from the end of its placement on, so its
distance is +inf and its coverage 0 at earlier frames (the video never showed it there).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from recallbench.benchmarks.findingdory.annotations import Entity, EpisodeAnnotations
from recallbench.world.env import HomeEnv
from recallbench.world.navigation import NavGrid
from recallbench.world.render import subtree_bodies

VIEWPOINT_BAND = 0.75  # m from a receptacle's top: the robot stands there to reach it


class Placement(Protocol):
    """What ``annotate_day`` reads of one pick-and-place (frames)."""

    @property
    def object(self) -> str: ...

    @property
    def place_end(self) -> int: ...

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


class DayRecord(Protocol):
    """What ``annotate_day`` reads of a day (the generator's ``Day`` is one)."""

    @property
    def poses(self) -> np.ndarray: ...  # (F, 3) base x, y, yaw per frame

    @property
    def times(self) -> Sequence[str]: ...

    @property
    def interactions(self) -> Sequence[Placement]: ...

    def events(self) -> list[dict]: ...


@dataclass
class StillPoses:
    """Bare poses in the final world: no interactions, so every object is where it now is."""

    poses: np.ndarray
    interactions: tuple[()] = ()

    @property
    def times(self) -> list[str]:
        return ["--:--"] * len(self.poses)

    def events(self) -> list[dict]:
        return []


# ---------------------------------------------------------------------------- geometry helpers
def room_of(meta: dict, xy: np.ndarray) -> str | None:
    """Name of the room whose bounds hold ``xy`` (None outside every room)."""
    for r in meta["rooms"]:
        x0, y0, x1, y1 = r["bounds"]
        if x0 <= xy[0] <= x1 and y0 <= xy[1] <= y1:
            return str(r["name"])
    return None


def receptacle_top(env: HomeEnv, rec: dict) -> tuple[np.ndarray, float, np.ndarray]:
    """(centre xyz of the surface, yaw, half extents) of a receptacle's top."""
    sid = env.model.site(rec["top_site"]).id
    centre = env.data.site_xpos[sid].copy()
    centre[2] -= 0.05  # the top site is a 0.05 m half-height box resting on the surface
    return centre, float(rec["yaw"]), np.asarray(rec["top_half_extents"], dtype=float)


def body_pos(env: HomeEnv, name: str) -> np.ndarray:
    """World position of a body (a copy)."""
    return env.data.xpos[env.model.body(name).id].copy()


# ---------------------------------------------------------------------------- measurement
def _text(name: str) -> str:
    return name.replace("_", " ")


def _room_type(room: dict) -> str:
    return str(room.get("type") or room["name"]).rstrip("_0123456789")


def build_entities(env: HomeEnv) -> list[Entity]:
    """Candidate entities in column order: objects on receptacles, receptacles, rooms."""
    meta = env.world_meta
    out = []
    for o in meta["objects"]:
        if o["initial_location"]["kind"] != "receptacle":
            continue  # objects shut inside kitchen fixtures are never seen by the head camera
        out.append(
            Entity(o["name"], "object", o["category"], _text(o["category"]), dict(o["attributes"]))
        )
    for r in meta["receptacles"]:
        out.append(
            Entity(r["name"], "receptacle", r["type"], _text(r["type"]), {"room": r["room"]})
        )
    for r in meta["rooms"]:
        out.append(Entity(r["name"], "room", _room_type(r), _text(_room_type(r)), {}))
    return out


def receptacle_viewpoints(env: HomeEnv, grid: NavGrid, rec: dict) -> np.ndarray:
    """Navigable cell centres within ``VIEWPOINT_BAND`` of a receptacle's top (N, 2)."""
    centre, yaw, half = receptacle_top(env, rec)
    cells = np.argwhere(grid.navigable)
    pts = grid.to_world(cells)
    d = pts - centre[:2]
    c, s = math.cos(yaw), math.sin(yaw)
    lx, ly = c * d[:, 0] + s * d[:, 1], -s * d[:, 0] + c * d[:, 1]
    gap = np.hypot(np.maximum(np.abs(lx) - half[0], 0), np.maximum(np.abs(ly) - half[1], 0))
    return pts[gap <= VIEWPOINT_BAND]


def _cells(grid: NavGrid, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    u = np.floor((xy[:, 0] - grid.origin[0]) / grid.resolution).astype(int)
    v = np.floor((xy[:, 1] - grid.origin[1]) / grid.resolution).astype(int)
    h, w = grid.shape
    return np.clip(v, 0, h - 1), np.clip(u, 0, w - 1)


def _field_at(grid: NavGrid, field: np.ndarray, xy: np.ndarray) -> np.ndarray:
    """Geodesic field values at many points: the cell's value, else the snapped look-up."""
    rows, cols = _cells(grid, xy)
    out = field[rows, cols].astype(np.float64)
    # A point whose own cell is blocked (close to furniture) takes the snapped look-up (~2 ms);
    # a free cell at +inf is truly cut off from the target and stays +inf. The look-up runs
    # once per distinct point: a robot turning on the spot repeats its point for many frames
    # (a day's 553 blocked frames were 25 points: 38 of its 75 CPU s went here).
    blocked = np.flatnonzero(~grid.navigable[rows, cols])
    if len(blocked):
        points, which = np.unique(xy[blocked], axis=0, return_inverse=True)
        values = np.array([grid.lookup(field, p) for p in points], dtype=np.float64)
        out[blocked] = values[which.reshape(-1)]
    return out


def _entity_geometry(
    env: HomeEnv, entities: list[Entity]
) -> tuple[np.ndarray, np.ndarray, list[np.ndarray], list[list[int]]]:
    """Per entity: the point angles are measured to, a navigable goal point (for entity-to-
    entity geodesics), its geodesic distance field, and the bodies its coverage counts."""
    meta, grid = env.world_meta, env.nav_grid
    num_e = len(entities)
    recs = {r["name"]: r for r in meta["receptacles"]}
    rooms = {r["name"]: r for r in meta["rooms"]}

    targets = np.zeros((num_e, 2))  # the point angles are measured to
    goals = np.zeros((num_e, 2))  # a navigable goal point, for entity-to-entity geodesics
    fields = []
    bodies: list[list[int]] = []
    for e, ent in enumerate(entities):
        if ent.kind == "object":
            xy = body_pos(env, ent.id)[:2]
            targets[e] = xy
            goals[e] = grid.snap(xy)
            fields.append(grid.distance_field(goals[e]))
            bodies.append([env.model.body(ent.id).id])
        elif ent.kind == "receptacle":
            rec = recs[ent.id]
            centre = receptacle_top(env, rec)[0][:2]
            targets[e] = centre
            views = receptacle_viewpoints(env, grid, rec)
            if len(views) == 0:
                views = grid.snap(centre)[None, :]
            goals[e] = views[np.argmin(np.hypot(*(views - centre).T))]
            fields.append(grid.distance_field(views))
            bodies.append(subtree_bodies(env.model, rec["body_name"]))
        else:
            x0, y0, x1, y1 = rooms[ent.id]["bounds"]
            pts = grid.to_world(np.argwhere(grid.navigable))
            in_box = (pts[:, 0] >= x0) & (pts[:, 0] <= x1) & (pts[:, 1] >= y0) & (pts[:, 1] <= y1)
            inside = pts[in_box]
            targets[e] = ((x0 + x1) / 2, (y0 + y1) / 2)
            goals[e] = (
                grid.snap(targets[e])
                if len(inside) == 0
                else inside[np.argmin(np.hypot(*(inside - targets[e]).T))]
            )
            # every other cell of the floor is plenty for a distance-to-room (<= 0.08 m off)
            # and a quarter of the per-target snapping work
            cells = np.argwhere(grid.navigable)
            coarse = inside[((cells[:, 0] % 2 == 0) & (cells[:, 1] % 2 == 0))[in_box]]
            fields.append(grid.distance_field(coarse if len(coarse) else goals[e]))
            bodies.append([])
    return targets, goals, fields, bodies


def annotate_day(env: HomeEnv, day: DayRecord, width: int, height: int) -> EpisodeAnnotations:
    """Per-frame x per-entity ground truth of ``day`` in ``env``'s current (end-of-day) world."""
    meta, grid = env.world_meta, env.nav_grid
    entities = build_entities(env)
    poses = day.poses.astype(np.float64)
    num_f, num_e = len(poses), len(entities)
    targets, goals, fields, bodies = _entity_geometry(env, entities)
    distance = np.stack([_field_at(grid, f, poses[:, :2]) for f in fields], axis=1)
    dx = targets[None, :, 0] - poses[:, None, 0]
    dy = targets[None, :, 1] - poses[:, None, 1]
    angle = (np.arctan2(dy, dx) - poses[:, None, 2] + np.pi) % (2 * np.pi) - np.pi
    kinds = np.array([e.kind for e in entities])
    angle[:, kinds == "room"] = 0.0
    in_room = np.zeros((num_f, num_e), dtype=bool)
    frame_rooms = [room_of(meta, p[:2]) for p in poses]
    for e, ent in enumerate(entities):
        if ent.kind == "room":
            in_room[:, e] = [r == ent.id for r in frame_rooms]
            distance[in_room[:, e], e] = 0.0

    coverage = _coverage(env, poses, bodies, width, height)

    # The video shows a moved object at its final place only once it has been put there.
    index = {ent.id: e for e, ent in enumerate(entities)}
    for it in day.interactions:
        e = index[it.object]
        distance[: it.place_end, e] = np.inf
        coverage[: it.place_end, e] = 0.0

    final = poses[-1:, :2]
    start_distance = np.array([_field_at(grid, f, final)[0] for f in fields])
    entity_distance = np.stack([_field_at(grid, f, goals) for f in fields], axis=1)
    return EpisodeAnnotations(
        pose=day.poses.astype(np.float32),
        times=list(day.times),
        entities=entities,
        distance=distance.astype(np.float32),
        angle=angle.astype(np.float32),
        coverage=coverage.astype(np.float32),
        in_room=in_room,
        start_distance=start_distance.astype(np.float32),
        entity_distance=entity_distance.astype(np.float32),
        events=day.events(),
        interactions=[(it.start, it.end) for it in day.interactions],
    )


def _coverage(
    env: HomeEnv, poses: np.ndarray, bodies: list[list[int]], width: int, height: int
) -> np.ndarray:
    """(F, E) segmentation coverage, one render per distinct pose (idle frames repeat)."""
    nbody = env.model.nbody
    member = np.zeros((nbody + 1, len(bodies)))  # row 0: background
    for e, ids in enumerate(bodies):
        member[np.asarray(ids, dtype=int) + 1, e] = 1.0
    out = np.zeros((len(poses), len(bodies)))
    cache: dict[bytes, np.ndarray] = {}
    held = env.held_body()
    if held is not None:
        env.release()  # the day ends with empty hands; a held object would ride the teleports
    for f, pose in enumerate(poses):
        key = pose.astype(np.float32).tobytes()
        row = cache.get(key)
        if row is None:
            env.teleport(pose, for_render=True)
            counts = env.renders.body_pixel_counts(env.data, "robot0_head", width, height)
            row = counts @ member / (width * height)
            cache[key] = row
        out[f] = row
    return out


__all__ = [
    "VIEWPOINT_BAND",
    "DayRecord",
    "Placement",
    "StillPoses",
    "annotate_day",
    "body_pos",
    "build_entities",
    "receptacle_top",
    "receptacle_viewpoints",
    "room_of",
]
