"""Waits that look at things (``findingdory_look``) and the idle schedule's caps.

A still robot repeats its image: the offered frames (every ~42nd frame of a 4000-step day) of a
long still wait were near-identical, and a rest could face a wall. A wait now sweeps FindingDory's
10-degree turns across what it looks at, holding each heading for less than a stride.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from recallbench.generate.findingdory_day import idle_schedule
from recallbench.generate.findingdory_look import WAIT, capacity, look_actions, room_offsets
from recallbench.generate.findingdory_plan import Leg
from recallbench.world.navigation import DiscreteAction

STEP = {DiscreteAction.TURN_LEFT: 1, DiscreteAction.TURN_RIGHT: -1}


def _headings(actions: list) -> list[int]:
    out, h = [], 0
    for a in actions:
        h += 0 if a is WAIT else STEP[a]
        out.append(h)
    return out


@pytest.mark.parametrize(("stops", "back"), [([-1, 0, 1], True), ([-2, -1, 0, 1, 2], True),
                                             ([3, 5, -4], True), ([2, 7], False), ([-6], False)])
def test_a_wait_holds_every_stop_and_never_a_heading_for_a_stride(stops, back):
    hold = 41
    frames = capacity(stops, hold, back)
    actions = look_actions(stops, frames, back)
    assert len(actions) == frames
    assert all(a is WAIT or a in STEP for a in actions)
    heads = _headings(actions)
    held = {h: sum(1 for a, x in zip(actions, heads, strict=True) if a is WAIT and x == h)
            for h in set(heads)}
    assert {h for h, n in held.items() if n} == set(stops)
    assert max(held.values()) <= hold
    # every frame at one heading lies within one stride, except passing turns
    for h in stops:
        at = [i for i, (a, x) in enumerate(zip(actions, heads, strict=True))
              if x == h and a is WAIT]
        assert at[-1] - at[0] < hold
    if back:
        assert heads[-1] == 0
    else:
        assert heads[-1] in stops


@pytest.mark.parametrize("stops", [[-1, 0, 1], [-2, -1, 0, 1, 2], [-5, 0, 3]])
def test_a_wait_that_turns_back_holds_its_starting_heading_last(stops):
    """Held on the way past, the starting heading was seen again on the return (one frame at
    the wait's end, then the next walk turned away): an offered frame there repeated the held
    view (fin_1 of seed 1: a nightstand's put-down jar three times over). Holding it on the
    return shows it once, at the end."""
    frames = capacity(stops, 41, True)
    actions = look_actions(stops, frames, back=True)
    heads = _headings(actions)
    at_start = [i for i, h in enumerate(heads) if h == 0 and actions[i] is WAIT]
    assert at_start and at_start[-1] == len(actions) - 1
    assert at_start == list(range(at_start[0], len(actions)))  # one stretch, the last


@pytest.mark.parametrize(("stops", "back"), [([-6, -5, 4, 5], False), ([-2, 0, 3], True)])
def test_a_wait_given_more_than_its_stops_hold_holds_the_headings_between_too(stops, back):
    """The day's last wait takes every frame left, beyond its cap: its stops were held for more
    than a stride, and two offered frames showed one view (a day of two chores, seed 1: four
    such pairs in its last 25 offered frames). It holds the headings its sweep passes too."""
    hold = 41
    frames = capacity(stops, hold, back) + 3 * hold
    actions = look_actions(stops, frames, back, max_hold=hold)
    assert len(actions) == frames
    heads = _headings(actions)
    runs, start = [], 0
    for i in range(1, len(actions) + 1):  # stretches of frames at one heading
        if i == len(actions) or heads[i] != heads[start]:
            runs.append(i - start)
            start = i
    assert max(runs) <= hold + 1  # a hold and the turn that arrived there
    assert set(heads) <= set(range(min(stops), max(stops) + 1))  # the same sweep


def test_a_short_wait_drops_the_far_stops_and_a_tiny_one_holds_still():
    actions = look_actions([-4, 0, 1, 9], 12, back=True)
    assert len(actions) == 12 and _headings(actions)[-1] == 0
    assert max(abs(h) for h in _headings(actions)) < 9
    assert look_actions([-1, 0, 1], 3) == [WAIT] * 3


def test_rests_turn_toward_the_rooms_furniture():
    meta = {"rooms": [{"name": "a", "bounds": [0, 0, 4, 4]}, {"name": "b", "bounds": [4, 0, 8, 4]}],
            "receptacles": [{"pos": [2, 3.5, 0]}, {"pos": [3.5, 2, 0]}, {"pos": [6, 2, 0]}],
            "fixtures": []}
    # at (2, 2) facing +x: the right-hand receptacle dead ahead, the other 90 deg to the left;
    # the one in the next room is not looked at
    assert room_offsets(meta, np.array([2.0, 2.0, 0.0])) == [0, 9]


def _day(interactions: int, rooms: int) -> list[Leg]:
    legs: list[Leg] = []
    for k in range(interactions):
        legs += [Leg("pick", np.zeros(2), None, interaction=k),
                 Leg("place", np.zeros(2), None, interaction=k)]
        if k < rooms:
            legs.append(Leg("room", np.zeros(2), None))
    return legs + [Leg("away", np.zeros(2), None)]


def test_caps_move_long_looks_into_rooms_and_keep_the_total():
    legs = _day(interactions=5, rooms=2)
    caps = {(i, side): (130 if legs[i].kind in ("pick", "place") else 900)
            for i in range(len(legs)) for side in ("before", "after")}
    caps[(-1, "after")] = 900
    for seed in range(20):
        free = idle_schedule(legs, 2000, np.random.default_rng(seed), floor=63)
        capped = idle_schedule(legs, 2000, np.random.default_rng(seed), floor=63, caps=caps)
        assert sum(capped.values()) == sum(free.values())
        assert all(n <= caps[slot] for slot, n in capped.items())
        assert all(capped[s] >= 63 for s in free if free[s] >= 63)
        assert capped[(len(legs) - 1, "after")] == 63  # the walk away keeps only its floor


def test_capped_waits_keep_their_frames_in_their_stretch_of_the_day():
    """Frames a wait holds beyond its cap stay in its stretch of the day (the lead before the
    first chore, the chores, the tail after the last placement): moved across, they moved
    the chores' times, and an agent answering with the day's last frames (recency) gained
    on few-chore days, whose waits are over their caps."""
    from recallbench.generate.findingdory_day import _stretch

    legs = _day(interactions=3, rooms=0)  # no room visits: the rests go to the day's ends
    caps = {(i, side): 130 for i in range(-1, len(legs)) for side in ("before", "after")}
    for seed in range(20):
        free = idle_schedule(legs, 3000, np.random.default_rng(seed), floor=63)
        capped = idle_schedule(legs, 3000, np.random.default_rng(seed), floor=63, caps=caps)
        for stretch in ("lead", "chores", "tail"):
            assert sum(n for s, n in capped.items() if _stretch(legs, s) == stretch) == \
                sum(n for s, n in free.items() if _stretch(legs, s) == stretch), (seed, stretch)


# A short real day: one room, two chores, 1200 steps offered as 24 frames (a stride of 52, as
# the 96 offered frames of a 4000-step day are 42 apart).
SHORT = dict(interactions=2, interactions_spread=0, steps=1200, subsample=24, rooms=1,
             width=96, height=128, distractors=4, revisits=1, questions=10)


def _generated_day(tmp_path: Path, knobs: dict, seed: int) -> Path:
    from recallbench.generate.findingdory import generate_episode
    from recallbench.generate.findingdory_knobs import FindingDoryKnobs

    return generate_episode(tmp_path, seed=seed, index=0,
                            knobs=FindingDoryKnobs(**knobs))


def _near_identical_offered(ep: Path, k: int) -> list[int]:
    """The offered positions whose frame is near-identical to another offered frame of the
    day, by the readability audit's own definition (``readability.near_identical``)."""
    import av

    from recallbench.audit.readability import near_identical

    with av.open(str(ep / f"video_{k}.mp4")) as c:
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(video=0)]
    assert len(frames) == k
    return [int(i) for i in np.flatnonzero(near_identical(frames))]


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_short_days_offered_frames_differ_and_the_day_ends_facing_furniture(tmp_path):
    from recallbench.benchmarks.findingdory.annotations import load_episode

    ep = _generated_day(tmp_path, SHORT, seed=3)
    near = _near_identical_offered(ep, 24)
    assert len(near) <= 2, f"offered frames {near} are near-identical to another"
    ann = load_episode(ep)
    # what each offered frame shows, as the generator segments it for the readability audit
    seen = json.loads((ep / "readability.json").read_text())["frames"]
    # the day's end faces furniture (a receptacle or a kitchen fixture, which the questions'
    # entities leave out: a day may end facing a dishwasher): its last two offered frames,
    # a stride apart, both show some
    assert seen[-1]["frame"] == ann.num_frames - 1
    assert all(f["receptacles"] >= 0.001 for f in seen[-2:]), seen[-2:]
    empty = [p for p, f in enumerate(seen) if f["largest"] < 0.001]
    assert len(empty) <= 1, f"offered frames {empty} show no object, receptacle or fixture"


def test_arriving_the_robot_faces_its_target_and_steps_closer_but_not_too_close():
    """The follower aims from its goal cell and stops up to 0.25 m away, so a target could sit
    23 deg off-centre; the robot now turns to it and steps in while that gains ground."""
    import math

    from recallbench.generate.findingdory_dry_runs import APPROACH_MIN, _close_in
    from recallbench.world.navgrid import NavGrid
    from recallbench.world.navigation import apply_discrete

    nav = np.ones((80, 80), dtype=bool)  # 4 x 4 m at 0.05 m
    nav[:, 50:] = False  # a table's inflated footprint from x = 2.5 m on
    grid = NavGrid(nav, (0.0, 0.0), 0.05, 0.2)
    face = np.array([2.9, 2.0])  # an object on the table
    for start in ([1.6, 1.7, 0.2], [1.9, 2.3, -0.4], [2.3, 2.0, 0.0]):
        actions: list[int] = []
        pose = _close_in(grid, np.array(start), face, 0.75, actions)
        replay = np.array(start)
        for a in actions:
            replay = apply_discrete(grid, replay, DiscreteAction(a))
        assert np.allclose(replay, pose)  # the actions reach the pose returned
        bearing = math.atan2(face[1] - pose[1], face[0] - pose[0]) - pose[2]
        assert abs((bearing + math.pi) % (2 * math.pi) - math.pi) <= math.radians(5) + 1e-9
        left = float(np.hypot(*(face - pose[:2])))
        assert APPROACH_MIN <= left <= max(APPROACH_MIN, 0.56 / math.tan(math.radians(50))) + 0.25
        assert left <= float(np.hypot(*(face - np.array(start[:2])))) + 1e-9
        assert grid.is_navigable(pose[:2])


def test_the_wait_after_a_place_holds_the_put_down_object_centred_and_either_side():
    """A put-down object is a target from its placement on: the wait after a place gives it
    three offered frames up close (the focus and a turn step either side), not two off-centre."""
    from recallbench.generate.findingdory_look import look_offsets

    stops = look_offsets({}, np.zeros(3), "place")
    assert stops == [-1, 0, 1]
    actions = look_actions(stops, capacity(stops, 41), back=True)
    heads = _headings(actions)
    held = [h for a, h in zip(actions, heads, strict=True) if a is WAIT]
    assert held.count(0) == held.count(1) == held.count(-1) == 41
    assert 0 not in look_offsets({}, np.zeros(3), "pick")  # the pick's object is no target yet


def test_stepping_in_may_leave_at_an_angle_when_straight_ahead_overshoots():
    """From 0.55 m a straight 0.25 m step would end at 0.30 m, closer than allowed, so the old
    close-in stopped at 0.55 m; a step 40-60 deg off the bearing ends about 0.4 m away, where a
    tabletop object fills ~1.35x the frame."""
    import math

    from recallbench.generate.findingdory_dry_runs import APPROACH_MIN, _close_in
    from recallbench.world.navgrid import NavGrid
    from recallbench.world.navigation import apply_discrete

    nav = np.ones((80, 80), dtype=bool)
    nav[:, 50:] = False  # the table's inflated footprint from x = 2.5 m on
    grid = NavGrid(nav, (0.0, 0.0), 0.05, 0.2)
    face = np.array([2.8, 2.0])
    start = np.array([2.25, 2.0, 0.0])
    actions: list[int] = []
    pose = _close_in(grid, start, face, 0.85, actions)
    replay = start.copy()
    for a in actions:
        replay = apply_discrete(grid, replay, DiscreteAction(a))
    assert np.allclose(replay, pose)
    left = float(np.hypot(*(face - pose[:2])))
    assert APPROACH_MIN <= left <= 0.45
    bearing = math.atan2(face[1] - pose[1], face[0] - pose[0]) - pose[2]
    assert abs((bearing + math.pi) % (2 * math.pi) - math.pi) <= math.radians(5) + 1e-9


ROOMS = {"rooms": [{"name": "a", "bounds": [0, 0, 8, 4]}, {"name": "b", "bounds": [8, 0, 12, 4]}],
         "fixtures": []}


def test_a_widened_pan_adds_the_rooms_furniture_beyond_its_own_span():
    """A day of few chores cannot fill its idle time with focus pans alone (it held a few
    headings for several strides): its pans widen to the room's furniture, and a pick's pan
    still leaves the focus to the arm."""
    from recallbench.generate.findingdory_look import look_offsets

    meta = {**ROOMS, "receptacles": [{"pos": [3.5, 2, 0]}, {"pos": [2, 3.5, 0]},
                                     {"pos": [2, 0.5, 0]}]}
    pose = np.array([2.0, 2.0, 0.0])
    assert look_offsets(meta, pose, "place") == [-1, 0, 1]
    wide = look_offsets(meta, pose, "place", widen=True)
    assert wide == [-10, -9, -8, -1, 0, 1, 8, 9, 10]
    pick = look_offsets(meta, pose, "pick", widen=True)
    assert 0 not in pick and {-2, -1, 1, 2, 9, -9} <= set(pick)
    frames = capacity(wide, 41)
    assert frames > 3 * capacity([-1, 0, 1], 41)


# A real day of two chores: its focus pans hold far fewer frames than its idle time.
FEW_CHORES = dict(interactions=2, interactions_spread=0, steps=4000, subsample=96, rooms=None,
                  width=96, height=128, distractors=4, revisits=0, questions=10)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_a_day_of_few_chores_offers_frames_that_differ(tmp_path):
    near = _near_identical_offered(_generated_day(tmp_path, FEW_CHORES, seed=1), 96)
    assert len(near) <= 9, f"offered frames {near} are near-identical to another"
