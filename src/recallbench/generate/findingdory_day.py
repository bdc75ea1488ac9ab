"""A FindingDory "day": a scripted robot does pick-and-place chores in a built-in home.

The robot only acts through its own actions: FindingDory's discrete moves (MOVE_FORWARD 0.25 m,
TURN 10 deg) chosen by the greedy geodesic follower, and the continuous arm actions plus the
world's magic grasp to pick and place. Every action is one frame of the head-camera video; idle
frames (the robot waits) fill the day up to ``steps`` frames.

The plan is made first (``findingdory_plan``: which object goes where, when the robot wanders,
revisits, and where it walks after its last chore), its length in steps is measured by dry runs
(``findingdory_dry_runs``), and the spare steps are spread as idle time: looking at a receptacle
before picking from it, looking at an object just put down, and resting in rooms between chores.
The clock does not run linearly: each day starts near 06:00, lasts its own number of hours and
changes pace from stretch to stretch (``day_clock``), so a frame's index does not tell its time;
every frame keeps its true time of day.
"""

from __future__ import annotations

import copy
import math
from dataclasses import asdict, dataclass, field

import numpy as np

from recallbench.benchmarks.findingdory.ground_truth import room_of
from recallbench.generate.findingdory_acting import DayActor, FrameSink, settle
from recallbench.generate.findingdory_dry_runs import Planner
from recallbench.generate.findingdory_knobs import FindingDoryKnobs
from recallbench.generate.findingdory_look import capacity, look_offsets, readable_stops
from recallbench.generate.findingdory_plan import (
    LOOK_STEPS,
    DayFailed,
    Leg,
    plan_day,
    room_leg,
    touched,
)
from recallbench.generate.findingdory_views import ViewCheck
from recallbench.world.env import HomeEnv

# The clock: each day starts near 06:00 (minutes after midnight) and lasts 1.5 to 13 hours, as
# val's days do (their ends 2.3-11 h after 06:00, 10th-90th percentile; median 6.6 h) ...
DAY_START_RANGE = (5 * 60 + 30, 6 * 60 + 30)
DAY_SPAN_RANGE = (90, 13 * 60)
# ... and runs in 6..12 stretches whose paces differ by a log-normal factor (sigma below).
PACE_STRETCHES = (6, 12)
PACE_SIGMA = 0.7
# Mean shares of the spare steps: looking before a pick, after a place, resting in rooms.
IDLE_SHARES = np.array([0.3, 0.34, 0.36])
IDLE_CONCENTRATION = 12.0  # how far one day's shares stray from those means
SLOT_CONCENTRATION = 0.35  # a pool's split among its slots: uneven, so chores vary in hour
OPTIONAL_LEGS = ("room", "revisit", "away")  # dropped in this order from a day too short
MAX_EXTRA_ROOMS = 10  # room visits a day of few chores may add to fill its idle time
EXTRA_APART = 0.75  # m an added visit stands from every spot the day walks to
EXTRA_DRAWS = 6  # spots drawn for it before it gives up


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
    clock: dict = field(default_factory=dict)  # the day's start, end and pace segments

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
            "clock": self.clock,
        }


def _minute_text(minute: float) -> str:
    m = int(minute)
    return f"{m // 60:02d}:{m % 60:02d}"


def day_clock(frames: int, rng: np.random.Generator) -> tuple[list[str], dict]:
    """Time of day "HH:MM" of every frame, and the clock's parameters.

    FindingDory's protocol nominally runs the clock linearly from 06:00 to 22:00, though its
    days end when their chores do; here each day draws its start and its length, and the minutes
    per frame change between stretches of the day, so that the time named in a question cannot
    be turned into a frame index without watching the video.
    """
    start = rng.uniform(*DAY_START_RANGE)
    end = start + rng.uniform(*DAY_SPAN_RANGE)
    stretches = int(rng.integers(PACE_STRETCHES[0], PACE_STRETCHES[1] + 1))
    stretches = max(1, min(stretches, frames))
    cuts = np.sort(rng.choice(np.arange(1, frames), size=stretches - 1, replace=False)) \
        if frames > 1 else np.array([], dtype=int)
    pace = rng.lognormal(0.0, PACE_SIGMA, size=stretches)
    per_frame = np.repeat(pace, np.diff(np.concatenate([[0], cuts, [frames]])))
    elapsed = np.concatenate([[0.0], np.cumsum(per_frame)[:-1]])
    minutes = start + (end - start) * elapsed / max(float(np.sum(per_frame)), 1e-9)
    clock = {"start": _minute_text(start), "end": _minute_text(end),
             "stretches": [int(c) for c in cuts], "pace": [round(float(p), 4) for p in pace]}
    return [_minute_text(m) for m in minutes], clock


