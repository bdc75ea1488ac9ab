"""Navigation speed on a 20 m x 20 m house (4 x 4 rooms with doorways and furniture), 5 cm cells.

Prints medians of: grid rasterisation, a fresh distance field (against the raw
scipy.sparse.csgraph Dijkstra call on the same graph, measured in this run), a cached field
lookup (ratio to a fresh field), a refined geodesic, and a follower episode.

    .venv/bin/python bench/bench_navigation.py [--repeats 15]
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import mujoco
import numpy as np
from scipy.sparse.csgraph import dijkstra

from recallbench.world.navigation import (
    DiscreteAction,
    GreedyGeodesicFollower,
    NavGrid,
    apply_discrete,
)

ROOM = 5.0
N_ROOMS = 4
WALL = 0.05  # half thickness


def house_xml(seed: int = 0) -> str:
    """MJCF of a 4 x 4 grid of 5 m rooms; every inner wall has a 1 m doorway; 3 furniture
    pieces per room (rotated boxes and cylinders) away from the doorways."""
    rng = np.random.default_rng(seed)
    size = ROOM * N_ROOMS
    geoms = []
    for i in range(N_ROOMS):
        for j in range(N_ROOMS):
            cx, cy = (j + 0.5) * ROOM, (i + 0.5) * ROOM
            geoms.append(
                f'<geom name="floor_{i}_{j}" type="box" pos="{cx} {cy} -0.05" '
                f'size="{ROOM / 2} {ROOM / 2} 0.05"/>'
            )
            for k in range(3):
                x = cx + rng.uniform(-1.5, 1.5)
                y = cy + rng.uniform(-1.5, 1.5)
                if k < 2:
                    yaw = rng.uniform(0, 180)
                    geoms.append(
                        f'<geom name="furn_{i}_{j}_{k}" type="box" pos="{x} {y} 0.4" '
                        f'euler="0 0 {yaw}" size="{rng.uniform(0.2, 0.6)} '
                        f'{rng.uniform(0.2, 0.4)} 0.4"/>'
                    )
                else:
                    geoms.append(
                        f'<geom name="furn_{i}_{j}_{k}" type="cylinder" pos="{x} {y} 0.3" '
                        f'size="{rng.uniform(0.15, 0.35)} 0.3"/>'
                    )

    def wall(name: str, x0: float, y0: float, x1: float, y1: float) -> None:
        cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
        hx, hy = max(abs(x1 - x0) / 2, WALL), max(abs(y1 - y0) / 2, WALL)
        geoms.append(f'<geom name="{name}" type="box" pos="{cx} {cy} 1.25" size="{hx} {hy} 1.25"/>')

    for k in range(N_ROOMS + 1):
        c = k * ROOM
        for m in range(N_ROOMS):
            a, b = m * ROOM, (m + 1) * ROOM
            if k in (0, N_ROOMS):  # outer walls: solid
                wall(f"wall_v_{k}_{m}", c, a, c, b)
                wall(f"wall_h_{k}_{m}", a, c, b, c)
            else:  # inner walls: doorway in the middle
                mid = (a + b) / 2
                wall(f"wall_v_{k}_{m}_a", c, a, c, mid - 0.5)
                wall(f"wall_v_{k}_{m}_b", c, mid + 0.5, c, b)
                wall(f"wall_h_{k}_{m}_a", a, c, mid - 0.5, c)
                wall(f"wall_h_{k}_{m}_b", mid + 0.5, c, b, c)
    assert size == N_ROOMS * ROOM
    return "<mujoco><worldbody>" + "".join(geoms) + "</worldbody></mujoco>"


def median_time(fn: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=15)
    args = ap.parse_args()
    reps = args.repeats

    model = mujoco.MjModel.from_xml_string(house_xml())
    data = mujoco.MjData(model)
    t_grid = median_time(lambda: NavGrid.from_model(model, data), max(3, reps // 5))
    grid = NavGrid.from_model(model, data)
    h, w = grid.navigable.shape
    print(f"grid {h} x {w} cells at {grid.resolution} m, {int(grid.navigable.sum())} navigable")
    print(f"rasterise grid from MjModel      median {t_grid * 1e3:9.2f} ms")

    t = time.perf_counter()
    grid._build_graph()  # once per grid, before the first field
    t_graph = time.perf_counter() - t
    print(f"build 32-neighbour graph (once)          {t_graph * 1e3:9.2f} ms")

    rng = np.random.default_rng(1)
    free = grid.to_world(np.argwhere(grid.navigable))
    targets = iter(free[rng.choice(len(free), size=4 * reps + 10, replace=False)])
    nodes = iter(rng.choice(grid._graph.shape[0], size=reps, replace=False))

    t_raw = median_time(
        lambda: dijkstra(grid._graph, directed=True, indices=[int(next(nodes))], min_only=True),
        reps,
    )
    t_fresh = median_time(lambda: grid.distance_field(next(targets)), reps)
    cached_target = next(targets)
    grid.distance_field(cached_target)
    t_cached = median_time(lambda: grid.distance_field(cached_target), reps * 20)
    print(
        f"raw csgraph dijkstra (same graph) median {t_raw * 1e3:9.2f} ms\n"
        f"fresh distance field             median {t_fresh * 1e3:9.2f} ms"
        f"   ratio to raw dijkstra {t_fresh / t_raw:6.2f}x"
    )
    print(
        f"cached distance field lookup     median {t_cached * 1e6:9.2f} us"
        f"   ratio cached / fresh {t_cached / t_fresh:.2e}"
    )

    pairs = [(next(targets), next(targets)) for _ in range(reps)]
    it = iter(pairs)
    t_geo = median_time(lambda: grid.geodesic(*next(it)), reps)
    print(f"refined geodesic (path + relax)  median {t_geo * 1e3:9.2f} ms")

    follower = GreedyGeodesicFollower(grid)
    episode_times, steps, arrived = [], [], 0
    for a, b in pairs:
        pose = np.array([a[0], a[1], float(rng.uniform(-np.pi, np.pi))])
        t = time.perf_counter()
        n = 0
        for n in range(1, 2001):  # noqa: B007 - n is the step count after the loop
            act = follower.act(pose, b)
            if act == DiscreteAction.STOP:
                break
            pose = apply_discrete(grid, pose, act)
        episode_times.append(time.perf_counter() - t)
        steps.append(n)
        arrived += follower.status == "arrived"
    t_ep = statistics.median(episode_times)
    per_step = statistics.median(np.array(episode_times) / np.array(steps))
    print(
        f"follower episode                 median {t_ep * 1e3:9.2f} ms"
        f"   ({statistics.median(steps):.0f} steps, {per_step * 1e3:.2f} ms/step,"
        f" {arrived}/{len(pairs)} arrived)"
    )


if __name__ == "__main__":
    main()
