"""A FindingDory "day": a scripted robot does pick-and-place chores in a built-in home.

The robot only acts through its own actions: FindingDory's discrete moves (MOVE_FORWARD 0.25 m,
TURN 10 deg) chosen by the greedy geodesic follower, and the continuous arm actions plus the
world's magic grasp to pick and place. Every action is one frame of the head-camera video; idle
frames (the robot waits) fill the day so that its clock runs 06:00-22:00 over ``steps`` frames.

The plan is made first (which object goes where, and when the robot wanders or revisits), its
length in steps is measured by dry-running the same follower on the navigation grid, and the
spare steps are spread as idle time between the chores.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from recallbench.benchmarks.findingdory.ground_truth import body_pos, receptacle_top
from recallbench.generate.findingdory_knobs import FindingDoryKnobs
from recallbench.world.env import HomeEnv
from recallbench.world.navigation import (
    DiscreteAction,
    GreedyGeodesicFollower,
    NavGrid,
    apply_discrete,
)
from recallbench.world.objects import CATEGORIES, SPHERE_COLLIDERS

if TYPE_CHECKING:
    import mujoco

DAY_START_MIN = 6 * 60
DAY_MINUTES = 16 * 60  # 06:00 to 22:00
MAX_NAV_STEPS = 900
REACH_STEPS = 45  # arm steps to reach an object or a placing spot (0.05 m per step)
RETRACT_STEPS = 45
GRASP_ABOVE = 0.1  # m: the gripper grasps from this far above an object's centre
CLEAR_Z = 0.34  # m above a surface: the gripper's travel height, over any standing object
SETTLE_STEPS = 6  # physics steps after a release so the object comes to rest
HOLD_STEPS = 3  # still steps before a release
ARM_LAG_STEPS = 4  # extra arm steps per waypoint: the servos lag their targets
# A neighbour may roll or be nudged this far (m) while the arm works; knocked over or off its
# surface (a height change), the home is rejected.
NUDGE_XY = 0.1
SETTLE_SECONDS = 5.0  # physics run before the day starts
NO_PLACE = frozenset({"shelf"})  # a board overhead: the arm cannot put things in reliably
LOOK_STEPS = 4  # idle frames looking at a receptacle on a revisit
# upper bound of one pick or place
ARM_STEPS = REACH_STEPS + RETRACT_STEPS + HOLD_STEPS + SETTLE_STEPS
MAX_ARM_REACH = 0.95  # m, base centre to object, horizontally (arm x slides to 1.1 m)
CARRY = np.array([0.25, 0.0, 0.5])  # grip site in the base frame while driving: low and
# close, below the head camera's view, so the arm never hides the scene
SPOT_CLEARANCE = 0.08  # m between a placed object's rim and any other object's


class DayFailed(RuntimeError):
    """This home cannot hold the requested day (caller retries with another home)."""


@dataclass
class Interaction:
    """One pick-and-place: ``object`` from ``pick_receptacle`` to ``place_receptacle``.

    Frames: the pick runs over [pick_start, pick_end], the place over [place_start, place_end];
    the interaction spans pick_start..place_end (its start and end).
    """

    object: str
    pick_receptacle: str
    place_receptacle: str
    pick_room: str
    place_room: str
    pick_start: int = -1
    pick_end: int = -1
    place_start: int = -1
    place_end: int = -1

    @property
    def start(self) -> int:
        return self.pick_start

    @property
    def end(self) -> int:
        return self.place_end


@dataclass
class Day:
    poses: np.ndarray  # (F, 3) base x, y, yaw per frame
    times: list[str]  # "HH:MM" per frame
    interactions: list[Interaction]
    visits: list[dict] = field(default_factory=list)  # revisits and room visits, with frames
    rgb_renders: int = 0  # head-camera images rendered (idle frames repeat the last one)

    def events(self) -> list[dict]:
        """The oracle's event log: one pick and one place event per interaction, in order."""
        out = []
        for k, it in enumerate(self.interactions):
            for kind, (s, e, rec, room) in (
                ("pick", (it.pick_start, it.pick_end, it.pick_receptacle, it.pick_room)),
                ("place", (it.place_start, it.place_end, it.place_receptacle, it.place_room)),
            ):
                out.append(
                    {
                        "interaction": k,
                        "kind": kind,
                        "start": int(s),
                        "end": int(e),
                        "object": it.object,
                        "receptacle": rec,
                        "room": room,
                        "time": self.times[s],
                    }
                )
        return out

    def to_dict(self) -> dict:
        return {
            "interactions": [asdict(i) for i in self.interactions],
            "visits": self.visits,
        }


