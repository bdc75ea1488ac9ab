"""Food textures: fruit skins (apple, orange, lemon, tomato, banana), eggshell and bread crust,
in the food's own shades of the colour asked about (a red apple is apple-red)."""

from __future__ import annotations

import numpy as np

from recallbench.world.assetgen.paint import RGB, WHITE, Canvas, shade

STEM: RGB = (0.35, 0.24, 0.1)
LEAF: RGB = (0.2, 0.5, 0.15)


def _skin(c: RGB, rng: np.random.Generator, pores: float, size: tuple[int, int] = (64, 64)
          ) -> Canvas:
    cv = Canvas(*size, fill=c)
    cv.noise(0.18, rng, (4, 8))
    cv.speckle(shade(c, 1.25), pores, rng)
    return cv


def _peel(col: RGB, rng: np.random.Generator, pores: float, bumps: float, oil: float
          ) -> Canvas:
    """Citrus peel (orange, lemon): a skin with coarse bumps and darker oil glands."""
    cv = _skin(col, rng, pores)
    cv.noise(bumps, rng, (16, 32))
    cv.speckle(shade(col, oil), 0.05, rng)
    return cv


def apple(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    base = {"red": (0.72, 0.06, 0.06), "green": (0.45, 0.75, 0.2), "yellow": (0.95, 0.82, 0.25)}
    col = base.get(name, c)
    cv = _skin(col, rng, 0.01)
    blush = {"red": (0.95, 0.7, 0.2), "green": (0.8, 0.85, 0.3), "yellow": (0.9, 0.45, 0.15)}
    cv.streaks(blush.get(name, WHITE), 0.45 if k == 0 else 0.6, rng, (0.0, 0.9), 28)
    cv.speckle(shade(col, 1.5), 0.03, rng, (0.1, 0.85))  # lenticels
    cv.gradient(shade(col, 0.6), col, (0.78, 0.9))  # shaded stem dimple
    cv.fill(STEM, (0.92, 1.0))
    return cv


def orange(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    col = (0.98, 0.52, 0.05) if k == 0 else (0.96, 0.42, 0.02)
    cv = _peel(col, rng, 0.12, 0.25, 0.85)
    cv.fill((0.45, 0.5, 0.15), (0.96, 1.0))
    return cv


def lemon(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    col = (0.98, 0.88, 0.12) if k == 0 else (0.95, 0.82, 0.1)
    cv = _peel(col, rng, 0.1, 0.2, 0.88)
    cv.gradient((0.6, 0.7, 0.15), col, (0.0, 0.08))
    cv.gradient(col, (0.6, 0.7, 0.15), (0.92, 1.0))
    return cv


def tomato(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    col = (0.85, 0.08, 0.04) if k == 0 else (0.78, 0.1, 0.06)
    cv = _skin(col, rng, 0.0)
    cv.fill(shade(col, 1.3), (0.45, 0.55))  # gloss band
    cv.noise(0.1, rng)
    # a green star-shaped calyx around the stem
    n = 5 if k == 0 else 6
    for j in range(n):
        cv.fill(LEAF, (0.72, 0.9), (j / n, j / n + 0.35 / n))
    cv.fill(LEAF, (0.82, 1.0))
    return cv


def banana(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    col = (0.97, 0.82, 0.15) if name == "yellow" else (0.35, 0.66, 0.15)
    cv = Canvas(64, 128, fill=col)
    cv.stripes(shade(col, 0.65), 7, (0.05, 0.95), 0.12, vertical=True)  # ridges
    cv.speckle((0.35, 0.22, 0.08), 0.006 if k == 0 else 0.015, rng, (0.1, 0.9), 2)
    cv.fill((0.3, 0.22, 0.1), (0.0, 0.06))
    cv.gradient((0.35, 0.3, 0.1), col, (0.9, 0.96))
    cv.fill((0.2, 0.15, 0.08), (0.96, 1.0))
    cv.noise(0.08, rng)
    return cv


def egg(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    col = (0.97, 0.95, 0.9) if name == "white" else (0.78, 0.55, 0.35)
    cv = _skin(col, rng, 0.0, (32, 32))
    cv.noise(0.15, rng, (4, 8))
    cv.speckle(shade(col, 0.75 if name == "brown" else 0.85), 0.08 if name == "brown" else 0.05,
               rng)
    return cv


def bread(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    crust = (0.72, 0.45, 0.18) if k == 0 else (0.8, 0.55, 0.25)
    cv = Canvas(64, 128, fill=crust)
    cv.noise(0.15, rng, (4, 8))
    cv.gradient((0.5, 0.3, 0.1), crust, (0.0, 0.12))
    cv.gradient(crust, (0.5, 0.3, 0.1), (0.88, 1.0))
    cv.fill((0.55, 0.33, 0.12), (0, 1), (0.0, 0.12))  # darker underside (u 0 faces down)
    cv.fill((0.55, 0.33, 0.12), (0, 1), (0.88, 1.0))
    # the loaf's top is u = 0.5: slashes across it
    n = 4 if k == 0 else 6
    for j in range(n):
        v = 0.2 + j * 0.6 / (n - 1)
        for i in range(10):
            cv.fill((0.95, 0.82, 0.55), (v + 0.006 * i - 0.03, v + 0.006 * i),
                    (0.38 + 0.024 * i, 0.41 + 0.024 * i))
    return cv
