"""The ground truth's geodesic distances at a day's frame points (``ground_truth._field_at``)."""

from __future__ import annotations

import numpy as np

from recallbench.benchmarks.findingdory.ground_truth import _field_at
from recallbench.world.navgrid import NavGrid


class CountingGrid(NavGrid):
    """A real grid that counts its snapped look-ups (each costs ~2 ms in a house)."""

    lookups = 0

    def lookup(self, field: np.ndarray, xy: object) -> float:  # type: ignore[override]
        self.lookups += 1
        return super().lookup(field, xy)  # type: ignore[arg-type]


def test_points_in_blocked_cells_are_looked_up_once_per_distinct_point() -> None:
    """A robot turning on the spot beside furniture repeats its point for many frames: a day's
    553 frames in blocked cells were 25 points, and looking each frame up cost half the day."""
    nav = np.ones((80, 80), dtype=bool)  # 4 x 4 m at 0.05 m
    nav[:, 50:] = False  # a table's inflated footprint from x = 2.5 m on
    grid = CountingGrid(nav, (0.0, 0.0), 0.05, 0.2)
    field = grid.distance_field(np.array([0.5, 0.5]))
    near_table = [[2.52, 1.0], [2.6, 2.0], [2.55, 3.1]]  # blocked cells
    free = [[1.0, 1.0], [2.0, 3.0]]
    xy = np.array(near_table * 20 + free * 3 + near_table[:1] * 5)
    got = _field_at(grid, field, xy)
    assert grid.lookups == len(near_table)
    expected = [grid.lookup(field, p) if not grid.is_navigable(p) else None for p in xy]
    for value, want, p in zip(got, expected, xy, strict=True):
        if want is None:  # a free cell: the cell's own value
            i, j = grid.to_cell(p)
            assert value == field[i, j]
        else:
            assert value == want and np.isfinite(value)