def time_of_day(frame: int, steps: int) -> str:
    """Clock time "HH:MM" of a frame: 06:00 at frame 0, 22:00 at the end of the day."""
    minute = DAY_START_MIN + int(frame * DAY_MINUTES / steps)
    return f"{minute // 60:02d}:{minute % 60:02d}"


# ---------------------------------------------------------------------------- geometry helpers
def _on_top(env: HomeEnv, rec: dict, pos: np.ndarray, half_height: float) -> bool:
    """Is an object centred at ``pos`` resting on the receptacle's top surface?"""
    centre, yaw, half = receptacle_top(env, rec)
    d = pos[:2] - centre[:2]
    c, s = math.cos(yaw), math.sin(yaw)
    lx, ly = c * d[0] + s * d[1], -s * d[0] + c * d[1]
    inside = abs(lx) <= half[0] + 0.03 and abs(ly) <= half[1] + 0.03
    # upright or tipped over, but on this surface (not on the floor, not on a lower board)
    return inside and centre[2] - 0.01 <= pos[2] <= centre[2] + half_height + 0.06


# ---------------------------------------------------------------------------- planning
@dataclass
class _Leg:
    kind: str  # pick | place | revisit | room
    goal: np.ndarray  # navigable xy to drive to
    face: np.ndarray | None  # xy to face on arrival
    obj: str | None = None
    receptacle: str | None = None
    spot: np.ndarray | None = None  # placing point (xyz of the object's centre)
    interaction: int | None = None
    room: str | None = None
    actions: list[int] | None = None  # the dry run's discrete actions
    end: np.ndarray | None = None  # and the pose they reach


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


def _place_spot(
    env: HomeEnv,
    grid: NavGrid,
    rec: dict,
    occupied: list[tuple[np.ndarray, float]],
    obj: dict,
    rng: np.random.Generator,
) -> tuple[np.ndarray, np.ndarray] | None:
    """A free, reachable point on a receptacle's top, and the pose to place from.

    ``occupied`` holds (position, radius) of the other objects: the spot keeps clear of them
    by ``SPOT_CLEARANCE`` so that placing (and later picking) never knocks a neighbour over.
    """
    centre, yaw, half = receptacle_top(env, rec)
    c, s = math.cos(yaw), math.sin(yaw)
    radius = _radius(obj["category"])
    inset = np.maximum(half - max(0.08, radius), 0.0)
    cands = []
    for u in np.linspace(-inset[0], inset[0], 5):
        for v in np.linspace(-inset[1], inset[1], 5):
            p = centre[:2] + np.array([c * u - s * v, s * u + c * v])
            if any(np.hypot(*(p - o[:2])) < radius + r + SPOT_CLEARANCE for o, r in occupied):
                continue
            goal = _nav_goal(grid, p)
            if goal is not None:
                cands.append((float(np.hypot(*(goal - p))), p, goal))
    if not cands:
        return None
    cands.sort(key=lambda t: t[0])
    _, p, goal = cands[int(rng.integers(0, min(3, len(cands))))]
    return np.array([p[0], p[1], centre[2] + obj["half_height"] + 0.005]), goal


def _choose_rooms(meta: dict, movable: dict, knobs: FindingDoryKnobs, rng) -> list[str]:
    names = [r["name"] for r in meta["rooms"]]
    if knobs.rooms is None or knobs.rooms >= len(names):
        return names
    order = [names[i] for i in rng.permutation(len(names))]
    # rooms holding movable objects first, so the day can find enough objects to move
    order.sort(key=lambda n: -sum(1 for o in movable.values() if o["room"] == n))
    return order[: knobs.rooms]


