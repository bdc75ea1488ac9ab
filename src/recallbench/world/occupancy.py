"""The occupancy half of the navigation grid: cells, which are navigable, and straight-line
queries (is a segment free, how far it gets, the nearest free point); saved as ``.npz``.

Cell (i, j) is row i (y) and column j (x); it covers
``[origin + (j, i) * resolution, origin + (j + 1, i + 1) * resolution)`` and is represented by its
centre. A cell is navigable when its centre is on the floor, at least ``robot_radius`` from every
obstacle footprint and from the floor's edge: the grid is the robot centre's free space.
Geodesic queries are added by ``navgrid.NavGrid``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from recallbench.errors import InputError
from recallbench.world.geometry import Footprint
from recallbench.world.nav_footprints import model_footprints
from recallbench.world.nav_lattice import XY, segment_trace

if TYPE_CHECKING:  # mujoco is imported lazily: this module must stay cheap to import
    import mujoco
    from typing_extensions import Self  # typing.Self needs Python 3.11


def _ndimage() -> ModuleType:
    """scipy.ndimage, imported on first use: most commands that import the world never build a
    map, and the import costs about a third of a second."""
    from scipy import ndimage

    return ndimage


class OccupancyGrid:
    """Occupancy grid of the floor, inflated by the robot radius; straight-line queries."""

    origin: np.ndarray
    resolution: float
    robot_radius: float
    navigable: np.ndarray

    def __init__(
        self,
        navigable: np.ndarray,
        origin: XY,
        resolution: float,
        robot_radius: float,
    ) -> None:
        nav = np.array(navigable, dtype=bool)  # a private copy: it is frozen below
        if nav.ndim != 2:
            raise ValueError(f"navigable must be 2-D, got shape {nav.shape}")
        if resolution <= 0:
            raise ValueError(f"resolution must be positive, got {resolution}")
        self.navigable = nav
        self.navigable.flags.writeable = False  # cached fields depend on it
        self.origin = np.asarray(origin, dtype=float).reshape(2)
        self.resolution = float(resolution)
        self.robot_radius = float(robot_radius)
        self._nearest: np.ndarray | None = None  # per cell, its nearest navigable cell (snap)
        self._clear: np.ndarray | None = None  # per cell, cells to the nearest blocked one


    # ----------------------------------------------------------------- construction
    @classmethod
    def from_model(
        cls,
        model: mujoco.MjModel,
        data: mujoco.MjData,
        *,
        resolution: float = 0.05,
        robot_radius: float = 0.3,
        z_band: tuple[float, float] = (0.05, 1.8),
        floor_geom_prefix: str = "floor",
        ignore_body_prefixes: tuple[str, ...] = ("mobilebase0", "robot0", "gripper0"),
        ignore_free_bodies: bool = True,
    ) -> Self:
        """Rasterise a compiled model's floor plan at the configuration in ``data``.

        Floor = union of the xy footprints of geoms whose name starts with ``floor_geom_prefix``.
        Obstacles = every other geom whose vertical extent overlaps ``z_band``, except geoms of
        bodies (or descendants of bodies) named with an ignored prefix or, by default, carrying a
        free joint (movable objects). Planes are never obstacles.
        """
        floors, obstacles = model_footprints(
            model,
            data,
            z_band=z_band,
            floor_geom_prefix=floor_geom_prefix,
            ignore_body_prefixes=ignore_body_prefixes,
            ignore_free_bodies=ignore_free_bodies,
        )
        if not floors:
            raise ValueError(f"no geom named {floor_geom_prefix!r}* found: cannot build a floor")
        return cls.from_footprints(
            floors, obstacles, resolution=resolution, robot_radius=robot_radius
        )

    @classmethod
    def from_footprints(
        cls,
        floors: Sequence[Footprint],
        obstacles: Sequence[Footprint],
        *,
        resolution: float = 0.05,
        robot_radius: float = 0.3,
    ) -> Self:
        """Grid from explicit floor and obstacle footprints (convex polygons or stadiums)."""
        lo = np.min([f.bounds[:2] for f in floors], axis=0)
        hi = np.max([f.bounds[2:] for f in floors], axis=0)
        pad = 2 * resolution
        origin = lo - pad
        width = int(math.ceil((hi[0] - lo[0] + 2 * pad) / resolution))
        height = int(math.ceil((hi[1] - lo[1] + 2 * pad) / resolution))
        floor = np.zeros((height, width), dtype=bool)
        blocked = np.zeros((height, width), dtype=bool)
        for f in floors:
            f.rasterise(floor, origin, resolution, margin=0.0)
        for ob in obstacles:
            ob.rasterise(blocked, origin, resolution, margin=robot_radius)
        # Distance from a floor centre to the floor's edge is about half a cell less than to
        # the nearest off-floor centre.
        edge = _ndimage().distance_transform_edt(floor) * resolution - resolution / 2
        navigable = floor & ~blocked & (edge >= robot_radius)
        return cls(navigable, origin, resolution, robot_radius)

    def with_clearance(self, extra: float) -> Self:
        """A copy whose free space keeps ``extra`` metres more away from every obstacle."""
        if extra <= 0:
            return self
        edge = _ndimage().distance_transform_edt(self.navigable) * self.resolution
        nav = self.navigable & (edge - self.resolution / 2 >= extra)
        return type(self)(nav, self.origin, self.resolution, self.robot_radius + extra)


    # ----------------------------------------------------------------- coordinates
    @property
    def shape(self) -> tuple[int, int]:
        return self.navigable.shape  # type: ignore[return-value]

    def to_cell(self, xy: XY) -> tuple[int, int]:
        """(row, col) of the cell containing ``xy``; may lie outside the grid."""
        u = (float(xy[0]) - self.origin[0]) / self.resolution
        v = (float(xy[1]) - self.origin[1]) / self.resolution
        return int(math.floor(v)), int(math.floor(u))

    def to_world(self, ij: Sequence[int] | np.ndarray) -> np.ndarray:
        """World xy of a cell's centre; ``ij`` may be one (row, col) or an (N, 2) array."""
        a = np.asarray(ij, dtype=float)
        return self.origin + (a[..., ::-1] + 0.5) * self.resolution

    def in_bounds(self, ij: tuple[int, int]) -> bool:
        h, w = self.shape
        return 0 <= ij[0] < h and 0 <= ij[1] < w

    def is_navigable(self, xy: XY) -> bool:
        ij = self.to_cell(xy)
        return self.in_bounds(ij) and bool(self.navigable[ij])

    def _clearance(self) -> np.ndarray:
        """Per cell, the chessboard distance (cells) to the nearest blocked cell or the grid's
        edge: every cell nearer than that is navigable (0 on blocked cells)."""
        if self._clear is None:
            padded = np.zeros((self.shape[0] + 2, self.shape[1] + 2), dtype=bool)
            padded[1:-1, 1:-1] = self.navigable
            dist = _ndimage().distance_transform_cdt(padded, metric="chessboard")[1:-1, 1:-1]
            self._clear = dist
        return self._clear

    def segment_free(self, p0: XY, p1: XY) -> bool:
        """True when every cell the segment p0-p1 touches is navigable."""
        h, w = self.shape
        a = (np.asarray(p0, dtype=float)[:2] - self.origin) / self.resolution
        b = (np.asarray(p1, dtype=float)[:2] - self.origin) / self.resolution
        # Fast acceptance in open space: the cells a segment touches lie within one cell of
        # the box of its end cells, so they are all free when p0's clearance exceeds that.
        i0, j0 = math.floor(a[1]), math.floor(a[0])
        if 0 <= i0 < h and 0 <= j0 < w:
            reach = max(abs(math.floor(b[1]) - i0), abs(math.floor(b[0]) - j0)) + 1
            if reach < self._clearance()[i0, j0]:
                return True
        # Cheap early rejection: points sampled on the segment lie in cells it touches.
        n = int(2 * float(np.hypot(*(b - a)))) + 2
        if n > 4:
            s = a + np.linspace(0.0, 1.0, n)[:, None] * (b - a)
            si, sj = np.floor(s[:, 1]).astype(np.int64), np.floor(s[:, 0]).astype(np.int64)
            if si.min() < 0 or sj.min() < 0 or si.max() >= h or sj.max() >= w:
                return False
            if not self.navigable[si, sj].all():
                return False
        r, c = self._cells(p0, p1)
        if r.min() < 0 or c.min() < 0 or r.max() >= h or c.max() >= w:
            return False
        return bool(self.navigable[r, c].all())

    def _trace(self, p0: XY, p1: XY) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        res = self.resolution
        ox, oy = self.origin
        return segment_trace(
            (float(p0[0]) - ox) / res,
            (float(p0[1]) - oy) / res,
            (float(p1[0]) - ox) / res,
            (float(p1[1]) - oy) / res,
        )

    def _cells(self, p0: XY, p1: XY) -> tuple[np.ndarray, np.ndarray]:
        r, c, _ = self._trace(p0, p1)
        return r, c

    def free_fraction(self, p0: XY, p1: XY) -> float:
        """Largest t in [0, 1] such that the segment p0 -> p0 + t (p1 - p0) stays in navigable
        cells up to (not including) the first blocked cell it would enter; 0 if p0 is blocked."""
        r, c, t = self._trace(p0, p1)
        h, w = self.shape
        inside = (r >= 0) & (c >= 0) & (r < h) & (c < w)
        bad = ~inside
        bad[inside] = ~self.navigable[r[inside], c[inside]]
        return float(t[bad].min()) if bad.any() else 1.0

    def snap(self, xy: XY) -> np.ndarray:
        """Nearest navigable point: ``xy`` itself if navigable, else the nearest free centre."""
        p = np.asarray(xy, dtype=float)[:2]
        if not np.all(np.isfinite(p)):
            raise ValueError(f"cannot snap a non-finite point {p!r}")
        if self.is_navigable(p):
            return p.copy()
        if not self.navigable.any():
            raise ValueError("the grid has no navigable cell")
        h, w = self.shape
        i, j = self.to_cell(p)
        ii, jj = min(max(i, 0), h - 1), min(max(j, 0), w - 1)
        if self._nearest is None:
            # index of the nearest navigable cell, for every cell, in one EDT pass
            _, idx = _ndimage().distance_transform_edt(~self.navigable, return_indices=True)
            self._nearest = idx
        near = self._nearest[:, ii, jj]
        # The EDT answer is nearest to the clamped cell's centre; refine around it so that a
        # point between cells snaps to its truly nearest free centre.
        best = None
        for di in range(-2, 3):
            for dj in range(-2, 3):
                cand = (int(near[0]) + di, int(near[1]) + dj)
                if self.in_bounds(cand) and self.navigable[cand]:
                    c = self.to_world(cand)
                    d = float(np.hypot(*(c - p)))
                    if best is None or d < best[0]:
                        best = (d, c)
        assert best is not None
        return best[1]


    # ----------------------------------------------------------------- persistence
    def save(self, path: str | Path) -> None:
        """Write the grid (not its cached fields) to an ``.npz`` file."""
        np.savez_compressed(
            path,
            navigable=self.navigable,
            origin=self.origin,
            resolution=np.float64(self.resolution),
            robot_radius=np.float64(self.robot_radius),
        )

    @classmethod
    def load(cls, path: str | Path) -> Self:
        """Read a grid written by ``save``; errors name the file and the missing field."""
        try:
            z = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise InputError(path, None, f"not a readable .npz file ({exc})") from exc
        with z:
            for name in ("navigable", "origin", "resolution", "robot_radius"):
                if name not in z.files:
                    raise InputError(path, name, "missing")
            nav = z["navigable"]
            if nav.ndim != 2 or nav.dtype != bool:
                raise InputError(
                    path, "navigable", f"expected a 2-D bool array, got {nav.dtype}{nav.shape}"
                )
            origin = z["origin"]
            if origin.shape != (2,):
                raise InputError(path, "origin", f"expected shape (2,), got {origin.shape}")
            res = float(z["resolution"])
            if not res > 0:
                raise InputError(path, "resolution", f"must be positive, got {res}")
            return cls(nav, origin, res, float(z["robot_radius"]))
