"""Planning a FindingDory day: which object goes where and the legs the robot drives between its
chores (how many steps they take is measured by ``findingdory_dry_runs``, dry runs of the same
follower on the navigation grid). The arm's constants, shared by the dry runs and the acting,
are here."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass

import numpy as np

from recallbench.benchmarks.findingdory.ground_truth import body_pos, receptacle_top
from recallbench.generate.findingdory_knobs import FindingDoryKnobs
from recallbench.world.env import HomeEnv
from recallbench.world.navigation import NavGrid
from recallbench.world.objects import CATEGORIES, SPHERE_COLLIDERS
from recallbench.world.robot import HEAD_HEIGHT

MAX_NAV_STEPS = 900
REACH_STEPS = 45  # arm steps to reach an object or a placing spot (0.05 m per step)
RETRACT_STEPS = 45
GRASP_ABOVE = 0.1  # m: the gripper grasps from this far above an object's centre
CLEAR_Z = 0.34  # m above a surface: the gripper's travel height, over any standing object
SETTLE_STEPS = 6  # physics steps after a release so the object comes to rest
HOLD_STEPS = 3  # still steps before a release
NO_PLACE = frozenset({"shelf"})  # a board overhead: the arm cannot put things in reliably
LOOK_STEPS = 4  # idle frames looking at a receptacle on a revisit
MAX_ARM_REACH = 0.95  # m, base centre to object, horizontally (arm x slides to 1.1 m)
CARRY = np.array([0.25, 0.0, 0.5])  # grip site in the base frame while driving: low and
# close, below the head camera's view, so the arm never hides the scene
SPOT_CLEARANCE = 0.08  # m between a placed object's rim and any other object's
# Other activity before the first chore and after the last, drawn per day as shares of the day
# (exponential): val's first pick receptacle is first seen at offered positions 2 / 2.75 / 4 /
# 6 / 9 (10th..90th percentile) and its last placement's receptacle last seen 3 / 5 / 10 / 18
# / 31 positions before the end; days that always started and ended alike let an agent that
# never watches answer "revisit all the receptacles you picked objects from" by position.
LEAD_MEAN = 3 / 95  # resting in the start room before the first walk to a chore
FREE_SPOT_DRAWS = 20  # points drawn in a room before a walk into it gives up
TAIL_MEAN = 10 / 95  # walking away after the last placement and resting there
TAIL_PER_ROOM = 8 / 95  # a longer tail walks on to another room (a rest fills a room's views)
MAX_AWAY = 3


class DayFailed(RuntimeError):
    """This home cannot hold the requested day (caller retries with another home)."""


# ---------------------------------------------------------------------------- geometry helpers
def on_top(env: HomeEnv, rec: dict, pos: np.ndarray, half_height: float) -> bool:
    """Is an object centred at ``pos`` resting on the receptacle's top surface?"""
    centre, yaw, half = receptacle_top(env, rec)
    d = pos[:2] - centre[:2]
    c, s = math.cos(yaw), math.sin(yaw)
    lx, ly = c * d[0] + s * d[1], -s * d[0] + c * d[1]
    inside = abs(lx) <= half[0] + 0.03 and abs(ly) <= half[1] + 0.03
    # upright or tipped over, but on this surface (not on the floor, not on a lower board)
    return inside and centre[2] - 0.01 <= pos[2] <= centre[2] + half_height + 0.06


def face_yaw(goal: np.ndarray, face: np.ndarray | None) -> float | None:
    """The heading from ``goal`` towards ``face`` (None when the leg faces nothing)."""
    if face is None:
        return None
    return math.atan2(face[1] - goal[1], face[0] - goal[0])


# ---------------------------------------------------------------------------- planning
@dataclass
class Leg:
    kind: str  # pick | place | revisit | room
    goal: np.ndarray  # navigable xy to drive to
    face: np.ndarray | None  # xy to face on arrival
    obj: str | None = None
    receptacle: str | None = None
    spot: np.ndarray | None = None  # placing point (xyz of the object's centre)
    interaction: int | None = None
    room: str | None = None
    actions: list[int] | None = None  # the dry run's discrete actions
    face_z: float = 0.0  # height of ``face`` (what the robot looks at on arrival)
    steps: int = 0  # the frames the planner counts for it (driving, then looking or the arm)
    end: np.ndarray | None = None  # and the pose they reach
    rest: int = 0  # frames of other activity the plan drew: the day's lead-in before the
    # first leg (on the first leg), or a rest after a walk away (on an away leg)
    extra: bool = False  # a room visit added to take waits' excess (findingdory_day)