def plan_day(env: HomeEnv, knobs: FindingDoryKnobs, rng: np.random.Generator) -> list[_Leg]:
    """The day's legs: interactions (pick then place), revisits and room visits, in order."""
    meta, grid = env.world_meta, env.nav_grid
    recs = {r["name"]: r for r in meta["receptacles"]}
    movable: dict[str, dict] = {}
    for o in meta["objects"]:
        loc = o["initial_location"]
        if loc["kind"] != "receptacle":
            continue
        pos = body_pos(env, o["body_name"])
        if not _on_top(env, recs[loc["name"]], pos, o["half_height"]):
            continue  # rolled off while the house settled: it stays where it lies
        if o["category"] in SPHERE_COLLIDERS:
            continue  # nothing stops a put-down ball rolling (no rolling friction): distractor
        goal = _nav_goal(grid, pos[:2])
        if goal is not None:
            movable[o["name"]] = {
                "pos": pos,
                "rec": loc["name"],
                "room": loc["room"],
                "goal": goal,
                "half_height": o["half_height"],
            }
    rooms = _choose_rooms(meta, movable, knobs, rng)
    candidates = [n for n, o in movable.items() if o["room"] in rooms]
    if len(candidates) < knobs.interactions:
        raise DayFailed(f"{len(candidates)} reachable objects in rooms {rooms}")
    dst_recs = [r for r in recs.values() if r["room"] in rooms and r["type"] not in NO_PLACE]
    objs = {o["name"]: o for o in meta["objects"]}
    positions = {o["name"]: body_pos(env, o["body_name"]) for o in meta["objects"]}
    order = [candidates[i] for i in rng.permutation(len(candidates))]
    legs: list[_Leg] = []
    done: list[tuple[str, str]] = []
    for name in order:
        if len(done) == knobs.interactions:
            break
        info = movable[name]
        options = [r for r in dst_recs if r["name"] != info["rec"]]
        rng.shuffle(options)
        occupied = [(p, _radius(objs[n]["category"])) for n, p in positions.items() if n != name]
        for rec in options:
            placed = _place_spot(env, grid, rec, occupied, objs[name], rng)
            if placed is None:
                continue
            spot, goal = placed
            k = len(done)
            legs.append(
                _Leg(
                    "pick",
                    info["goal"],
                    info["pos"][:2],
                    obj=name,
                    receptacle=info["rec"],
                    interaction=k,
                    room=info["room"],
                )
            )
            legs.append(
                _Leg(
                    "place",
                    goal,
                    spot[:2],
                    obj=name,
                    receptacle=rec["name"],
                    spot=spot,
                    interaction=k,
                    room=rec["room"],
                )
            )
            positions[name] = spot
            done.append((info["rec"], rec["name"]))
            break
    if len(done) < knobs.interactions:
        raise DayFailed(f"only {len(done)} of {knobs.interactions} interactions could be planned")
    # Revisits: after some interaction, go back and look at a receptacle already used.
    for _ in range(knobs.revisits):
        k = int(rng.integers(1, len(done) + 1))  # after the k-th interaction
        rec = recs[done[int(rng.integers(0, k))][int(rng.integers(0, 2))]]
        goal = _nav_goal(grid, np.asarray(rec["approach_pose"][:2], dtype=float))
        if goal is None:
            continue
        centre = np.asarray(rec["pos"][:2], dtype=float)
        at = max(i for i, leg in enumerate(legs) if leg.interaction == k - 1) + 1
        legs.insert(at, _Leg("revisit", goal, centre, receptacle=rec["name"], room=rec["room"]))
    # Room visits: wander into a random room between some interactions.
    for k in range(1, len(done)):
        if rng.random() < 0.5:
            wanted = rooms[int(rng.integers(len(rooms)))]
            room = next(r for r in meta["rooms"] if r["name"] == wanted)
            x0, y0, x1, y1 = room["bounds"]
            xy = np.array([rng.uniform(x0 + 0.8, x1 - 0.8), rng.uniform(y0 + 0.8, y1 - 0.8)])
            try:
                goal = grid.snap(xy)
            except ValueError:
                continue
            at = next(i for i, leg in enumerate(legs) if leg.interaction == k)
            legs.insert(at, _Leg("room", goal, None, room=room["name"]))
    return legs


# ---------------------------------------------------------------------------- execution
def _face_yaw(goal: np.ndarray, face: np.ndarray | None) -> float | None:
    if face is None:
        return None
    return math.atan2(face[1] - goal[1], face[0] - goal[0])


