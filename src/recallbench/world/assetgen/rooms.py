"""The "rooms" family: floor, wall, backsplash and fabric textures, drawn with numpy.

Every texture tiles seamlessly (patterns are laid out on the texture's period and noise wraps).
Wall textures are drawn as seen, row 0 at the top of the wall, and span one wall height (MuJoCo
maps a texture's rows top-down over a turned wall box's height from its centre, so an image
covering exactly that height lands upright); the builder's materials size each repeat in world
units (``world/finishes.py``)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from PIL import Image

from recallbench.world.assetgen.images import fractal_noise, value_noise, write_png

Rgb = tuple[float, float, float]
SOURCE = "procedural (recallbench.world.assetgen.rooms)"
WALL_SIZE = (256, 128)  # rows (one wall height), columns (WALL_WIDTH_M)


def _hex(code: str) -> np.ndarray:
    return np.array([int(code[i : i + 2], 16) / 255.0 for i in (0, 2, 4)], np.float32)


def _aniso_noise(shape: tuple[int, int], cells: tuple[int, int],
                 rng: np.random.Generator) -> np.ndarray:
    """Seamless smooth noise with ``cells`` (rows, columns) values: streaks along the axis with
    fewer cells (wood grain, brush strokes)."""
    h, w = shape
    grid = (rng.random(cells) * 255).astype(np.uint8)
    tiled = Image.fromarray(np.tile(grid, (3, 3)))
    big = tiled.resize((w * 3, h * 3), Image.Resampling.BICUBIC)
    return np.asarray(big, dtype=np.float32)[h : 2 * h, w : 2 * w] / 255.0


def _colour(base: np.ndarray, shade: np.ndarray) -> np.ndarray:
    """An RGB image: ``base`` colour scaled per pixel by ``shade`` (H, W)."""
    return base[None, None, :] * shade[:, :, None]


def _near_line(coord: np.ndarray, period: float, width: float) -> np.ndarray:
    """True within ``width``/2 of a multiple of ``period`` (grout, seams), wrapping."""
    m = np.mod(coord, period)
    return np.minimum(m, period - m) < width / 2


# ----------------------------------------------------------------------------- floors


def wood_planks(tone: str, rng: np.random.Generator, size: int = 256, planks: int = 4,
                grain: float = 0.22) -> np.ndarray:
    """``planks`` boards across (rows run along the boards), each in two lengths with an end
    joint, its own tone and a streaky grain."""
    pw = size // planks
    base = _hex(tone)
    fine = _aniso_noise((size, size), (6, size * 3 // 8), rng)  # fine streaks along the boards
    broad = _aniso_noise((size, size), (3, 24), rng)
    shade = 1.0 + grain * (fine - 0.5) + 0.5 * grain * (broad - 0.5)
    rows = np.arange(size)
    for k in range(planks):
        cols = slice(k * pw, (k + 1) * pw)
        along = (rows - int(rng.integers(0, size))) % size  # 0 at this board's first joint
        split = size // 2 + int(rng.integers(-size // 8, size // 8))
        tone_a, tone_b = 1.0 + rng.uniform(-0.12, 0.12, 2)
        shade[:, cols] *= np.where(along >= split, tone_b, tone_a)[:, None]
        shade[(along < 2) | ((along >= split) & (along < split + 2)), cols] *= 0.55
    seams = _near_line(np.arange(size, dtype=np.float32), pw, 2.5)
    shade[:, seams] *= 0.5
    return _colour(base, shade)


def tiles(colours: tuple[str, ...], rng: np.random.Generator, size: int = 256, n: int = 4,
          grout: str = "d8d4cc", gap: float = 4.0, jitter: float = 0.05,
          checker: bool = False) -> np.ndarray:
    """An ``n`` x ``n`` grid of square tiles with grout lines; each tile a tone of one of
    ``colours`` (alternating when ``checker``), lightly mottled."""
    p = size / n
    mottle = 1.0 + 0.08 * (fractal_noise((size, size), rng, (8, 16, 32)) - 0.5)
    img = np.zeros((size, size, 3), np.float32)
    for i in range(n):
        for j in range(n):
            pick = (i + j) % len(colours) if checker else int(rng.integers(len(colours)))
            c = colours[pick]
            tone = _hex(c) * (1.0 + rng.uniform(-jitter, jitter))
            img[int(i * p) : int((i + 1) * p), int(j * p) : int((j + 1) * p)] = tone
    img *= mottle[:, :, None]
    at = np.arange(size, dtype=np.float32) + 0.5
    lines = _near_line(at[:, None], p, gap) | _near_line(at[None, :], p, gap)
    img[lines] = _hex(grout)
    return img


def running_bond(colour: str, rng: np.random.Generator, size: tuple[int, int] = (128, 128),
                 rows: int = 8, cols: int = 4, grout: str = "e4e2dc", gap: float = 2.5,
                 jitter: float = 0.04) -> np.ndarray:
    """Brick-laid rectangles (subway tile): each row offset by half a tile."""
    h, w = size
    ph, pw = h / rows, w / cols
    base = _hex(colour)
    img = np.zeros((h, w, 3), np.float32)
    y = np.arange(h, dtype=np.float32) + 0.5
    x = np.arange(w, dtype=np.float32) + 0.5
    row = (y // ph).astype(int)
    shifted = x[None, :] + (row[:, None] % 2) * pw / 2
    tile_id = row[:, None] * cols + (shifted // pw).astype(int) % cols
    tones = 1.0 + rng.uniform(-jitter, jitter, rows * cols)
    img[:] = base * tones[tile_id][:, :, None]
    gloss = 1.0 + 0.06 * (value_noise((h, w), 16, rng) - 0.5)
    img *= gloss[:, :, None]
    lines = _near_line(y[:, None] + 0 * x[None, :], ph, gap) | _near_line(shifted, pw, gap)
    img[lines] = _hex(grout)
    return img


def flagstones(colours: tuple[str, ...], rng: np.random.Generator, size: int = 256,
               rows: int = 4) -> np.ndarray:
    """Irregular stone flags: rows of random height, each cut into random lengths (wrapping)."""
    heights = rng.integers(2, 5, rows).astype(float)
    edges = np.concatenate([[0], np.cumsum(heights / heights.sum() * size)]).astype(int)
    img = np.zeros((size, size, 3), np.float32)
    grain = fractal_noise((size, size), rng, (8, 16, 32, 64))
    x = np.arange(size)
    mask = np.zeros((size, size), bool)
    for r in range(rows):
        cuts = np.sort(rng.choice(np.arange(20, size - 20), int(rng.integers(2, 4)), replace=False))
        off = int(rng.integers(0, size))
        seg = np.searchsorted(cuts, (x - off) % size, side="right")
        for s in range(len(cuts) + 1):
            tone = _hex(colours[int(rng.integers(len(colours)))]) * rng.uniform(0.9, 1.08)
            cols = seg == s
            img[edges[r] : edges[r + 1], cols] = tone
        joint = np.isin((x - off) % size, np.concatenate([cuts, cuts - 1, [0, size - 1]]))
        mask[edges[r] : edges[r + 1], joint] = True
        mask[edges[r] : edges[r] + 2, :] = True
    img *= (0.85 + 0.3 * grain)[:, :, None]
    img[mask] = img[mask] * 0.45
    return img


def carpet(colour: str, rng: np.random.Generator, size: int = 128) -> np.ndarray:
    """A cut-pile carpet: fine fibre noise, soft blotches and a few darker flecks."""
    fibre = rng.random((size, size)).astype(np.float32)
    soft = fractal_noise((size, size), rng, (4, 8, 16))
    shade = 0.9 + 0.12 * (fibre - 0.5) + 0.12 * (soft - 0.5)
    shade[rng.random((size, size)) < 0.02] *= 0.8
    return _colour(_hex(colour), shade)


# ----------------------------------------------------------------------------- walls


def _paint_field(rng: np.random.Generator, shape: tuple[int, int] = WALL_SIZE) -> np.ndarray:
    """Roller-painted plaster: near-white with faint, broad mottling."""
    return 0.93 + 0.035 * (fractal_noise(shape, rng, (4, 8, 16)) - 0.5)


def _skirting(shade: np.ndarray, height_px: int = 11) -> np.ndarray:
    """A white skirting board along the bottom, with a shadow line on its top edge."""
    shade[-height_px:] = 1.0
    shade[-height_px - 2 : -height_px] = 0.62
    shade[-height_px:-height_px + 2] = 1.05
    return shade


def wall(pattern: str, rng: np.random.Generator) -> np.ndarray:
    """A neutral wall, drawn as seen (tinted by the home's wall colour): ``paint``,
    ``stripes``, ``diamonds`` (a trellis wallpaper) or ``wainscot`` (panelled lower third with a
    rail)."""
    h, w = WALL_SIZE
    shade = _paint_field(rng)
    x = np.arange(w, dtype=np.float32) + 0.5
    y = np.arange(h, dtype=np.float32) + 0.5
    if pattern == "stripes":
        band = np.mod(x, w / 4) < w / 8
        shade[:, band] *= 0.93
        shade[:, _near_line(x, w / 8, 1.2)] *= 0.88
    elif pattern == "diamonds":  # a trellis of fine lines with a dot in each diamond
        p = w / 4
        a, b = np.mod(x[None, :] + y[:, None], p), np.mod(x[None, :] - y[:, None], p)
        shade[_near_line(a, p, 1.4) | _near_line(b, p, 1.4)] *= 0.86
        shade[(np.abs(a - p / 2) + np.abs(b - p / 2)) < 4.0] *= 0.8
    elif pattern == "wainscot":
        rail = int(h * (1 - 0.9 / 2.5))
        shade[rail:] = 1.0 + 0.02 * (value_noise((h - rail, w), 8, rng) - 0.5)
        shade[rail:, _near_line(x, w / 8, 1.5)] *= 0.8  # beadboard grooves
        shade[rail - 3 : rail + 2] = 1.04
        shade[rail + 2 : rail + 4] = 0.7
    return _colour(np.ones(3, np.float32), _skirting(shade))


# ----------------------------------------------------------------------------- fabrics


def weave(rng: np.random.Generator, size: int = 128, threads: int = 32,
          depth: float = 0.08) -> np.ndarray:
    """A plain weave: crossing threads with slubs (neutral, tinted by its material)."""
    c = np.arange(size, dtype=np.float32) * 2 * np.pi * threads / size
    warp = np.sin(c)[None, :] * np.sign(np.sin(c / 2 + 0.3))[:, None]
    cross = 0.5 + 0.5 * warp * np.cos(c)[:, None]
    slub = value_noise((size, size), 32, rng)
    return 0.9 + depth * (cross - 0.5) + 0.06 * (slub - 0.5)


def quilt(rng: np.random.Generator, size: int = 128, cells: int = 4) -> np.ndarray:
    """Stitched diamonds, each puffed (lighter in the middle, darker at the seams)."""
    p = size / cells
    x = np.arange(size, dtype=np.float32)[None, :] + 0.5
    y = np.arange(size, dtype=np.float32)[:, None] + 0.5
    u, v = np.mod(x + y, p) / p, np.mod(x - y, p) / p
    puff = np.sin(np.pi * u) * np.sin(np.pi * v)
    shade = 0.74 + 0.22 * puff + weave(rng, size) - 0.9
    shade[_near_line(x + y, p, 1.6) | _near_line(x - y, p, 1.6)] *= 0.8
    return shade


def plaid(rng: np.random.Generator, size: int = 128) -> np.ndarray:
    """A tartan of darker crossing bands over a weave."""
    c = np.arange(size, dtype=np.float32)
    bands = np.where(np.mod(c, size / 2) < size / 8, 0.7, 1.0) * np.where(
        np.abs(np.mod(c, size / 2) - size / 4) < 2, 0.85, 1.0)
    return weave(rng, size) * np.sqrt(bands[:, None] * bands[None, :])


def _fabric(draw: Callable[[np.random.Generator], np.ndarray],
            rng: np.random.Generator) -> np.ndarray:
    """A neutral fabric image (its material's colour tints it) from a shade drawing."""
    return _colour(np.ones(3, np.float32), draw(rng))


# ----------------------------------------------------------------------------- the family

WOODS = {"oak": "b0824f", "walnut": "6b4428", "maple": "d2b48a", "ash_grey": "a39a8c",
         "cherry": "96502f"}
FLOOR_TILES: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "tile_white": lambda r: tiles(("eeece6", "e6e3dc"), r, n=4),
    "tile_checker": lambda r: tiles(("efede8", "2f3033"), r, n=4, checker=True, grout="9a9894"),
    "tile_terracotta": lambda r: tiles(("b5623d", "a8583a", "bf6c45"), r, n=4, grout="cdbfae",
                                       jitter=0.08),
    "tile_grey": lambda r: tiles(("8f9193", "b4b5b2"), r, n=2, gap=2.5),
    "stone_slate": lambda r: flagstones(("5d6266", "6b6f70", "545a5f"), r),
    "stone_travertine": lambda r: flagstones(("d6c6a8", "cdbb9b", "dccfb4"), r),
}
CARPETS = {"beige": "c8b89c", "grey": "8f9296", "blue": "5f7590", "sage": "8f9c82"}
BACKSPLASHES: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "subway_white": lambda r: running_bond("f2f1ec", r),
    "subway_green": lambda r: running_bond("7fa08e", r, grout="d6dcd6", jitter=0.07),
    "mosaic_blue": lambda r: tiles(("6e8fb0", "86a3bf", "5c7d9c", "a9bfd2"), r, size=128, n=8,
                                   grout="e8e8e4", gap=2.0, jitter=0.06),
}
WALLS = ("paint", "stripes", "diamonds", "wainscot")
FABRICS: dict[str, Callable[[np.random.Generator], np.ndarray]] = {
    "linen": lambda r: weave(r, threads=32),
    "cotton": lambda r: weave(r, threads=64, depth=0.04) + 0.06,
    "quilt": quilt,
    "plaid": plaid,
}