def _nav_goal(grid: NavGrid, target_xy: np.ndarray) -> np.ndarray | None:
    try:
        goal = grid.snap(target_xy)
    except ValueError:
        return None
    if np.hypot(*(goal - target_xy[:2])) > MAX_ARM_REACH:
        return None
    return goal


def _radius(category: str) -> float:
    return float(CATEGORIES[category].radius)


Standing = tuple[np.ndarray, float, float]  # an object: centre (xyz), radius, half height


def hides(eye: np.ndarray, front: Standing, back: Standing) -> bool:
    """Does ``front`` stand between the head camera of a robot at ``eye`` (base xy) and the
    centre of ``back``: nearer, across the line of sight within their radii, and its top above
    the sight line where it crosses it?"""
    ray = back[0][:2] - eye[:2]
    far = float(np.hypot(*ray))
    if far < 1e-6:
        return False
    off = front[0][:2] - eye[:2]
    along = float(np.dot(off, ray)) / far
    if not 0.0 < along < far:
        return False
    across = abs(float(ray[0] * off[1] - ray[1] * off[0])) / far
    sight = HEAD_HEIGHT - (HEAD_HEIGHT - float(back[0][2])) * along / far
    return across < front[1] + back[1] and float(front[0][2]) + front[2] > sight


def _place_spot(
    env: HomeEnv,
    grid: NavGrid,
    rec: dict,
    occupied: list[Standing],
    obj: dict,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray] | None:
    """A free, reachable point on a receptacle's top, and the pose to place from.

    ``occupied`` holds the other objects: the spot keeps clear of them by ``SPOT_CLEARANCE``
    so that placing (and later picking) never knocks a neighbour over, and, where the top has
    room, the put-down object neither hides one of them nor is hidden by one from the pose it
    is placed from (the wait after a place looks at it there: a bottle put in front of a lemon
    left the lemon a sliver in every frame that counted as seeing it).
    """
    centre, yaw, half = receptacle_top(env, rec)
    c, s = math.cos(yaw), math.sin(yaw)
    radius = _radius(obj["category"])
    inset = np.maximum(half - max(0.08, radius), 0.0)
    z = centre[2] + obj["half_height"] + 0.005
    cands, clear = [], []
    for u in np.linspace(-inset[0], inset[0], 5):
        for v in np.linspace(-inset[1], inset[1], 5):
            p = centre[:2] + np.array([c * u - s * v, s * u + c * v])
            if any(np.hypot(*(p - o[:2])) < radius + r + SPOT_CLEARANCE for o, r, _ in occupied):
                continue
            goal = _nav_goal(grid, p)
            if goal is None:
                continue
            cand = (float(np.hypot(*(goal - p))), p, goal)
            cands.append(cand)
            mine = (np.array([p[0], p[1], z]), radius, float(obj["half_height"]))
            if not any(hides(goal, a, b) for o in occupied for a, b in ((mine, o), (o, mine))):
                clear.append(cand)
    if not cands:
        return None
    cands = clear or cands
    cands.sort(key=lambda t: t[0])
    _, p, goal = cands[int(rng.integers(0, min(3, len(cands))))]
    return np.array([p[0], p[1], z]), goal


def _choose_rooms(meta: dict, movable: dict, knobs: FindingDoryKnobs, rng) -> list[str]:
    names = [r["name"] for r in meta["rooms"]]
    if knobs.rooms is None or knobs.rooms >= len(names):
        return names
    order = [names[i] for i in rng.permutation(len(names))]
    # rooms holding movable objects first, so the day can find enough objects to move
    order.sort(key=lambda n: -sum(1 for o in movable.values() if o["room"] == n))
    return order[: knobs.rooms]


