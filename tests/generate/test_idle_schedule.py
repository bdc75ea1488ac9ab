"""Where a generated day's spare steps go (``findingdory_day.idle_schedule``).

Looks at what the robot picks from and puts down must each last long enough to show in an
offered frame of the 96-frame video (else "revisit all the objects you interacted with" cannot
be asked), and the day must not start or end with a long rest (the public set's days start and
end with their chores: a long rest at the end made the last frames answer "the room you spent
most time in" for the recency agent).
"""

from __future__ import annotations

import numpy as np

from recallbench.generate.findingdory_day import idle_schedule
from recallbench.generate.findingdory_plan import Leg

GOAL = np.zeros(2)


def _day(interactions: int, rooms: int) -> list[Leg]:
    legs: list[Leg] = []
    for k in range(interactions):
        legs += [Leg("pick", GOAL, None, interaction=k), Leg("place", GOAL, None, interaction=k)]
        if k < rooms:
            legs.append(Leg("room", GOAL, None))
    return legs + [Leg("away", GOAL, None)]


def test_every_look_and_the_day_end_get_the_floor_and_rests_go_to_rooms():
    legs = _day(interactions=6, rooms=2)
    away = len(legs) - 1
    for seed in range(50):
        idle = idle_schedule(legs, spare=3000, rng=np.random.default_rng(seed), floor=63)
        assert sum(idle.values()) <= 3000
        for i, leg in enumerate(legs):
            if leg.kind == "pick":
                assert idle[(i, "before")] >= 63
            if leg.kind == "place":
                assert idle[(i, "after")] >= 63
        assert idle.get((-1, "after"), 0) == 0  # no rest before the first chore
        assert idle[(away, "after")] == 63  # only the floor after the walk away
        rests = sum(idle[(i, "after")] for i, leg in enumerate(legs) if leg.kind == "room")
        assert rests > 0


def test_a_day_without_wandering_rests_at_its_ends_and_a_short_day_shrinks_the_floor():
    legs = _day(interactions=3, rooms=0)
    idle = idle_schedule(legs, spare=2000, rng=np.random.default_rng(0), floor=63)
    assert idle[(-1, "after")] + idle[(len(legs) - 1, "after")] > 63
    tight = idle_schedule(_day(interactions=11, rooms=0), spare=700,
                          rng=np.random.default_rng(0), floor=63)
    assert sum(tight.values()) <= 700
    assert min(v for (i, side), v in tight.items() if i >= 0) >= 700 // (2 * 23)
