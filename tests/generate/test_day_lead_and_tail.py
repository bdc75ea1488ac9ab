"""A generated day's chores must not start and end at the same offered positions every day.

Days that always began with the first pick (its receptacle in view at offered position ~1) and
always ended two strides after the last placement let agents that never watch the video answer
"revisit all the receptacles you picked objects from" by position alone: at 18 episodes the
blind and time-prior agents scored 8% on Multi-Goal against val's 1.3%. In the public val set the
first pick's receptacle is first seen at offered positions 2 / 2.75 / 4 / 6 / 9 and the last
placement's receptacle last seen at 63.8 / 76.75 / 85 / 90 / 92 (10th..90th percentile of the
"revisit all the receptacles you picked objects from / placed objects on" answers): the plan
draws the other activity before the first chore and after the last per day (``Leg.rest``).
"""

from __future__ import annotations

import numpy as np
import pytest

from recallbench.generate.findingdory_day import idle_schedule
from recallbench.generate.findingdory_knobs import FindingDoryKnobs
from recallbench.generate.findingdory_plan import Leg, plan_day

KNOBS = FindingDoryKnobs(interactions=6, interactions_spread=0)
LEG_STEPS = 60  # each leg's driving and arm (a typical measured leg; no dry runs here)
DAYS = 24


def _position(frame: int) -> float:
    return frame * (KNOBS.subsample - 1) / (KNOBS.steps - 1)


@pytest.fixture(scope="module")
def days() -> list[tuple[float, float]]:
    """Per planned day: the offered position the robot reaches its first pick at, and the one
    its look at the last placement ends at."""
    from recallbench.world.env import HomeEnv

    env = HomeEnv(seed=3, style=0, kind="home", n_objects=14)
    out = []
    for day in range(DAYS):
        legs = plan_day(env, KNOBS, np.random.default_rng([day, 0]))
        for leg in legs:
            leg.steps = LEG_STEPS
        spare = KNOBS.steps - 1 - LEG_STEPS * len(legs)
        idle = idle_schedule(legs, spare, np.random.default_rng([day, 1]), floor=63)
        t, first, last = 1 + idle.get((-1, "after"), 0), None, 0
        for i, leg in enumerate(legs):
            t += leg.steps
            if leg.kind == "pick" and first is None:
                first = t - LEG_STEPS // 3  # arrived; the arm has not started
            t += idle.get((i, "before"), 0) + idle.get((i, "after"), 0)
            if leg.kind == "place":
                last = t
        assert first is not None
        out.append((_position(first), _position(last)))
    env.close()
    return out


def test_the_first_chore_does_not_start_at_the_same_position_every_day(days):
    first = np.array([f for f, _ in days])
    low, mid, high = np.percentile(first, [10, 50, 90])
    assert low <= 2.5  # some days start their chores at once, as val's do
    assert mid >= 2.0 and high >= 5.0  # others later (val: median 4, 90th percentile 9)
    assert high <= 14.0


def test_the_last_placement_is_not_always_just_before_the_end(days):
    last = np.array([end for _, end in days])
    q25, q90 = np.percentile(last, [25, 90])
    assert q25 <= 86.0  # val: 76.75; every day ended at ~92 before
    assert q90 >= 86.0  # some days still end soon after it (val: 92)
    assert last.min() >= 40.0


def test_drawn_rests_never_take_more_than_half_of_a_short_days_spare():
    goal = np.zeros(2)
    legs = [Leg("pick", goal, None, interaction=0, rest=3000),
            Leg("place", goal, None, interaction=0), Leg("room", goal, None),
            Leg("away", goal, None, rest=3000)]
    idle = idle_schedule(legs, spare=700, rng=np.random.default_rng(0), floor=63)
    assert sum(idle.values()) <= 700
    drawn = idle[(-1, "after")] + idle[(3, "after")] - 63  # the walk away's look has a floor
    assert 0 < drawn <= (700 - 3 * 63) / 2
    assert idle[(0, "before")] >= 63 and idle[(1, "after")] >= 63


def test_the_day_ends_on_open_floor_not_against_furniture():
    """The walks away at the day's end stop at a point drawn on a room's free floor. Snapping
    a point drawn inside a piece of furniture onto its front stood the robot against it, at
    its viewpoint: in homes lined with cabinets and chests, "a chest of drawers you did not
    interact with" was then met in the day's last frames, and an agent answering with them
    passed val's Conditional Interaction rate at 18 days (4.0-4.8% against 3.6%). Snapped,
    27% of the spots of seed 0's rooms are at the edge of the free space; drawn on the free
    floor, about 5%."""
    from scipy.ndimage import distance_transform_edt

    from recallbench.generate.findingdory_plan import room_leg
    from recallbench.world.env import HomeEnv

    env = HomeEnv(seed=0, style=0, kind="home")
    try:
        grid = env.nav_grid
        cells_from_edge = distance_transform_edt(grid.navigable)
        rooms = [r["name"] for r in env.world_meta["rooms"]]
        rng = np.random.default_rng(1)
        spots = [room_leg(env, rooms, rng, "away", open_floor=True) for _ in range(300)]
        aways = [leg for day in range(12)
                 for leg in plan_day(env, KNOBS, np.random.default_rng([day, 0]))
                 if leg.kind == "away"]
    finally:
        env.close()

    def at_edge(legs: list) -> float:
        return float(np.mean([cells_from_edge[grid.to_cell(leg.goal)] <= 1 for leg in legs]))

    goals = [leg for leg in spots if leg is not None]
    assert len(goals) >= 290 and all(grid.is_navigable(leg.goal) for leg in goals)
    assert at_edge(goals) < 0.12, f"{at_edge(goals):.0%} of the spots are against furniture"
    assert aways and all(grid.is_navigable(leg.goal) for leg in aways)
    assert at_edge(aways) < 0.2


def test_the_day_ends_away_from_what_it_touched():
    """The walks at the day's end stop, of the free points drawn, at the one farthest from
    the receptacles and spots the day picked from and put on: standing near them, the last
    frames met "the object you picked from the chest of drawers" (object goals hold within
    2 m), and an agent answering with the last frames scored 5.6% on Conditional Interaction at
    18 days of seed 1 against val's limit of 3.6% (1.6% since)."""
    from recallbench.generate.findingdory_plan import room_leg, touched
    from recallbench.world.env import HomeEnv

    env = HomeEnv(seed=0, style=0, kind="home")
    try:
        def area(r: dict) -> float:
            x0, y0, x1, y1 = r["bounds"]
            return (x1 - x0) * (y1 - y0)

        room = max(env.world_meta["rooms"], key=area)
        x0, y0, x1, y1 = room["bounds"]
        centre = np.array([[(x0 + x1) / 2, (y0 + y1) / 2]])
        rng = np.random.default_rng(2)
        far = [room_leg(env, [room["name"]], rng, "away", open_floor=True, avoid=centre)
               for _ in range(40)]
        plain = [room_leg(env, [room["name"]], rng, "away", open_floor=True) for _ in range(40)]
        legs = plan_day(env, KNOBS, np.random.default_rng([0, 0]))
        spots = touched(env, legs)
    finally:
        env.close()

    def apart(legs: list) -> np.ndarray:
        return np.array([float(np.hypot(*(leg.goal - centre[0]))) for leg in legs if leg])

    assert apart(far).min() > 1.0 and np.median(apart(far)) > np.median(apart(plain)) + 0.5
    # every pick and place of the day is among the points its end keeps away from
    n = sum(leg.kind in ("pick", "place") for leg in legs)
    assert len(spots) >= n and spots.shape[1] == 2
