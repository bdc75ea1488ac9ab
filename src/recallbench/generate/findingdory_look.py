"""How the robot spends a FindingDory day's waiting time: looking at things.

A wait is spent turning in place with FindingDory's own TURN_LEFT / TURN_RIGHT (10 deg) between
headings worth looking at, and holding each for a while: small pans across what the robot is
about to pick or has just put down, and, resting in a room, the room's furniture. The robot
never rests facing a wall, and since each heading is held for less than the offered frames'
stride, two offered frames of one wait show different views (a still robot repeats its image,
and the 96 offered frames of a long still wait were near-identical).

Pure functions of the pose and the world's metadata: a day's waits are planned before it is
acted (their capacity shapes the idle schedule) and are the same actions when acted.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from recallbench.benchmarks.findingdory.ground_truth import room_of
from recallbench.world.navigation import DiscreteAction

TURN = math.radians(10.0)  # FindingDory's turn step
# Headings (turn steps from the focus the robot faces) held while waiting at a pick, place or
# revisit. A put-down object is a question's target from its placement on, so the wait after a
# place holds it centred and a turn step either side (off-centre by half the 43 deg view at
# 20 deg, it would leave the frame); its three holds are three offered frames of it up close. A
# pick's object is no target before it is put down, so the wait before a pick pans over the
# receptacle and its neighbours (a receptacle stays in view at +-20 deg) and leaves the focus to
# the arm's first frames, which show it.
FOCUS_STOPS = {"pick": [-2, -1, 1, 2], "place": [-1, 0, 1], "revisit": [-2, -1, 0, 1, 2]}
ROOM_SPAN = 12  # turn steps either side of the arrival heading a rest may look at (+-120 deg)
WAIT = None  # a frame the robot holds still


def room_offsets(meta: dict, pose: np.ndarray) -> list[int]:
    """Headings (turn steps from the pose's yaw) toward the furniture of the pose's room."""
    room = room_of(meta, pose[:2])
    points = [np.asarray(e["pos"][:2], dtype=float)
              for e in meta["receptacles"] + meta.get("fixtures", [])
              if room is not None and room_of(meta, np.asarray(e["pos"][:2], dtype=float)) == room]
    out = set()
    for p in points:
        if np.hypot(*(p - pose[:2])) < 0.3:
            continue
        bearing = math.atan2(p[1] - pose[1], p[0] - pose[0]) - pose[2]
        step = round(((bearing + math.pi) % (2 * math.pi) - math.pi) / TURN)
        if abs(step) <= ROOM_SPAN:
            out.add(step)
    return sorted(out)


def look_offsets(meta: dict, pose: np.ndarray, kind: str, widen: bool = False) -> list[int]:
    """Headings worth holding during a wait after (or before) a leg of ``kind``: a pan across
    the focus the robot faces (picks, places, revisits), else the room's furniture (each piece
    also a turn step either side). ``widen``: a focus pan also looks round the room's
    furniture, for days whose focus pans cannot fill their idle time with new views; it keeps
    off the pan's span apart from the pan's own stops (a pick's focus stays the arm's)."""
    focus = FOCUS_STOPS.get(kind)
    if focus is not None and not widen:
        return list(focus)
    # a piece of furniture still fills the view one turn step either side of it
    furniture = {s + d for s in room_offsets(meta, pose) for d in (-1, 0, 1)}
    if focus is not None:
        span = max(abs(s) for s in focus)
        return sorted(set(focus) | {s for s in furniture if abs(s) > span})
    return sorted(furniture) or [0]


def readable_stops(stops: list[int], readable: Callable[[int], bool],
                   span: int = ROOM_SPAN) -> list[int]:
    """The stops whose view ``readable`` accepts (``findingdory_views.ViewCheck``); when it
    accepts none, the nearest accepted heading on each side within ``span`` turn steps (the
    robot looks past a shelf front filling its view up close, or a bare wall); when there is
    none either, the stops as they were."""
    kept = [s for s in stops if readable(s)]
    if kept:
        return kept
    near = [next((side * k for k in range(1, span + 1) if readable(side * k)), None)
            for side in (-1, 1)]
    return [s for s in near if s is not None] or stops


def _path(stops: list[int], back: bool) -> list[int]:
    """Headings visited in order: out to the far end on the side nearer 0, sweep to the other
    end (holding at each stop on the way), and back to 0 when ``back``."""
    lo, hi = min(stops), max(stops)
    far, near = (lo, hi) if abs(hi) <= abs(lo) else (hi, lo)
    order = [near, far]
    if back:
        order.append(0)
    return order


def _turns(path: list[int], start: int = 0) -> int:
    return sum(abs(b - a) for a, b in zip([start, *path], path, strict=False))


def _fill(stops: list[int], frames: int, max_hold: int, back: bool) -> list[int]:
    """``stops`` with the headings the sweep passes between them added, nearest a stop first
    (a piece of furniture fills the view a step or two either side of it), until holding none
    longer than ``max_hold`` fills ``frames``: the day's last wait takes every frame left."""
    spare = [h for h in range(min(stops), max(stops) + 1) if h not in stops]
    spare.sort(key=lambda h: (min(abs(h - s) for s in stops), abs(h)))
    out = list(stops)
    while spare and capacity(out, max_hold, back) < frames:
        out.append(spare.pop(0))
    return sorted(out)