def _nav_steps(
    follower: GreedyGeodesicFollower, pose: np.ndarray, leg: _Leg
) -> tuple[list[int], np.ndarray]:
    """Dry run of a leg on the grid: the follower's actions and the pose reached."""
    p = pose.copy()
    yaw = _face_yaw(leg.goal, leg.face)
    actions: list[int] = []
    for _ in range(MAX_NAV_STEPS):
        a = follower.act(p, leg.goal, goal_yaw=yaw)
        if a == DiscreteAction.STOP:
            if follower.status != "arrived":
                raise DayFailed(f"{leg.kind} leg: goal {leg.goal} is unreachable")
            return actions, p
        actions.append(int(a))
        p = apply_discrete(follower.grid, p, a)
    raise DayFailed(f"{leg.kind} leg: no arrival within {MAX_NAV_STEPS} steps")


def _leg_cost(env: HomeEnv, leg: _Leg) -> int:
    """Frames a leg spends after driving: looking around, or its arm phase."""
    if leg.kind == "revisit":
        return LOOK_STEPS
    if leg.kind not in ("pick", "place") or leg.end is None:
        return 0
    # The arm phase's path from the planned base pose: carry -> up -> across -> down, and back.
    x, y, yaw = leg.end
    base_z = env.data.xpos[env.model.body("mobilebase0_base").id][2]
    c, s = math.cos(yaw), math.sin(yaw)

    def to_base(p: np.ndarray) -> np.ndarray:
        d = p - np.array([x, y, base_z])
        return np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1], d[2]])

    if leg.kind == "pick":
        obj = body_pos(env, str(leg.obj))
        half = next(o for o in env.world_meta["objects"] if o["name"] == leg.obj)["half_height"]
        target = to_base(obj + np.array([0.0, 0.0, GRASP_ABOVE]))
        travel, extra = to_base(obj)[2] - half + CLEAR_Z, 0
    else:
        assert leg.spot is not None
        target = to_base(leg.spot + np.array([0.0, 0.0, GRASP_ABOVE]))
        travel, extra = target[2] + 0.1, HOLD_STEPS + SETTLE_STEPS
    z = max(travel, target[2])
    points = [CARRY, np.array([CARRY[0], CARRY[1], z]), np.array([target[0], target[1], z]), target]
    legs = [np.abs(b - a).max() for a, b in zip(points, points[1:], strict=False)]
    # 0.05 m per step along the longest axis, plus servo lag at every waypoint, both ways
    steps = 2 * sum(math.ceil(d / 0.05) + ARM_LAG_STEPS for d in legs) + extra
    return min(int(steps), ARM_STEPS)


class _Planner:
    """Dry runs of legs, remembered by (start pose, leg): when a short day drops its optional
    legs, the legs before the first dropped one are not driven again. One follower serves all
    runs, so its planning grid and distance fields are built once."""

    def __init__(self, env: HomeEnv) -> None:
        self.env = env
        self.follower = GreedyGeodesicFollower(env.nav_grid)
        self._runs: dict[tuple[bytes, int], tuple[list[int], np.ndarray]] = {}

    def cost(self, legs: list[_Leg]) -> int:
        """Steps the legs take at most: navigation measured by a dry run, arm phases bounded."""
        pose, total = self.env.base_pose(), 0
        for leg in legs:
            # the actions are kept: driving replays them (the follower is deterministic on
            # the grid, and arm phases put the base back exactly), so each leg is planned once
            key = (pose.tobytes(), id(leg))
            if key not in self._runs:
                self._runs[key] = _nav_steps(self.follower, pose, leg)
            leg.actions, pose = self._runs[key]
            leg.end = pose
            total += len(leg.actions) + _leg_cost(self.env, leg)
        return total


FrameSink = Callable[[int, np.ndarray], None]


def _refresh_poses(model: mujoco.MjModel, data: mujoco.MjData) -> None:
    """The pose refresh ``HomeEnv.step`` does after physics (all that renders read)."""
    import mujoco  # loaded by the env already

    mujoco.mj_kinematics(model, data)
    mujoco.mj_comPos(model, data)
    mujoco.mj_camlight(model, data)