def _movable(env: HomeEnv) -> dict[str, dict]:
    """Objects the robot can move: resting on a receptacle top, within the arm's reach from a
    navigable cell, and not round (nothing stops a put-down ball rolling: they stay
    distractors)."""
    meta, grid = env.world_meta, env.nav_grid
    recs = {r["name"]: r for r in meta["receptacles"]}
    movable: dict[str, dict] = {}
    for o in meta["objects"]:
        loc = o["initial_location"]
        if loc["kind"] != "receptacle" or o["category"] in SPHERE_COLLIDERS:
            continue
        pos = body_pos(env, o["body_name"])
        if not on_top(env, recs[loc["name"]], pos, o["half_height"]):
            continue  # rolled off while the house settled: it stays where it lies
        goal = _nav_goal(grid, pos[:2])
        if goal is not None:
            movable[o["name"]] = {"pos": pos, "rec": loc["name"], "room": loc["room"],
                                  "goal": goal, "half_height": o["half_height"]}
    return movable


def _chores(env: HomeEnv, knobs: FindingDoryKnobs, rng: np.random.Generator,
            movable: dict[str, dict], rooms: list[str]) -> tuple[list[Leg], list[tuple[str, str]]]:
    """Pick and place legs of ``knobs.interactions`` distinct objects, each put at a free spot
    of another receptacle; and the (picked from, placed on) receptacle of each."""
    meta, grid = env.world_meta, env.nav_grid
    candidates = [n for n, o in movable.items() if o["room"] in rooms]
    if len(candidates) < knobs.interactions:
        raise DayFailed(f"{len(candidates)} reachable objects in rooms {rooms}")
    dst_recs = [r for r in meta["receptacles"] if r["room"] in rooms and r["type"] not in NO_PLACE]
    objs = {o["name"]: o for o in meta["objects"]}
    positions = {o["name"]: body_pos(env, o["body_name"]) for o in meta["objects"]}
    legs: list[Leg] = []
    done: list[tuple[str, str]] = []
    for name in [candidates[i] for i in rng.permutation(len(candidates))]:
        if len(done) == knobs.interactions:
            break
        info = movable[name]
        options = [r for r in dst_recs if r["name"] != info["rec"]]
        rng.shuffle(options)
        occupied = [(p, _radius(objs[n]["category"]), float(objs[n]["half_height"]))
                    for n, p in positions.items() if n != name]
        for rec in options:
            placed = _place_spot(env, grid, rec, occupied, objs[name], rng)
            if placed is None:
                continue
            spot, goal = placed
            k = len(done)
            legs.append(Leg("pick", info["goal"], info["pos"][:2], obj=name,
                            receptacle=info["rec"], interaction=k, room=info["room"],
                            face_z=float(info["pos"][2])))
            legs.append(Leg("place", goal, spot[:2], obj=name, receptacle=rec["name"],
                            spot=spot, interaction=k, room=rec["room"]))
            positions[name] = spot
            done.append((info["rec"], rec["name"]))
            break
    if len(done) < knobs.interactions:
        raise DayFailed(f"only {len(done)} of {knobs.interactions} interactions could be planned")
    return legs, done


def room_leg(env: HomeEnv, rooms: list[str], rng: np.random.Generator, kind: str,
             open_floor: bool = False, avoid: np.ndarray | None = None) -> Leg | None:
    """A walk to a random spot inside one of ``rooms`` (None when it finds none): a point
    drawn at least 0.8 m inside the room's walls, snapped to the floor. With ``open_floor``
    the point itself must be free (``FREE_SPOT_DRAWS`` draws): snapped, a point inside a piece
    of furniture puts the robot against the piece, at its viewpoint. ``avoid`` (N, 2): of the
    free points drawn, the one farthest from all of them."""
    wanted = rooms[int(rng.integers(len(rooms)))]
    room = next(r for r in env.world_meta["rooms"] if r["name"] == wanted)
    x0, y0, x1, y1 = room["bounds"]
    grid = env.nav_grid
    best: tuple[float, np.ndarray] | None = None
    for _ in range(FREE_SPOT_DRAWS if open_floor else 1):
        xy = np.array([rng.uniform(x0 + 0.8, x1 - 0.8), rng.uniform(y0 + 0.8, y1 - 0.8)])
        if open_floor and not grid.is_navigable(xy):
            continue
        if avoid is None or not len(avoid):
            best = (0.0, xy)
            break
        apart = float(np.min(np.hypot(*(avoid - xy).T)))
        if best is None or apart > best[0]:
            best = (apart, xy)
    if best is None:
        return None
    try:
        return Leg(kind, grid.snap(best[1]), None, room=room["name"])
    except ValueError:
        return None