def capacity(stops: list[int], max_hold: int, back: bool = True) -> int:
    """Frames a wait over ``stops`` fills without holding any heading longer than
    ``max_hold`` frames."""
    return _turns(_path(stops, back)) + len(stops) * max_hold


def look_actions(stops: list[int], frames: int, back: bool = True,
                 max_hold: int | None = None) -> list[DiscreteAction | None]:
    """``frames`` actions (a turn or ``WAIT``): out to the stop nearer 0 at one end, a sweep to
    the other end holding each stop once, and back to the starting heading when ``back``. A
    wait too short for the sweep drops the stops farthest from 0 (at worst it holds still).
    A wait that turns back holds its starting heading (stop 0) there, at its end: held on the
    way past, it was seen again on the return (one frame, then the next walk), and an offered
    frame there repeated the held view. Given ``max_hold``, a wait with more frames than its
    stops hold that long also holds the headings between them (``_fill``)."""
    stops = sorted(set(stops))
    while stops and _turns(_path(stops, back)) + len(stops) > frames:
        stops.remove(max(stops, key=lambda s: (abs(s), s)))
    if not stops or stops == [0]:
        return [WAIT] * frames
    if max_hold is not None:
        stops = _fill(stops, frames, max_hold, back)
    path = _path(stops, back)
    near, far = path[0], path[1]
    holds = frames - _turns(path)
    sweep = sorted(stops, reverse=far < near)  # the order the sweep passes the stops in
    hold = {s: holds // len(sweep) + (1 if k < holds % len(sweep) else 0)
            for k, s in enumerate(sweep)}
    out: list[DiscreteAction | None] = []
    heading = 0

    def turn_to(target: int, holding: bool) -> None:
        nonlocal heading
        while heading != target:
            left = target > heading  # TURN_LEFT adds 10 deg of yaw
            heading += 1 if left else -1
            out.append(DiscreteAction.TURN_LEFT if left else DiscreteAction.TURN_RIGHT)
            if holding and heading in hold:
                out.extend([WAIT] * hold.pop(heading))

    last = hold.pop(0, 0) if back and near != 0 else 0  # held on the return instead
    turn_to(near, holding=False)
    out.extend([WAIT] * hold.pop(near))
    turn_to(far, holding=True)
    if back:
        turn_to(0, holding=False)
        out.extend([WAIT] * last)
    return out


__all__ = ["WAIT", "capacity", "look_actions", "look_offsets", "readable_stops", "room_offsets"]