def drawings() -> dict[str, Callable[[np.random.Generator], np.ndarray]]:
    """Every texture of the family by file name (stem)."""
    out: dict[str, Callable[[np.random.Generator], np.ndarray]] = {}
    for name, tone in WOODS.items():
        out[f"floor_wood_{name}"] = partial(wood_planks, tone)
    out.update({f"floor_{k}": v for k, v in FLOOR_TILES.items()})
    for name, tone in CARPETS.items():
        out[f"floor_carpet_{name}"] = partial(carpet, tone)
    for pattern in WALLS:
        out[f"wall_{pattern}"] = partial(wall, pattern)
    out.update({f"backsplash_{k}": v for k, v in BACKSPLASHES.items()})
    out.update({f"fabric_{k}": partial(_fabric, f) for k, f in FABRICS.items()})
    out["furniture_wood"] = lambda r: _colour(_hex("f4efe8"), 0.92 + 0.22 * (
        _aniso_noise((128, 128), (4, 48), r) - 0.5))
    return out


def draw(stem: str) -> np.ndarray:
    """One texture as drawn, from its own fixed seed (its place in the sorted family)."""
    table = drawings()
    return table[stem](np.random.default_rng([38, sorted(table).index(stem)]))


def generate(out_dir: Path) -> dict[str, dict]:
    """Write every texture and return the manifest entries."""
    entries: dict[str, dict] = {}
    for stem in sorted(drawings()):
        image = draw(stem)
        write_png(out_dir / f"{stem}.png", image)
        entries[f"{stem}.png"] = {"source": SOURCE, "kind": "texture",
                                  "size": [int(image.shape[1]), int(image.shape[0])]}
    return entries
