"""Floor plans: rectangular rooms on a 2-row grid, walls with doorways. Pure geometry, no MuJoCo."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import numpy as np

WALL_THICKNESS = 0.1
WALL_HEIGHT = 2.5
DOOR_WIDTH = 1.0
OTHER_ROOM_TYPES = ("living_room", "bedroom", "dining_room", "bathroom")


@dataclass
class Room:
    name: str
    type: str
    bounds: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax (wall centre lines)
    row: int
    col: int

    @property
    def center(self) -> np.ndarray:
        x0, y0, x1, y1 = self.bounds
        return np.array([(x0 + x1) / 2, (y0 + y1) / 2])


@dataclass
class Doorway:
    rooms: tuple[str, str]
    center: tuple[float, float]
    width: float
    wall_axis: str  # "x": the wall runs along x (constant y); "y": runs along y (constant x)


@dataclass
class Layout:
    rooms: list[Room]
    doorways: list[Doorway]
    walls: list[tuple[float, float, float, float]] = field(default_factory=list)  # x0,y0,x1,y1
    kitchen_wall: str = "south"  # outer wall the kitchen run stands against

    def room(self, name: str) -> Room:
        return next(r for r in self.rooms if r.name == name)

    def to_dict(self) -> dict:
        return {
            "rooms": [asdict(r) for r in self.rooms],
            "doorways": [asdict(d) for d in self.doorways],
        }


def _r(x: float) -> float:
    # Round so the XML (and thus the world) is byte-identical across platforms.
    return round(float(x), 4)


def plan_layout(rng: np.random.Generator, kitchen_only: bool = False) -> Layout:
    """Draw a floor plan. The kitchen sits in a corner cell so it has an outer wall for its run."""
    if kitchen_only:
        room = Room(
            "kitchen",
            "kitchen",
            (0.0, 0.0, _r(rng.uniform(5.8, 6.4)), _r(rng.uniform(4.6, 5.2))),
            0,
            0,
        )
        layout = Layout([room], [], kitchen_wall="south")
        layout.walls = _walls(layout)
        return layout
    ncols = int(rng.choice([2, 3]))
    nrows = 2
    kitchen_col = int(rng.choice([0, ncols - 1]))
    kitchen_row = int(rng.integers(0, nrows))
    widths = [
        _r(rng.uniform(5.8, 6.4)) if c == kitchen_col else _r(rng.uniform(4.0, 5.4))
        for c in range(ncols)
    ]
    heights = [_r(rng.uniform(4.4, 5.2)) for _ in range(nrows)]
    xs = np.concatenate([[0.0], np.cumsum(widths)])
    ys = np.concatenate([[0.0], np.cumsum(heights)])
    others = list(rng.permutation(OTHER_ROOM_TYPES))
    if ncols * nrows - 1 > len(others):
        others.append("bedroom")
    rooms: list[Room] = []
    used: dict[str, int] = {}
    k = 0
    for row in range(nrows):
        for col in range(ncols):
            if (row, col) == (kitchen_row, kitchen_col):
                rtype = "kitchen"
            else:
                rtype = str(others[k])
                k += 1
            used[rtype] = used.get(rtype, 0) + 1
            name = rtype if used[rtype] == 1 else f"{rtype}_{used[rtype]}"
            bounds = (_r(xs[col]), _r(ys[row]), _r(xs[col + 1]), _r(ys[row + 1]))
            rooms.append(Room(name, rtype, bounds, row, col))
    doorways = _doorways(rng, rooms, ncols, nrows)
    layout = Layout(rooms, doorways, kitchen_wall="south" if kitchen_row == 0 else "north")
    layout.walls = _walls(layout)
    return layout


def _doorways(rng: np.random.Generator, rooms: list[Room], ncols: int, nrows: int) -> list[Doorway]:
    by_cell = {(r.row, r.col): r for r in rooms}
    edges = []
    for (row, col), room in by_cell.items():
        if col + 1 < ncols:
            edges.append((room, by_cell[(row, col + 1)]))
        if row + 1 < nrows:
            edges.append((room, by_cell[(row + 1, col)]))
    # Keep a random spanning tree plus some extra edges, so plans differ but stay connected.
    order = rng.permutation(len(edges))
    parent = {r.name: r.name for r in rooms}

    def find(n: str) -> str:
        while parent[n] != n:
            n = parent[n]
        return n

    chosen = []
    for i in order:
        a, b = edges[i]
        if find(a.name) != find(b.name):
            parent[find(a.name)] = find(b.name)
            chosen.append(i)
        elif rng.random() < 0.5:
            chosen.append(i)
    doorways = []
    for i in sorted(chosen):
        a, b = edges[i]
        if a.row == b.row:  # shared wall at constant x, runs along y
            x = a.bounds[2]
            lo, hi = max(a.bounds[1], b.bounds[1]), min(a.bounds[3], b.bounds[3])
            # Keep doorways away from the outer walls, where the kitchen run and furniture stand.
            c = rng.uniform(lo + 1.6, hi - 1.6) if hi - lo > 3.4 else (lo + hi) / 2
            doorways.append(Doorway((a.name, b.name), (_r(x), _r(c)), DOOR_WIDTH, "y"))
        else:  # shared wall at constant y, runs along x
            y = a.bounds[3]
            lo, hi = max(a.bounds[0], b.bounds[0]), min(a.bounds[2], b.bounds[2])
            c = rng.uniform(lo + 1.2, hi - 1.2)
            doorways.append(Doorway((a.name, b.name), (_r(c), _r(y)), DOOR_WIDTH, "x"))
    return doorways


def _walls(layout: Layout) -> list[tuple[float, float, float, float]]:
    """Every room edge once (shared edges merged), split where a doorway cuts it."""
    segs: set[tuple[float, float, float, float]] = set()
    for r in layout.rooms:
        x0, y0, x1, y1 = r.bounds
        segs |= {(x0, y0, x1, y0), (x0, y1, x1, y1), (x0, y0, x0, y1), (x1, y0, x1, y1)}
    # Shared edges between different-size rooms are never partial here (grid), so a set dedups.
    out: list[tuple[float, float, float, float]] = []
    for x0, y0, x1, y1 in sorted(segs):
        cuts = []
        for d in layout.doorways:
            cx, cy = d.center
            if d.wall_axis == "x" and y0 == y1 == cy and x0 < cx < x1:
                cuts.append((cx - d.width / 2, cx + d.width / 2))
            if d.wall_axis == "y" and x0 == x1 == cx and y0 < cy < y1:
                cuts.append((cy - d.width / 2, cy + d.width / 2))
        horizontal = y0 == y1
        lo, hi = (x0, x1) if horizontal else (y0, y1)
        pieces, start = [], lo
        for a, b in sorted(cuts):
            pieces.append((start, a))
            start = b
        pieces.append((start, hi))
        for a, b in pieces:
            if b - a > 1e-6:
                out.append((_r(a), y0, _r(b), y1) if horizontal else (x0, _r(a), x1, _r(b)))
    return out
