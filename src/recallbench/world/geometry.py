"""Planar geometry helpers shared by navigation and FindingDory's predicates.

A pose is ``(x, y, yaw)``: world position of the robot base and the heading of its forward (+x)
axis, counter-clockwise from world +x, in radians.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import numpy as np

Rect = tuple[float, float, float, float]


def wrap_angle(angle: float) -> float:
    """Map an angle to [-pi, pi]."""
    return float((angle + np.pi) % (2.0 * np.pi) - np.pi)


def relative_angle(
    pose: Sequence[float] | np.ndarray, target_xy: Sequence[float] | np.ndarray
) -> float:
    """Angle from the robot's forward axis to ``target_xy`` in the base frame, in [-pi, pi].

    Positive means the target is to the robot's left. Height is ignored (FindingDory's angle test
    uses the horizontal bearing only); a target at the base position has angle 0.
    """
    p = np.asarray(pose, dtype=float)
    t = np.asarray(target_xy, dtype=float)
    if p.shape != (3,):
        raise ValueError(f"pose must be (x, y, yaw), got shape {p.shape}")
    if t.shape[0] < 2:
        raise ValueError(f"target_xy must have at least 2 coordinates, got shape {t.shape}")
    dx, dy = t[0] - p[0], t[1] - p[1]
    if dx == 0.0 and dy == 0.0:
        return 0.0
    return wrap_angle(np.arctan2(dy, dx) - p[2])


def room_of(xy: Sequence[float] | np.ndarray, rooms: Mapping[str, Rect]) -> str | None:
    """Name of the first room whose axis-aligned rectangle (xmin, ymin, xmax, ymax) holds ``xy``.

    Borders are inclusive, so a point on a shared wall line belongs to the room listed first.
    Returns None when the point is in no room.
    """
    x, y = float(xy[0]), float(xy[1])
    for name, rect in rooms.items():
        if len(rect) != 4:
            raise ValueError(f"room {name!r}: expected (xmin, ymin, xmax, ymax), got {rect!r}")
        xmin, ymin, xmax, ymax = (float(v) for v in rect)
        if xmin > xmax or ymin > ymax:
            raise ValueError(f"room {name!r}: min exceeds max in {rect!r}")
        if xmin <= x <= xmax and ymin <= y <= ymax:
            return name
    return None


def convex_hull(points: np.ndarray) -> np.ndarray:
    """Counter-clockwise convex hull of 2-D points (Andrew's monotone chain).

    Degenerate inputs give 1 or 2 vertices, which ``distance_to_polygon`` still handles.
    """
    pts = np.unique(np.round(np.asarray(points, dtype=float), 12), axis=0)
    if len(pts) <= 2:
        return pts

    def half(seq: np.ndarray) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for p in seq:
            while len(out) >= 2:
                a, b = out[-2], out[-1]
                if (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) > 0:
                    break
                out.pop()
            out.append(p)
        return out

    lower = half(pts)
    upper = half(pts[::-1])
    return np.array(lower[:-1] + upper[:-1])


def distance_to_segments(points: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Distance from each of ``points`` (N, 2) to the nearest of segments a[k]-b[k] (K, 2)."""
    p = points[:, None, :]
    ab = (b - a)[None, :, :]
    ap = p - a[None, :, :]
    denom = np.maximum(np.sum(ab * ab, axis=-1), 1e-300)
    t = np.clip(np.sum(ap * ab, axis=-1) / denom, 0.0, 1.0)
    d = ap - t[..., None] * ab
    return np.sqrt(np.min(np.sum(d * d, axis=-1), axis=1))


def distance_to_polygon(points: np.ndarray, hull: np.ndarray) -> np.ndarray:
    """Distance from points (N, 2) to a convex CCW polygon (0 inside or on the border)."""
    points = np.asarray(points, dtype=float)
    if len(hull) == 1:
        return np.linalg.norm(points - hull[0], axis=1)
    a = hull
    b = np.roll(hull, -1, axis=0)
    dist = distance_to_segments(points, a, b)
    if len(hull) >= 3:
        edge = b - a
        rel = points[:, None, :] - a[None, :, :]
        cross = edge[None, :, 0] * rel[..., 1] - edge[None, :, 1] * rel[..., 0]
        inside = np.all(cross >= -1e-12, axis=1)
        dist[inside] = 0.0
    return dist


class Footprint:
    """An xy footprint: convex polygon, or stadium (segment swept by a radius; a disc if the
    segment has zero length)."""

    def __init__(
        self,
        *,
        hull: np.ndarray | None = None,
        seg: tuple[np.ndarray, np.ndarray] | None = None,
        radius: float = 0.0,
        name: str = "",
    ) -> None:
        if (hull is None) == (seg is None):
            raise ValueError("give exactly one of hull or seg")
        self.hull = None if hull is None else convex_hull(hull)
        self.seg = None if seg is None else (np.asarray(seg[0], float), np.asarray(seg[1], float))
        self.radius = float(radius)
        self.name = name
        if self.hull is not None:
            lo, hi = self.hull.min(axis=0), self.hull.max(axis=0)
        else:
            assert self.seg is not None
            ends = np.vstack(self.seg)
            lo, hi = ends.min(axis=0) - self.radius, ends.max(axis=0) + self.radius
        self.bounds = np.concatenate([lo, hi])

    def distance(self, points: np.ndarray) -> np.ndarray:
        """Distance from points (N, 2) to the footprint (0 inside)."""
        if self.hull is not None:
            return distance_to_polygon(points, self.hull)
        assert self.seg is not None
        d = distance_to_segments(points, self.seg[0][None], self.seg[1][None])
        return np.maximum(d - self.radius, 0.0)

    def rasterise(self, mask: np.ndarray, origin: np.ndarray, res: float, margin: float) -> None:
        """Set cells whose centre lies within ``margin`` of the footprint (inside if margin=0)."""
        h, w = mask.shape
        lo = self.bounds[:2] - margin
        hi = self.bounds[2:] + margin
        j0 = max(int(math.floor((lo[0] - origin[0]) / res - 0.5)), 0)
        j1 = min(int(math.ceil((hi[0] - origin[0]) / res - 0.5)), w - 1)
        i0 = max(int(math.floor((lo[1] - origin[1]) / res - 0.5)), 0)
        i1 = min(int(math.ceil((hi[1] - origin[1]) / res - 0.5)), h - 1)
        if j0 > j1 or i0 > i1:
            return
        ii, jj = np.mgrid[i0 : i1 + 1, j0 : j1 + 1]
        centres = np.stack(
            [origin[0] + (jj.ravel() + 0.5) * res, origin[1] + (ii.ravel() + 0.5) * res], axis=1
        )
        d = self.distance(centres)
        # margin=0: on the border counts as inside (adjacent floors share an edge);
        # margin>0: the robot may touch an obstacle's inflated border but not cross it
        hit = d <= 1e-9 if margin == 0 else d < margin - 1e-9
        mask[ii.ravel()[hit], jj.ravel()[hit]] = True
