"""Lattice geometry of the navigation grid, in cell units: the 32-neighbour moves, the cells a
segment touches, and polyline helpers."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

XY = Sequence[float] | np.ndarray

# Lattice moves of the 32-neighbourhood (row, col).
MOVES: tuple[tuple[int, int], ...] = tuple(
    (di, dj)
    for di in range(-3, 4)
    for dj in range(-3, 4)
    if (di, dj) != (0, 0) and math.gcd(abs(di), abs(dj)) == 1
)


def segment_trace(
    u0: float, v0: float, u1: float, v1: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Every cell a segment touches, in cell units (u = column, v = row): rows, columns and the
    segment parameter t in [0, 1] at which the segment enters each.

    The segment is also traced shifted by a hair to each side so that passing exactly through a
    cell corner counts both cells beside it: diagonal moves may not squeeze between two blocked
    cells. The cells holding the two end points (as ``to_cell`` sees them) are always included.
    """
    du, dv = u1 - u0, v1 - v0
    length = math.hypot(du, dv)
    eps = 1e-7
    if length > 0:
        nu, nv = -dv / length * eps, du / length * eps
        shifts: tuple[tuple[float, float], ...] = ((0.0, 0.0), (nu, nv), (-nu, -nv))
    else:
        shifts = ((0.0, 0.0),)
    rows = [np.array([math.floor(v0), math.floor(v1)], dtype=np.int64)]
    cols = [np.array([math.floor(u0), math.floor(u1)], dtype=np.int64)]
    enter = [np.array([0.0, 1.0])]
    for su, sv in shifts:
        a_u, a_v = u0 + su, v0 + sv
        ts = [np.array([0.0, 1.0])]
        if du != 0:
            lo, hi = sorted((a_u, a_u + du))
            lines = np.arange(math.floor(lo) + 1, math.ceil(hi))
            ts.append((lines - a_u) / du)
        if dv != 0:
            lo, hi = sorted((a_v, a_v + dv))
            lines = np.arange(math.floor(lo) + 1, math.ceil(hi))
            ts.append((lines - a_v) / dv)
        t = np.sort(np.concatenate(ts))  # repeated t: a corner crossing, counted both ways
        mid = (t[:-1] + t[1:]) / 2 if len(t) > 1 else t
        rows.append(np.floor(a_v + mid * dv).astype(np.int64))
        cols.append(np.floor(a_u + mid * du).astype(np.int64))
        enter.append(t[:-1] if len(t) > 1 else t)
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(enter)


def segment_cells(u0: float, v0: float, u1: float, v1: float) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of every cell a segment touches (see ``segment_trace``)."""
    r, c, _ = segment_trace(u0, v0, u1, v1)
    return r, c


def move_intermediates() -> list[tuple[int, int, np.ndarray]]:
    """For each lattice move, the cell offsets strictly between its two end cells."""
    out = []
    for di, dj in MOVES:
        r, c = segment_cells(0.5, 0.5, dj + 0.5, di + 0.5)
        cells = {(int(a), int(b)) for a, b in zip(r, c, strict=True)} - {(0, 0), (di, dj)}
        out.append((di, dj, np.array(sorted(cells), dtype=np.int64).reshape(-1, 2)))
    return out


def subdivide(path: np.ndarray, step: float) -> np.ndarray:
    """Insert points so no segment is longer than ``step`` (freedom for the relaxation)."""
    out = [path[:1]]
    for p, q in zip(path[:-1], path[1:], strict=True):
        n = max(1, int(math.ceil(float(np.hypot(*(q - p))) / step)))
        out.append(p + (q - p) * (np.arange(1, n + 1)[:, None] / n))
    return np.vstack(out)


def path_length(path: np.ndarray) -> float:
    """Sum of segment lengths of an (N, 2) polyline."""
    return float(np.sum(np.hypot(*np.diff(np.asarray(path, float), axis=0).T)))

