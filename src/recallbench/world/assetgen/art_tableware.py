"""Tableware and cookware textures: ceramic glazes (bowl, mug, teapot), a moulded plastic cup,
plates, glass (vase, drinking glass), and pots and kettles (enamel or brushed steel)."""

from __future__ import annotations

import math

import numpy as np

from recallbench.world.assetgen.object_meshes import PLATE_TOP
from recallbench.world.assetgen.paint import (
    INK,
    RGB,
    WHITE,
    Canvas,
    c8,
    contrast,
    metal,
    mix,
    panel,
    round_picture,
    shade,
)


def _glaze(c: RGB, k: int, striped: bool, rng: np.random.Generator, body: tuple[float, float],
           inside: tuple[float, float], size: tuple[int, int] = (64, 128),
           upright: bool = False) -> Canvas:
    """Ceramic: a glossy glaze of c, a rim band or painted pattern, a lighter inside.
    ``upright``: the striped print's stripes run up the wall (on a straight-sided vessel,
    bands round it read as a stack of rings)."""
    cv = Canvas(*size, fill=c)
    cv.fill(shade(c, 1.12), inside)
    cv.fill(shade(c, 0.55), (0.0, body[0]))  # unglazed foot
    accent = contrast(c)
    top = body[1]
    if striped and upright:  # dark stripes on a light glaze (white ones vanish on yellow)
        light = 0.21 * c[0] + 0.72 * c[1] + 0.07 * c[2] > 0.6
        cv.stripes(INK if light else WHITE, 14, (body[0] + 0.03, top - 0.04), 0.4,
                   vertical=True)
    elif striped:
        cv.stripes(accent, 4, (body[0] + 0.05, top - 0.03), 0.45)
    elif k == 0:
        cv.fill(accent, (top - 0.06, top - 0.03))
        cv.fill(accent, (top - 0.11, top - 0.095))
    else:
        cv.stripes(mix(c, accent, 0.7), 8, (top - 0.22, top - 0.08), 0.5, vertical=True)
        cv.fill(mix(c, accent, 0.7), (top - 0.06, top - 0.04))
    cv.fill(shade(c, 1.25), (top - 0.01, inside[0] + 0.01))  # rim catches light
    cv.noise(0.06, rng)
    return cv



