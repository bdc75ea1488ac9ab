"""The kitchen run: a row of fixtures along one kitchen wall (fridge tower, drawer unit,
dishwasher, sink, oven, a counter with microwave and toaster oven), counter tops, upper cabinets
and a backsplash. The seed's generator picks the order and the cabinets' places."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import mujoco
import numpy as np

from recallbench.world import fixtures as fx
from recallbench.world import furniture as fu
from recallbench.world.layout import WALL_THICKNESS, Layout
from recallbench.world.mjcf import box, r4
from recallbench.world.robot import BASE_RADIUS
from recallbench.world.slots import Slot, local_to_world
from recallbench.world.styles import Style

COUNTER_Z = 0.9
MICROWAVE_Y = 0.12
TOASTER_Y = 0.2
UNIT_WIDTHS = {
    "fridge": 0.8,
    "drawer": 0.6,
    "dishwasher": 0.6,
    "sink": 0.9,
    "oven": 0.76,
    "counter": 1.3,
}
# a placed receptacle: (its record, world position of its root, yaw)
Placed = tuple[fu.ReceptacleInfo, Sequence[float], float]


@dataclass
class KitchenRun:
    """Where the run stands (its frame: x along the wall, y out of it) and each unit's span."""

    origin: tuple[float, float, float]
    yaw: float
    spans: dict[str, tuple[float, float]]
    length: float
    local_x: dict[str, float] = field(default_factory=dict)  # fixture name -> x along the run

    def at(self, local: Sequence[float]) -> tuple[float, float, float]:
        """A point in the run's frame, in world coordinates."""
        return local_to_world(self.origin, self.yaw, local)

    def mid(self, unit: str) -> float:
        """x of a unit's centre along the run."""
        return (self.spans[unit][0] + self.spans[unit][1]) / 2


def build_kitchen(
    spec: mujoco.MjSpec,
    rng: np.random.Generator,
    layout: Layout,
    st: Style,
    slots: list[Slot],
    fixtures: list[fx.FixtureInfo],
    recs: list[Placed],
) -> KitchenRun:
    """Build the run into ``spec``; appends its fixtures, counter-top receptacles and their
    slots to the lists given."""
    run = _plan_run(rng, layout)
    world = spec.worldbody
    _base_units(world, run, st, fixtures)
    _counter_tops(world, run, st, slots, recs)
    b1, b2 = _upper_cabinets(world, rng, run, st, fixtures)
    bs = world.add_body(
        name="backsplash",
        pos=r4(run.at((run.length / 2, 0, 0))),
        quat=r4([math.cos(run.yaw / 2), 0, 0, math.sin(run.yaw / 2)]),
    )
    box(bs, None, (0, 0.004, 1.17), (run.length / 2, 0.004, 0.27), (0.92, 0.92, 0.9, 1), (0, 0))
    # fixture slots and approach poses
    cm = run.mid("counter")
    run.local_x = {
        "fridge": run.mid("fridge"),
        "freezer": run.mid("fridge"),
        "drawer_1": run.mid("drawer"),
        "dishwasher": run.mid("dishwasher"),
        "sink": run.mid("sink"),
        "oven": run.mid("oven"),
        "microwave": cm - 0.33,
        "toaster_oven": cm + 0.36,
        "cab_1": run.mid(b1),
        "cab_2": run.mid(b2),
    }
    for f in fixtures:
        f.approach_local = (run.local_x[f.name], 0.62 + 0.4 + BASE_RADIUS)
    return run


def _plan_run(rng: np.random.Generator, layout: Layout) -> KitchenRun:
    """Which wall, and the order of the units along it (the fridge at one end)."""
    x0, y0, x1, y1 = layout.room("kitchen").bounds
    inner = WALL_THICKNESS / 2
    if layout.kitchen_wall == "south":
        origin, yaw = (x0 + inner + 0.05, y0 + inner, 0.0), 0.0
    else:
        origin, yaw = (x1 - inner - 0.05, y1 - inner, 0.0), math.pi
    units = [str(u) for u in rng.permutation(["drawer", "dishwasher", "sink", "oven", "counter"])]
    units = ["fridge", *units] if rng.random() < 0.5 else [*units, "fridge"]
    spans: dict[str, tuple[float, float]] = {}
    cursor = 0.0
    for u in units:
        spans[u] = (cursor, cursor + UNIT_WIDTHS[u])
        cursor += UNIT_WIDTHS[u]
    return KitchenRun(origin, yaw, spans, cursor)