class _DayRunner:
    """Executes legs in the env, recording one frame (pose, time, rgb) per robot step.

    The images are rendered after the day succeeded (``replay``): a home the day fails in
    (found only while acting) then costs its physics, not its renders and video encoding. A
    frame stores what a render reads that the day changes, the joint and mocap poses.
    """

    def __init__(self, env: HomeEnv, knobs: FindingDoryKnobs, sink: FrameSink) -> None:
        self.env, self.knobs, self.sink = env, knobs, sink
        self.follower = GreedyGeodesicFollower(env.nav_grid)
        self.poses: list[np.ndarray] = []
        self.rgb_renders = 0
        self._shots: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # states to render
        self._shot_of: list[int] = []  # per frame: its image's index in _shots

    @property
    def frame(self) -> int:
        return len(self.poses)

    def record(self, render: bool = True) -> None:
        if self.frame >= self.knobs.steps:
            raise DayFailed(f"the day needs more than {self.knobs.steps} steps")
        if render or not self._shots:
            d = self.env.data
            self._shots.append((d.qpos.copy(), d.mocap_pos.copy(), d.mocap_quat.copy()))
            self.rgb_renders += 1
        self._shot_of.append(len(self._shots) - 1)
        self.poses.append(self.env.base_pose())

    def replay(self) -> None:
        """Render the recorded frames in order into the sink; the env ends as it was."""
        import mujoco  # loaded by the env already

        m, d = self.env.model, self.env.data
        spec = mujoco.mjtState.mjSTATE_INTEGRATION  # everything physics carries forward
        end = np.empty(mujoco.mj_stateSize(m, spec))
        mujoco.mj_getState(m, d, end, spec)
        w, h = self.knobs.width, self.knobs.height
        img: np.ndarray | None = None
        shown = -1
        try:
            for f, k in enumerate(self._shot_of):
                if k != shown:
                    d.qpos[:], d.mocap_pos[:], d.mocap_quat[:] = self._shots[k]
                    _refresh_poses(m, d)
                    img, shown = self.env.render_camera("robot0_head", w, h), k
                assert img is not None
                self.sink(f, img)  # an idle frame passes the same array again
        finally:
            mujoco.mj_setState(m, d, end, spec)
            _refresh_poses(m, d)

    def idle(self, n: int) -> None:
        for _ in range(max(0, n)):
            self.record(render=False)  # nothing moves: the last image is the frame

    def drive(self, leg: _Leg) -> None:
        if leg.actions is not None and leg.end is not None:
            for a in leg.actions:
                self.env.step_discrete(a)
                self.record()
            if np.allclose(self.env.base_pose(), leg.end, atol=1e-9):
                return
            # should not happen (the world is deterministic); finish with the live follower
        yaw = _face_yaw(leg.goal, leg.face)
        for _ in range(MAX_NAV_STEPS):
            a = self.follower.act(self.env.base_pose(), leg.goal, goal_yaw=yaw)
            if a == DiscreteAction.STOP:
                if self.follower.status != "arrived":
                    raise DayFailed(f"{leg.kind} leg: stopped ({self.follower.status})")
                return
            self.env.step_discrete(int(a))
            self.record()
        raise DayFailed(f"{leg.kind} leg: no arrival within {MAX_NAV_STEPS} steps")

    def _arm_path(self, waypoints: list[np.ndarray], max_steps: int, tol: float = 0.02) -> float:
        """Move the grip site through points in the base frame; one frame per arm step.

        Returns the distance left to the last point (all points but the last are passed
        within 0.03 m).
        """
        steps = 0
        for n, goal in enumerate(waypoints):
            goal_tol = tol if n == len(waypoints) - 1 else 0.03
            while steps < max_steps:
                err = float(np.linalg.norm(goal - self.env.eef_pos_base()))
                if err <= goal_tol:
                    break
                act = np.zeros(self.env.action_dim)
                act[0:3] = np.clip((goal - self.env.eef_pos_base()) / 0.05, -1.0, 1.0)
                self.env.step(act)
                self.record()
                steps += 1
        return float(np.linalg.norm(waypoints[-1] - self.env.eef_pos_base()))

    def _over(self, target: np.ndarray, travel_z: float) -> list[np.ndarray]:
        """Up at the current reach, across at ``travel_z``, then straight down to ``target``:
        the gripper (and what it holds) passes over the other objects, never through them."""
        cur = self.env.eef_pos_base()
        z = max(travel_z, target[2])
        return [np.array([cur[0], cur[1], z]), np.array([target[0], target[1], z]), target]

    def _back(self, travel_z: float) -> list[np.ndarray]:
        """Straight up to ``travel_z``, back over the base, then down to the carry pose."""
        cur = self.env.eef_pos_base()
        z = max(travel_z, cur[2])
        return [np.array([cur[0], cur[1], z]), np.array([CARRY[0], CARRY[1], z]), CARRY]

    def _to_base(self, world: np.ndarray) -> np.ndarray:
        x, y, yaw = self.env.base_pose()
        base_z = self.env.data.xpos[self.env.model.body("mobilebase0_base").id][2]
        d = world - np.array([x, y, base_z])
        c, s = math.cos(yaw), math.sin(yaw)
        return np.array([c * d[0] + s * d[1], -s * d[0] + c * d[1], d[2]])

    def _hold_base(self, pose: np.ndarray) -> None:
        # Arm motions may nudge the base by a hair through contacts; put it back exactly so
        # the planned (dry-run) navigation stays exact.
        self.env.teleport(pose)

    def _free_objects(self) -> dict[str, np.ndarray]:
        """Positions of the objects the disturbance check watches: those in sight on
        receptacles, except balls and round fruit, which may roll on their own."""
        return {
            o["name"]: body_pos(self.env, o["body_name"])
            for o in self.env.world_meta["objects"]
            if o["initial_location"]["kind"] == "receptacle"
            and o["category"] not in SPHERE_COLLIDERS
        }

    def _check_undisturbed(self, before: dict[str, np.ndarray], moved: str) -> None:
        after = self._free_objects()
        for name, pos in before.items():
            shift = after[name] - pos
            if name != moved and (np.linalg.norm(shift[:2]) > NUDGE_XY or abs(shift[2]) > 0.03):
                raise DayFailed(
                    f"handling {moved} disturbed {name} by {np.round(shift, 3).tolist()}"
                )

    def pick(self, leg: _Leg) -> None:
        env, pose = self.env, self.env.base_pose()
        before = self._free_objects()
        obj = body_pos(env, leg.obj)
        half_height = next(o for o in env.world_meta["objects"] if o["name"] == leg.obj)[
            "half_height"
        ]
        # grasp from just above (the magic grasp reaches 0.15 m), travelling high enough to
        # clear the tallest neighbour
        above = self._to_base(obj + np.array([0.0, 0.0, GRASP_ABOVE]))
        travel = self._to_base(obj)[2] - half_height + CLEAR_Z
        self._arm_path(self._over(above, travel), REACH_STEPS)
        name = env.grasp()
        if name != leg.obj:
            env.release()
            raise DayFailed(f"pick of {leg.obj} grasped {name!r}")
        self._arm_path(self._back(travel), RETRACT_STEPS, tol=0.05)
        self._hold_base(pose)
        self._check_undisturbed(before, leg.obj)

    def place(self, leg: _Leg, meta: dict) -> None:
        env, pose = self.env, self.env.base_pose()
        before = self._free_objects()
        held = env.held_body()
        if held is None or env.model.body(held).name != leg.obj:
            raise DayFailed(f"place of {leg.obj}: not holding it")
        offset = body_pos(env, leg.obj) - env.data.site_xpos[env._eef_site]
        target = self._to_base(leg.spot - offset)
        travel = target[2] + 0.1
        err = self._arm_path(self._over(target, travel), REACH_STEPS)
        # hold still before letting go: the arm servos lag their targets, and an object
        # released while still moving tips over or slides off
        for _ in range(HOLD_STEPS):
            env.step(np.zeros(env.action_dim))
            self.record()
        env.release()
        for _ in range(SETTLE_STEPS):
            env.step(np.zeros(env.action_dim))
            self.record()
        self._arm_path(self._back(travel), RETRACT_STEPS, tol=0.05)
        self._hold_base(pose)
        rec = next(r for r in meta["receptacles"] if r["name"] == leg.receptacle)
        obj = next(o for o in meta["objects"] if o["name"] == leg.obj)
        pos = body_pos(env, leg.obj)
        if not _on_top(env, rec, pos, obj["half_height"]):
            raise DayFailed(
                f"{leg.obj} did not come to rest on {leg.receptacle} (reach error {err:.3f} m, "
                f"now at {np.round(pos, 3).tolist()}, spot {np.round(leg.spot, 3).tolist()})"
            )
        self._check_undisturbed(before, leg.obj)


