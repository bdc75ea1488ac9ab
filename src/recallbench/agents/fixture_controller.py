"""The hierarchical agents' scripted controller: an oracle skill handed out one action at a
time (``SkillDriver``), opening a fixture and staying close (``open_fixture``), and opening
fixtures nearest first (``FixtureSearch``, also the memoryless search baseline's).

The skills are the generator's oracle's (``world.skills.Oracle``): generators of 12-dim actions,
so an agent using them acts through the normal action interface only."""

from __future__ import annotations

import math
from collections.abc import Generator, Sequence
from typing import Any

import numpy as np

ACTION_DIM = 12


class SkillDriver:
    """Hands out the actions of an oracle skill one at a time."""

    def __init__(self, env: Any) -> None:
        from recallbench.world.skills import Oracle

        if not hasattr(env, "nav_grid") or not hasattr(env, "world_meta"):
            raise TypeError("the scripted controller needs the built-in world (HomeEnv)")
        self.oracle = Oracle(env)
        self._skill: Generator[np.ndarray, None, Any] | None = None
        self.results: list[Any] = []

    def start(self, skill: Generator[np.ndarray, None, Any]) -> None:
        self._skill = skill

    @property
    def busy(self) -> bool:
        return self._skill is not None

    def step(self) -> np.ndarray | None:
        """The running skill's next action, or None when no skill is running any more."""
        if self._skill is None:
            return None
        try:
            return np.asarray(next(self._skill), dtype=float)
        except StopIteration as stop:
            self.results.append(stop.value)
            self._skill = None
            return None


STANDOFF = 1.0  # m in front of the fixture body: inside SceneMem's 1.2 m approach distance
# Opening angles just past the card's 0.5 test: a door opened wide can keep the base from the
# fixture (a bottom-hinged door drops toward the robot).
OPEN_ANGLE = {"side": 0.9, "bottom": 0.6, "slide": 0.38}


def open_fixture(
    oracle: Any, fixture_name: str, joint: str | None = None
) -> Generator[np.ndarray, None, bool]:
    """The oracle's skills composed: open the fixture's door named by ``joint`` (else its first;
    a sink's handle is turned), then ``approach`` it, since the work pose for a wide door can
    stand farther from the fixture than SceneMem's approach distance. Where ``approach`` finds no
    pose clear of the opened door (bottom-hinged oven and dishwasher doors), drive straight to
    ``STANDOFF`` in front of the body: the base may nudge the door, which stays past the opening
    threshold. Returns whether the fixture was opened and approached."""
    env = oracle.env
    fx = env.fixture(fixture_name)
    if fx["type"] == "sink":
        opened = yield from oracle.turn_sink(fixture_name)
    else:
        door = next((d for d in fx["doors"] if d["joint"] == joint), fx["doors"][0])
        angle = OPEN_ANGLE[oracle.hinge_kind(door)]
        opened = yield from oracle.open_door(fixture_name, door["name"], angle=angle)
    near = yield from oracle.approach(fixture_name)
    if not near.success:
        body = oracle.body_pos(fx["body_name"])[:2]
        facing = float(fx["yaw"]) + math.pi / 2  # a fixture's front faces yaw + pi/2
        goal = env.nav_grid.snap(body + STANDOFF * np.array([math.cos(facing),
                                                             math.sin(facing)]))
        near = yield from oracle.navigate_to((goal[0], goal[1], fx["approach_pose"][2]),
                                             pos_tol=0.05)
    return bool(opened.success and near.success)


def idle_action() -> np.ndarray:
    """Stand still with the gripper open."""
    a = np.zeros(ACTION_DIM)
    a[6] = -1.0
    return a


def nearest_fixture(env: Any, fixtures: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The fixture whose approach pose is geodesically nearest the robot (None if none)."""
    grid = env.nav_grid
    here = env.base_pose()[:2]
    best, best_d = None, math.inf
    for f in fixtures:
        goal = grid.snap(np.asarray(f["approach_pose"][:2], dtype=float))
        d = grid.geodesic(here, goal)
        if d < best_d:
            best, best_d = f, d
    return best


class FixtureSearch:
    """Opens fixtures one after another, nearest first (geodesic, re-ranked after each), once
    the driver's current skill has ended; ``first`` names fixtures searched before the rest."""

    def __init__(self, driver: SkillDriver, fixtures: list[dict[str, Any]],
                 first: Sequence[str] = ()) -> None:
        self.driver, self.todo, self.first = driver, list(fixtures), set(first)
        self.visited: list[str] = []

    def next_action(self, env: Any) -> np.ndarray:
        while True:
            action = self.driver.step()
            if action is not None:
                return action
            pool = [f for f in self.todo if f["name"] in self.first] or self.todo
            nxt = nearest_fixture(env, pool) if pool else None
            if nxt is None:  # all opened, or the rest cannot be reached from here
                self.todo = []
                return idle_action()
            self.todo.remove(nxt)
            self.visited.append(nxt["name"])
            self.driver.start(open_fixture(self.driver.oracle, nxt["name"]))