def time_of_day(frame: int, steps: int) -> str:
    """The nominal clock of FindingDory's protocol (06:00 at frame 0, 22:00 at the end), kept
    for reference: generated days use ``day_clock``."""
    return _minute_text(6 * 60 + frame * 16 * 60 / steps)


def _fit(planner: Planner, legs: list[Leg], steps: int) -> tuple[list[Leg], int]:
    """The legs the day has room for, and its spare steps: a short day drops its optional
    legs (wandering first, then revisits, then the last walk away) or fails clearly."""
    spare = steps - 1 - planner.cost(legs)  # frame 0 is the start pose
    for optional in OPTIONAL_LEGS:
        if spare < 0:
            legs = [leg for leg in legs if leg.kind != optional]
            spare = steps - 1 - planner.cost(legs)
    if spare < 0:
        raise DayFailed(f"the planned chores need {steps - 1 - spare} steps, the day has {steps}")
    return legs, spare


def idle_schedule(
    legs: list[Leg], spare: int, rng: np.random.Generator, floor: int = 0,
    caps: dict[tuple[int, str], int] | None = None,
) -> dict[tuple[int, str], int]:
    """Idle frames per (leg index, "before" | "after"), summing to at most ``spare``.

    Every pick (the robot looks at the receptacle before picking from it), every place (it
    looks at what it put down) and the end of the day first get ``floor`` frames, so that
    each shows in a frame of the subsampled video (the public set's days show every object
    they moved). The rest goes to three pools, their shares drawn around ``IDLE_SHARES``: more
    looking before picks, more looking after places, and resting in the rooms the robot
    wanders into between chores (at the start and the end of the day only when it wanders
    nowhere, since the public set's days start and end with their chores). The rests the plan
    drew before the first chore and after the walks away (``Leg.rest``) come first, from at
    most half of what the floors leave. Each pool is split
    among its slots at random. ``caps`` bounds slots (what a wait can show without repeating
    a view in two offered frames); the excess goes to the pools' other slots."""
    picks, places, ends, rests, extras = _idle_pools(legs)
    floored = picks + places + ends[1:]
    floor = min(floor, spare // max(1, 2 * len(floored)))  # floors take at most half the spare
    out: dict[tuple[int, str], int] = dict.fromkeys(floored, floor)
    left = spare - floor * len(floored)
    left -= _drawn_rests(legs, left, out)
    shares = rng.dirichlet(IDLE_SHARES * IDLE_CONCENTRATION)
    for pool, share in zip((picks, places, rests), shares, strict=True):
        if not pool:
            continue
        split = np.floor(rng.dirichlet(np.full(len(pool), SLOT_CONCENTRATION)) * share * left)
        for slot, extra in zip(pool, split.astype(int).tolist(), strict=True):
            out[slot] = out.get(slot, 0) + extra
    if caps is not None:
        _spill(out, caps, picks + places + rests + extras, legs)
    return out


Slot = tuple[int, str]


def _idle_pools(legs: list[Leg]) -> tuple[list[Slot], list[Slot], list[Slot], list[Slot],
                                          list[Slot]]:
    """The wait slots idle frames go to: before picks, after places, the day's ends (its
    start, after each walk away) and rests (after the planned room visits, else the ends);
    and after the extra room visits, which take only what the others hold beyond their caps."""
    picks = [(i, "before") for i, leg in enumerate(legs) if leg.kind == "pick"]
    places = [(i, "after") for i, leg in enumerate(legs) if leg.kind == "place"]
    ends = [(-1, "after")] + [(i, "after") for i, leg in enumerate(legs) if leg.kind == "away"]
    rests = [(i, "after") for i, leg in enumerate(legs)
             if leg.kind == "room" and not leg.extra] or ends
    extras = [(i, "after") for i, leg in enumerate(legs) if leg.extra]
    return picks, places, ends, rests, extras


def _stretch(legs: list[Leg], slot: Slot) -> str:
    """Which stretch of the day a wait is in: the lead before its first pick, the tail after
    its last placement, else between chores. Frames never move from one to another when
    waits are capped: when the day's chores fall must not change (the public set's days
    first show their first pick's receptacle at offered positions 2-9 and last show their
    last placement's 3-31 positions before the end; an agent that answers by position
    scores when they drift)."""
    first_pick = min(i for i, leg in enumerate(legs) if leg.kind == "pick")
    last_place = max(i for i, leg in enumerate(legs) if leg.kind == "place")
    return "lead" if slot[0] < first_pick else "tail" if slot[0] > last_place else "chores"


def _drawn_rests(legs: list[Leg], left: int, out: dict[tuple[int, str], int]) -> int:
    """Add the rests the plan drew (``Leg.rest``: before the first chore, after each walk away)
    to ``out``, scaled down to at most half of ``left`` (the chores' looks keep the rest);
    the frames given."""
    planned = [leg for leg in legs if not leg.extra]  # the lead is the first planned leg's
    slots = [((-1, "after"), planned[0].rest)] if planned else []
    slots += [((i, "after"), leg.rest) for i, leg in enumerate(legs) if leg.kind == "away"]
    drawn = sum(r for _, r in slots)
    scale = min(1.0, left / 2 / drawn) if drawn else 0.0
    given = 0
    for slot, r in slots:
        out[slot] = out.get(slot, 0) + int(r * scale)
        given += int(r * scale)
    return given


def _spill(out: dict[Slot, int], caps: dict[Slot, int], takers: list[Slot],
           legs: list[Leg]) -> None:
    """Move what slots hold beyond their caps to the slots of their stretch of the day
    (``_stretch``) with room left, in proportion to that room (a wait longer than its cap
    repeats views in offered frames)."""
    stretch_of = {s: _stretch(legs, s) for s in [*out, *takers]}
    for stretch in ("lead", "chores", "tail"):
        _spill_within({s: n for s, n in out.items() if stretch_of[s] == stretch}, out,
                      caps, [s for s in takers if stretch_of[s] == stretch])


def _spill_within(held: dict[Slot, int], out: dict[Slot, int], caps: dict[Slot, int],
                  takers: list[Slot]) -> None:
    over = 0
    for slot, n in held.items():
        over += max(0, n - caps.get(slot, n))
        out[slot] = min(n, caps.get(slot, n))
    room = {slot: caps[slot] - out.get(slot, 0) for slot in dict.fromkeys(takers)
            if caps.get(slot, 0) > out.get(slot, 0)}
    give = min(over, sum(room.values()))
    if give:
        total = sum(room.values())
        given = {slot: give * r // total for slot, r in room.items()}  # < r unless all fit
        rest = give - sum(given.values())
        for slot in sorted(room, key=lambda s: given[s] - room[s])[:rest]:
            given[slot] += 1
        for slot, extra in given.items():
            out[slot] = out.get(slot, 0) + extra
    over -= give
    takers = list(dict.fromkeys(takers)) or list(held)  # a stretch without takers keeps its own
    for k, slot in enumerate(takers if over else []):  # nowhere left: some views repeat
        out[slot] = out.get(slot, 0) + over // len(takers) + (1 if k < over % len(takers) else 0)


def _wait_kind(legs: list[Leg], slot: tuple[int, str]) -> str:
    """What a wait looks at: the focus of a pick (before it), a place or a revisit (after
    it), else the furniture of the room the robot is in."""
    i, side = slot
    kind = legs[i].kind if i >= 0 else "room"
    return kind if (kind == "pick") == (side == "before") else "room"


Stops = dict[tuple[int, str], tuple[list[int], bool]]  # per wait slot: headings, turn back


def _wait_stops(meta: dict, legs: list[Leg], slot: tuple[int, str], pose: np.ndarray,
                check: ViewCheck | None = None, widen: bool = False) -> tuple[list[int], bool]:
    """The headings a wait holds (those ``check`` finds readable; ``widen``: see
    ``look_offsets``; not the first wait's start, which frame 0 shows), and whether it turns
    back to where it started (all but the day's last: the next leg was planned from there)."""
    stops = look_offsets(meta, pose, _wait_kind(legs, slot), widen)
    stops = [s for s in stops if s or slot[0] >= 0] or stops
    if check is not None:
        stops = readable_stops(stops, lambda s: check.readable(pose, s))
    return stops, slot[0] != len(legs) - 1


def plan_waits(env: HomeEnv, legs: list[Leg], knobs: FindingDoryKnobs, spare: int,
               check: ViewCheck | None = None) -> tuple[dict[tuple[int, str], int], Stops]:
    """Per wait slot, the frames it can fill holding no heading for a whole stride of the
    offered frames (so no two offered frames of one wait show the same view), and the
    headings it holds: those whose view is readable (``findingdory_views``), planned from
    the pose the slot's leg ends at. When the focus pans and rests together cannot fill the
    ``spare`` steps (a day of few chores), the focus pans widen to the room's furniture (a
    day that held a few headings for several strides showed a quarter of its offered frames
    twice)."""
    hold = knobs.longest_hold()
    check = check or ViewCheck(env)
    slots = [(-1, "after")] + [(i, side) for i in range(len(legs)) for side in ("before", "after")]
    for widen in (False, True):
        caps, stops = {}, {}
        for slot in slots:
            pose = env.base_pose() if slot[0] < 0 else legs[slot[0]].end
            assert pose is not None  # the planner measured every leg
            stops[slot] = _wait_stops(env.world_meta, legs, slot, pose, check, widen)
            caps[slot] = capacity(stops[slot][0], hold, stops[slot][1])
        if _fits(legs, caps, spare):
            break
    return caps, stops


def _takers(legs: list[Leg]) -> set[Slot]:
    """Every wait slot idle frames may go to (``_idle_pools``)."""
    return set().union(*_idle_pools(legs))


def _fits(legs: list[Leg], caps: dict[Slot, int], spare: int) -> bool:
    """Can the waits idle frames go to fill ``spare`` frames within their caps?"""
    return sum(caps[s] for s in _takers(legs)) >= spare


def _short_stretch(legs: list[Leg], demand: dict[Slot, int], caps: dict[Slot, int],
                   ) -> str | None:
    """The stretch of the day (``_stretch``) whose waits fall furthest short of the frames
    the schedule gives them, None when none does."""
    takers = _takers(legs)
    short: dict[str, int] = {}
    for slot in takers | set(demand):
        stretch = _stretch(legs, slot)
        short[stretch] = short.get(stretch, 0) + demand.get(slot, 0) - \
            (caps.get(slot, 0) if slot in takers else 0)
    worst = max(short, key=lambda k: short[k])
    return worst if short[worst] > 0 else None


def _extra_room(env: HomeEnv, legs: list[Leg], stretch: str, rng: np.random.Generator,
                ) -> tuple[int, Leg] | None:
    """A room visit for ``stretch`` and where it goes: before the first leg (lead: the start
    room), before a pick after the first (chores: the room the robot is in) or last (tail: the
    room walked away to last, on open floor away from what the day touched). It stays in its
    room, so the time per room is as drawn (a tail visit elsewhere showed the chores' places in
    the last frames, where recency answers; visits between chores narrowed Duration Tracking)."""
    names = [r["name"] for r in env.world_meta["rooms"]]
    if stretch == "lead":
        names = [room_of(env.world_meta, env.base_pose()[:2]) or names[0]]
    elif stretch == "tail":
        aways = [x.room for x in legs if x.kind == "away" and x.room is not None]
        last_place = next(x for x in reversed(legs) if x.kind == "place").room
        names = aways[-1:] or [n for n in names if n != last_place] or names
    at = [i for i, x in enumerate(legs) if x.kind == "pick" and x.interaction]
    where = 0 if stretch == "lead" else len(legs) if stretch == "tail" else \
        at[int(rng.integers(len(at)))] if at else None
    if where is None:
        return None
    if stretch == "chores":
        names = [str(legs[where - 1].room)] if legs[where - 1].room else names
    avoid = touched(env, legs) if stretch == "tail" else None
    for _ in range(EXTRA_DRAWS):  # a spot the day already stood at repeats its views
        leg = room_leg(env, names, rng, "room", open_floor=avoid is not None, avoid=avoid)
        if leg is not None and min(float(np.hypot(*(x.goal - leg.goal))) for x in legs) \
                >= EXTRA_APART:
            leg.extra = True
            return where, leg
    return None


def _rooms_to_fill(env: HomeEnv, planner: Planner, legs: list[Leg], spare: int,
                   knobs: FindingDoryKnobs, rng: np.random.Generator, floor: int,
                   ) -> tuple[list[Leg], int, dict[Slot, int], Stops]:
    """The day's legs, spare steps and waits, with up to ``MAX_EXTRA_ROOMS`` more room visits
    while the waits of a stretch of the day cannot fill its frames with new views even
    widened (a day of two chores has six waits: it held their headings for several strides
    each). A visit goes to the stretch furthest short and takes only what its waits hold
    beyond their caps, so the chores keep their times. The schedule is tried on a copy of
    ``rng`` and the visits are drawn from a child of it: a day that needs none is drawn as
    before."""
    check = ViewCheck(env)
    caps, stops = plan_waits(env, legs, knobs, spare, check)
    extra: np.random.Generator | None = None
    for _ in range(MAX_EXTRA_ROOMS):
        stretch = _short_stretch(legs, idle_schedule(legs, spare, copy.deepcopy(rng), floor),
                                 caps)
        if stretch is None:
            break
        extra = extra or rng.spawn(1)[0]
        added = _extra_room(env, legs, stretch, extra)
        if added is None:
            continue
        trial = [*legs[:added[0]], added[1], *legs[added[0]:]]
        left = knobs.steps - 1 - planner.cost(trial)
        if left < 0:
            planner.cost(legs)  # the legs' measured actions, as they were
            break
        legs, spare = trial, left
        caps, stops = plan_waits(env, legs, knobs, spare, check)
    return legs, spare, caps, stops


def _act(actor: DayActor, legs: list[Leg], idle: dict[tuple[int, str], int],
         caps: dict[tuple[int, str], int], stops: Stops,
         ) -> tuple[list[Interaction], list[dict]]:
    """Drive and handle every leg with its waits; the interactions and visits done.

    Arm phases usually take fewer frames than planned (their estimate is an upper bound),
    and the schedule rounds down: what is left over goes to the next waits with room under
    their caps, and the rest to the day's last wait (else the day ended on a long still)."""
    interactions: list[Interaction] = []
    visits: list[dict] = []
    meta, steps = actor.env.world_meta, actor.knobs.steps
    planned = [steps - sum(leg.steps for leg in legs) - sum(idle.values())]  # frame, by plan
    last = (len(legs) - 1, "after")

    def wait(slot: tuple[int, str]) -> None:
        n, planned[0] = idle.get(slot, 0), planned[0] + idle.get(slot, 0)
        slack = planned[0] - n - actor.frame
        if slot == last:
            n = steps - actor.frame
        elif n > 0:
            n += slack if slack < 0 else min(slack, max(0, caps.get(slot, n) - n))
        if n > 0:
            actor.wait(n, *stops[slot])

    wait((-1, "after"))
    for i, leg in enumerate(legs):
        start = actor.frame
        planned[0] += len(leg.actions or [])
        actor.drive(leg)
        wait((i, "before"))
        if leg.kind == "pick":
            assert leg.obj is not None and leg.receptacle is not None and leg.room is not None
            interactions.append(Interaction(leg.obj, leg.receptacle, "", leg.room, ""))
            interactions[-1].pick_start = actor.frame
            actor.pick(leg)
            interactions[-1].pick_end = actor.frame - 1
        elif leg.kind == "place":
            it = interactions[-1]
            it.place_receptacle, it.place_room = str(leg.receptacle), str(leg.room)
            it.place_start = actor.frame
            actor.place(leg, meta)
            it.place_end = actor.frame - 1
        elif leg.kind == "revisit":
            actor.idle(LOOK_STEPS)
            visits.append({"kind": "revisit", "receptacle": leg.receptacle, "room": leg.room,
                           "start": start, "end": actor.frame - 1})
        else:
            visits.append({"kind": leg.kind, "room": leg.room, "start": start,
                           "end": actor.frame - 1})
        planned[0] += leg.steps - len(leg.actions or [])  # its arm phase or look, by plan
        wait((i, "after"))
    return interactions, visits


def run_day(
    env: HomeEnv, knobs: FindingDoryKnobs, rng: np.random.Generator, sink: FrameSink
) -> Day:
    """Plan and act out one day; ``sink(frame_index, rgb)`` receives every frame in order,
    once the whole day succeeded (a failed day renders nothing).

    An idle frame (nothing moved) passes the very array object of the frame before, so a sink
    may reuse work done for it (``rgb is previous``).
    """
    settle(env)
    planner = Planner(env)
    legs, spare = _fit(planner, plan_day(env, knobs, rng), knobs.steps)
    # a look lasts at least 1.5 strides of the subsampled video, so it shows in an offered frame
    floor = math.ceil(1.5 * knobs.steps / knobs.subsample)
    legs, spare, caps, stops = _rooms_to_fill(env, planner, legs, spare, knobs, rng, floor)
    idle = idle_schedule(legs, spare, rng, floor, caps)
    actor = DayActor(env, knobs, sink)
    actor.record()  # frame 0: the robot at its start pose
    interactions, visits = _act(actor, legs, idle, caps, stops)
    actor.idle(knobs.steps - actor.frame)  # what the rounding left over
    actor.replay()
    poses = np.array(actor.poses, dtype=np.float32)
    times, clock = day_clock(len(poses), rng)
    return Day(poses=poses, times=times, interactions=interactions, visits=visits,
               rgb_renders=actor.rgb_renders, clock=clock)


__all__ = ["Day", "DayFailed", "Interaction", "day_clock", "plan_day", "run_day", "time_of_day"]