def _base_units(
    world: mujoco.MjsBody, run: KitchenRun, st: Style, fixtures: list[fx.FixtureInfo]
) -> None:
    """The floor-standing units, and the appliances on the counter."""
    at, mid, yaw, widths = run.at, run.mid, run.yaw, UNIT_WIDTHS
    name = "kitchen"
    fixtures.extend(fx.fridge_tower(world, name, at((mid("fridge"), 0, 0)), yaw, st))
    fixtures.append(
        fx.drawer_unit(
            world, "drawer_1", name, at((mid("drawer"), 0, 0)), yaw, st, widths["drawer"]
        )
    )
    fixtures.append(
        fx.dishwasher(world, "dishwasher", name, at((mid("dishwasher"), 0, 0)), yaw, st)
    )
    fixtures.append(fx.sink(world, "sink", name, at((mid("sink"), 0, 0)), yaw, st, widths["sink"]))
    fixtures.append(fx.oven(world, "oven", name, at((mid("oven"), 0, 0)), yaw, st))
    fx.base_counter(world, "counter_base", at((mid("counter"), 0, 0)), yaw, st, widths["counter"])
    cm = mid("counter")
    fixtures.append(
        fx.microwave(world, "microwave", name, at((cm - 0.33, MICROWAVE_Y, COUNTER_Z)), yaw, st)
    )
    fixtures.append(
        fx.toaster_oven(
            world, "toaster_oven", name, at((cm + 0.36, TOASTER_Y, COUNTER_Z + 0.02)), yaw, st
        )
    )


def _counter_tops(
    world: mujoco.MjsBody, run: KitchenRun, st: Style, slots: list[Slot], recs: list[Placed]
) -> None:
    """Counter tops over the drawer, dishwasher and appliance counter; the first two are
    receptacles (the appliances take the third)."""
    at, mid, yaw, name = run.at, run.mid, run.yaw, "kitchen"
    for k, u in enumerate(("drawer", "dishwasher", "counter"), start=1):
        w = UNIT_WIDTHS[u]
        body = world.add_body(
            name=f"counter_{k}_main",
            pos=r4(at((mid(u), 0, 0))),
            quat=r4([math.cos(yaw / 2), 0, 0, math.sin(yaw / 2)]),
        )
        box(body, f"counter_{k}_g", (0, 0.31, COUNTER_Z - 0.02), (w / 2, 0.31, 0.02), st.counter)
        if u == "counter":
            continue  # the appliances take this top
        half = (w / 2 - 0.08, 0.2)
        top = (0.0, 0.34, COUNTER_Z)
        body.add_site(
            name=f"counter_{k}_top",
            pos=r4((0, 0.34, COUNTER_Z + 0.05)),
            size=r4((half[0], half[1], 0.05)),
            type=mujoco.mjtGeom.mjGEOM_BOX,
            rgba=[0, 0, 1, 0.2],
            group=4,
        )
        rec = fu.ReceptacleInfo(
            f"counter_{k}", "counter", name, body.name, f"counter_{k}_top", top, half
        )
        recs.append((rec, at((mid(u), 0, 0)), yaw))
        slots.append(
            Slot("receptacle", rec.name, name, at((mid(u), 0.34, COUNTER_Z)), yaw, half, 0.15)
        )


def _upper_cabinets(
    world: mujoco.MjsBody,
    rng: np.random.Generator,
    run: KitchenRun,
    st: Style,
    fixtures: list[fx.FixtureInfo],
) -> tuple[str, str]:
    """The double cabinet over the sink or counter, the single elsewhere, not overlapping;
    returns the units under them (single, double)."""
    at, mid, yaw, name = run.at, run.mid, run.yaw, "kitchen"
    b2 = str(rng.choice(["sink", "counter"]))
    c2 = (mid(b2) - 0.45, mid(b2) + 0.45)
    choices = [
        u
        for u in ("drawer", "dishwasher", "oven", "sink", "counter")
        if u != b2 and (mid(u) + 0.3 < c2[0] - 0.02 or mid(u) - 0.3 > c2[1] + 0.02)
    ]
    b1 = str(rng.choice(choices))
    fixtures.append(fx.cabinet(world, "cab_1", name, at((mid(b1), 0, 1.45)), yaw, st, 0.6, False))
    fixtures.append(fx.cabinet(world, "cab_2", name, at((mid(b2), 0, 1.45)), yaw, st, 0.9, True))
    return b1, b2


def fixture_y(name: str) -> float:
    """Distance of a fixture's root from the wall (appliances stand forward on the counter)."""
    return {"microwave": MICROWAVE_Y, "toaster_oven": TOASTER_Y}.get(name, 0.0)


def fixture_z(name: str) -> float:
    """Height of a fixture's root above the floor."""
    return {
        "freezer": 1.26,
        "microwave": COUNTER_Z,
        "toaster_oven": COUNTER_Z + 0.02,
        "cab_1": 1.45,
        "cab_2": 1.45,
    }.get(name, 0.0)