def touched(env: HomeEnv, legs: list[Leg]) -> np.ndarray:
    """(N, 2): where the day's picks and places were (receptacles and put-down spots)."""
    meta = env.world_meta
    recs = {r["name"]: r for r in meta["receptacles"] + meta.get("fixtures", [])}
    pts = [np.asarray(recs[leg.receptacle]["pos"][:2], dtype=float)
           for leg in legs if leg.kind in ("pick", "place") and leg.receptacle in recs]
    pts += [np.asarray(leg.spot[:2], dtype=float) for leg in legs
            if leg.kind == "place" and leg.spot is not None]
    return np.array(pts).reshape(-1, 2)


def plan_day(env: HomeEnv, knobs: FindingDoryKnobs, rng: np.random.Generator) -> list[Leg]:
    """The day's legs in order: interactions (pick then place), revisits, room visits, and
    walks away from the last placement (the robot does other things before the day ends, so
    its final frames do not show what it moved last); the rests drawn before the first chore
    and after the walks away are on the legs (``Leg.rest``, ``_lead_and_tail``)."""
    meta = env.world_meta
    recs = {r["name"]: r for r in meta["receptacles"]}
    movable = _movable(env)
    rooms = _choose_rooms(meta, movable, knobs, rng)
    legs, done = _chores(env, knobs, rng, movable, rooms)
    # Revisits: after some interaction, go back and look at a receptacle already used.
    for _ in range(knobs.revisits):
        k = int(rng.integers(1, len(done) + 1))  # after the k-th interaction
        rec = recs[done[int(rng.integers(0, k))][int(rng.integers(0, 2))]]
        goal = _nav_goal(env.nav_grid, np.asarray(rec["approach_pose"][:2], dtype=float))
        if goal is None:
            continue
        centre = np.asarray(rec["pos"][:2], dtype=float)
        at = max(i for i, leg in enumerate(legs) if leg.interaction == k - 1) + 1
        legs.insert(at, Leg("revisit", goal, centre, receptacle=rec["name"], room=rec["room"],
                            face_z=float(receptacle_top(env, rec)[0][2])))
    # Room visits: wander into a random room between some interactions.
    for k in range(1, len(done)):
        if rng.random() < 0.5:
            leg = room_leg(env, rooms, rng, "room")
            if leg is not None:
                at = next(i for i, leg in enumerate(legs) if leg.interaction == k)
                legs.insert(at, leg)
    _lead_and_tail(env, knobs, legs, rng, rng.spawn(1)[0])
    return legs


def _lead_and_tail(env: HomeEnv, knobs: FindingDoryKnobs, legs: list[Leg],
                   day_rng: np.random.Generator, rng: np.random.Generator) -> None:
    """The day's other activity before its first chore and after its last: a rest in the
    start room (``rest`` of the first leg) and walks away from the chores, each then resting
    (``rest`` of the away legs). Away walks go to the rooms the day used least (not at all if
    it can), never the one of the last placement, so the day's last frames show little it
    interacted with. The first walk comes from the day's generator, as it always did; the
    rest is drawn from ``rng``, a child of it, so no other draw of the day moves."""
    lead, tail = (int(knobs.steps * rng.exponential(m)) for m in (LEAD_MEAN, TAIL_MEAN))
    chores = Counter(leg.room for leg in legs if leg.kind in ("pick", "place"))
    last_place = next(leg for leg in reversed(legs) if leg.kind == "place")
    names = [r["name"] for r in env.world_meta["rooms"] if r["name"] != last_place.room] \
        or [r["name"] for r in env.world_meta["rooms"]]
    aways: list[Leg] = []
    avoid = touched(env, legs)  # the aways stand far from it (legs holds no away yet)
    for walk in range(min(MAX_AWAY, 1 + int(tail / (knobs.steps * TAIL_PER_ROOM)))):
        least = min(chores[n] for n in names)
        elsewhere = [n for n in names if chores[n] == least]
        for _ in range(3):  # a spot may snap nowhere: try another
            away = room_leg(env, elsewhere, rng if walk else day_rng, "away", open_floor=True,
                            avoid=avoid)
            if away is not None:
                aways.append(away)
                chores[away.room] += 1  # a further walk goes on to another room
                break
    legs[0].rest = lead
    for away in aways:
        away.rest = tail // len(aways)
    legs.extend(aways)