def bowl(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    return _glaze(c, k, striped, rng, (0.04, 0.5), (0.5, 1.0))



def mug(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    """Glazed outside in c (striped: stripes up the wall), inside and over the lip in another
    glaze (cream, or pale blue in a white mug), coffee at the bottom."""
    cv = _glaze(c, k, striped, rng, (0.04, 0.6), (0.6, 0.9), upright=True)
    inner = (0.95, 0.93, 0.86) if name != "white" else (0.6, 0.76, 0.92)
    cv.fill(inner, (0.59, 0.9))
    cv.fill((0.3, 0.18, 0.1), (0.8, 0.9))  # coffee
    cv.noise(0.05, rng, (4, 8), (0.59, 0.9))
    if not striped and k == 1:
        img, d = panel(64, 32, c)
        d.ellipse((20, 4, 44, 28), fill=c8(contrast(c)))
        cv.paste(img, (0.55, 0.95), (0.25, 0.45))
    return cv



def cup(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(64, 128, fill=c)
    cv.gradient(shade(c, 0.8), shade(c, 1.15), (0.05, 0.6))
    cv.fill(shade(c, 1.3), (0.6, 1.0))
    if striped:  # up the wall, along the flutes: bands round it read as stacked rings
        cv.stripes(WHITE, 12, (0.08, 0.58), 0.4, vertical=True)
    else:
        for v in (0.12, 0.16, 0.54):  # moulded rings of a plastic cup
            cv.fill(shade(c, 0.65), (v, v + 0.012))
    return cv



def plate(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    """The top drawn as seen from above into ``PLATE_TOP`` (the mesh maps it flat): a plain
    glaze with a contrasting line round the rim (variant 0), a garland of flowers and leaves
    round the rim (1), or straight stripes across the plate (striped). Never rings round the
    centre: from above they read as a target."""
    cv = Canvas(256, 384, fill=c)
    acc = contrast(c) if c[0] + c[1] + c[2] < 2.2 else (0.15, 0.3, 0.8)
    img, d, px = round_picture(c)
    n = img.width
    if striped:
        for j in range(-4, 5):  # 0.22 wide, every 0.26 of the radius
            x = 0.26 * j
            d.rectangle([px(x - 0.06, 1.0), px(x + 0.06, -1.0)], fill=c8(acc))
    if k == 1 and not striped:
        leaf = mix(c, (0.25, 0.55, 0.25), 0.8)
        for j in range(10):
            a = 2 * math.pi * j / 10
            for da in (-0.11, 0.11):  # two leaves either side of each flower
                x, y = 0.79 * math.cos(a + da), 0.79 * math.sin(a + da)
                d.ellipse([px(x - 0.05, y + 0.05), px(x + 0.05, y - 0.05)], fill=c8(leaf))
            x, y = 0.79 * math.cos(a), 0.79 * math.sin(a)
            for p in range(5):
                b = 2 * math.pi * p / 5
                qx, qy = x + 0.04 * math.cos(b), y + 0.04 * math.sin(b)
                d.ellipse([px(qx - 0.035, qy + 0.035), px(qx + 0.035, qy - 0.035)],
                          fill=c8(acc))
            d.ellipse([px(x - 0.02, y + 0.02), px(x + 0.02, y - 0.02)], fill=c8((0.95, 0.8, 0.2)))
    d.ellipse([px(-0.955, 0.955), px(0.955, -0.955)], outline=c8(acc), width=int(0.035 * n / 2))
    cv.paste(img, (PLATE_TOP[0], PLATE_TOP[2]), (PLATE_TOP[1], PLATE_TOP[3]))
    cv.noise(0.04, rng)
    return cv



def teapot(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = _glaze(c, k, striped, rng, (0.04, 0.6), (0.6, 0.8))
    cv.fill(shade(c, 0.9), (0.62, 0.8))
    if k == 0:  # painted flowers on the belly
        img, d = panel(128, 40, c)
        for x in (16, 48, 80, 112):
            for dx, dy in ((0, -6), (6, 0), (0, 6), (-6, 0)):
                d.ellipse((x + dx - 4, 20 + dy - 4, x + dx + 4, 20 + dy + 4),
                          fill=c8(contrast(c)))
            d.ellipse((x - 3, 17, x + 3, 23), fill=c8((0.95, 0.8, 0.2)))
        cv.paste(img, (0, 1), (0.25, 0.42))
    return cv



def vase(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(64, 128, fill=shade(c, 1.1))
    cv.stripes(shade(c, 1.8), 3 if k == 0 else 8, (0.05, 0.8), 0.14, vertical=True)
    cv.stripes(shade(c, 0.6), 6, (0.1, 0.7), 0.08)  # etched rings
    if striped:  # up the wall: bands round it read as stacked rings
        cv.stripes(shade(c, 0.55), 8, (0.05, 0.78), 0.35, vertical=True)
    cv.fill(shade(c, 0.8), (0.0, 0.04))
    cv.fill(shade(c, 1.5), (0.78, 0.84))
    return cv



def glass(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    tint = {"white": (0.85, 0.92, 0.95), "blue": (0.45, 0.65, 0.95),
            "green": (0.5, 0.85, 0.55)}.get(name, c)
    cv = Canvas(64, 64, fill=tint)
    n = 4 if k == 0 else 10  # bright and dark facets of the light through the glass
    cv.stripes(shade(tint, 0.45), n, (0.05, 0.5), 0.35, vertical=True)
    cv.stripes(WHITE, n, (0.05, 0.5), 0.15, vertical=True)
    cv.fill(shade(tint, 0.6), (0.0, 0.05))
    cv.fill(shade(tint, 0.7), (0.5, 0.62))  # the thick rim
    cv.fill(WHITE, (0.56, 0.6))
    return cv



def pot(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(64, 128, fill=c)
    if name == "grey":
        metal(cv, (0, 1), rng, (0.75, 0.76, 0.78))
        cv.streaks((0.95, 0.95, 0.97), 0.6, rng, (0.05, 0.55), 40)
    else:  # speckled enamel
        cv.speckle(shade(c, 1.8), 0.06, rng, (0.05, 0.55))
    cv.fill(shade(c, 0.5) if name != "grey" else (0.55, 0.56, 0.58), (0.58, 0.88))
    cv.fill((0.82, 0.82, 0.84), (0.52, 0.58))  # steel rim
    cv.fill((0.12, 0.12, 0.12), (0.9, 1.0))  # handles
    cv.noise(0.05, rng)
    return cv



def kettle(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(64, 128, fill=c if name != "white" else (1.0, 1.0, 1.0))
    if name == "grey":
        metal(cv, (0, 0.9), rng, (0.7, 0.71, 0.74))
    cv.fill((0.1, 0.1, 0.1), (0.9, 1.0))  # handle
    cv.fill((0.1, 0.1, 0.1), (0.76, 0.8))  # knob
    cv.fill((0.8, 0.8, 0.82), (0.0, 0.05))
    band = contrast(c) if name != "grey" else (0.1, 0.1, 0.1)
    cv.fill(band, (0.3, 0.34))
    cv.fill(band, (0.12, 0.14))
    if k == 1:  # a water window
        cv.fill((0.45, 0.6, 0.75), (0.15, 0.5), (0.7, 0.76))
    cv.noise(0.04, rng)
    return cv