def settle(env: HomeEnv, seconds: float = SETTLE_SECONDS) -> None:
    """Let the house come to rest before the day (and its video) starts: a round object left
    on a slightly uneven top may roll for a while once physics runs."""
    for _ in range(int(seconds * env.control_freq)):
        env.step(np.zeros(env.action_dim))


def run_day(
    env: HomeEnv, knobs: FindingDoryKnobs, rng: np.random.Generator, sink: FrameSink
) -> Day:
    """Plan and act out one day; ``sink(frame_index, rgb)`` receives every frame in order,
    once the whole day succeeded (a failed day renders nothing).

    An idle frame (nothing moved) passes the very array object of the frame before, so a sink
    may reuse work done for it (``rgb is previous``).
    """
    settle(env)
    legs = plan_day(env, knobs, rng)
    planner = _Planner(env)
    spare = knobs.steps - 1 - planner.cost(legs)  # frame 0 is the start pose
    # A short day drops the optional wandering first, then the revisits.
    for optional in ("room", "revisit"):
        if spare < 0:
            legs = [leg for leg in legs if leg.kind != optional]
            spare = knobs.steps - 1 - planner.cost(legs)
    if spare < 0:
        raise DayFailed(
            f"the planned chores need {knobs.steps - 1 - spare} steps, the day has {knobs.steps}"
        )
    # Idle time: before the first chore, and after each placement, where the robot waits by
    # what it just put down (so the video shows each moved object at its new place for a
    # while, as the published days do); what the rounding leaves over ends the day.
    places = [i for i, leg in enumerate(legs) if leg.kind == "place"]
    shares = np.floor(rng.dirichlet(np.ones(len(places) + 1)) * spare).astype(int)
    idle_before = {0: int(shares[0])}
    idle_after = dict(zip(places, shares[1:].tolist(), strict=True))

    runner = _DayRunner(env, knobs, sink)
    runner.record()  # frame 0: the robot at its start pose
    meta = env.world_meta
    interactions: list[Interaction] = []
    visits: list[dict] = []
    for i, leg in enumerate(legs):
        runner.idle(int(idle_before.get(i, 0)))
        start = runner.frame
        runner.drive(leg)
        if leg.kind == "pick":
            assert leg.obj is not None and leg.receptacle is not None and leg.room is not None
            interactions.append(Interaction(leg.obj, leg.receptacle, "", leg.room, ""))
            interactions[-1].pick_start = runner.frame
            runner.pick(leg)
            interactions[-1].pick_end = runner.frame - 1
        elif leg.kind == "place":
            it = interactions[-1]
            it.place_receptacle, it.place_room = str(leg.receptacle), str(leg.room)
            it.place_start = runner.frame
            runner.place(leg, meta)
            it.place_end = runner.frame - 1
            runner.idle(int(idle_after[i]))
        elif leg.kind == "revisit":
            runner.idle(LOOK_STEPS)
            visits.append(
                {
                    "kind": "revisit",
                    "receptacle": leg.receptacle,
                    "room": leg.room,
                    "start": start,
                    "end": runner.frame - 1,
                }
            )
        else:
            visits.append(
                {"kind": "room", "room": leg.room, "start": start, "end": runner.frame - 1}
            )
    runner.idle(knobs.steps - runner.frame)
    runner.replay()
    poses = np.array(runner.poses, dtype=np.float32)
    times = [time_of_day(f, knobs.steps) for f in range(len(poses))]
    return Day(
        poses=poses,
        times=times,
        interactions=interactions,
        visits=visits,
        rgb_renders=runner.rgb_renders,
    )


__all__ = [
    "Day",
    "DayFailed",
    "Interaction",
    "plan_day",
    "run_day",
    "time_of_day",
]
