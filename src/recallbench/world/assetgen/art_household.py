"""Household things' textures: a remote, a ball, a sponge, a candle, a toy block and a clock."""

from __future__ import annotations

import numpy as np

from recallbench.world.assetgen.paint import (
    INK,
    RGB,
    WHITE,
    Canvas,
    c8,
    contrast,
    mix,
    panel,
    shade,
    text,
)


def remote(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(128, 128, fill=c)
    top, d = panel(50, 160, c)
    btn = shade(c, 2.0) if sum(c) < 1.0 else INK
    d.ellipse((18, 8, 32, 22), fill=c8((0.85, 0.1, 0.1)))  # power
    d.ellipse((10, 34, 40, 64), fill=c8(btn))  # direction pad
    d.ellipse((19, 43, 31, 55), fill=c8(c))
    for j in range(12):
        x, y = 8 + (j % 3) * 13, 78 + (j // 3) * 16
        d.rounded_rectangle((x, y, x + 9, y + 9), 2, fill=c8(btn))
    if k == 1:
        d.rectangle((6, 145, 44, 152), fill=c8((0.2, 0.6, 0.9)))
    cv.paste(top, (0, 0.5), (0, 1))
    return cv



def ball(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(128, 64, fill=c)
    acc = contrast(c)
    if striped:
        cv.stripes(acc, 3, (0.1, 0.9), 0.4)
    elif k == 0:
        cv.fill(acc, (0.47, 0.53))
        cv.fill(acc, (0.0, 0.04))
        cv.fill(acc, (0.96, 1.0))
    else:
        cv.stripes(shade(c, 0.35), 4, (0, 1), 0.06, vertical=True)
        cv.fill(shade(c, 0.35), (0.48, 0.52))
    cv.noise(0.08, rng)
    return cv



def sponge(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    """Foam on top and most of each side, a scouring pad underneath."""
    cv = Canvas(128, 128, fill=c)
    cv.speckle(shade(c, 0.7), 0.15, rng, (0, 1), 2)
    pad = (0.15, 0.55, 0.2) if k == 0 else (0.2, 0.25, 0.3)
    cv.fill(pad, (0.5, 1.0), (0.5, 1.0))  # the bottom face
    cv.fill(pad, (0.0, 0.15))  # the low band of each side
    cv.speckle(shade(pad, 0.6), 0.3, rng, (0.0, 0.15))
    return cv



def candle(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(64, 128, fill=c)
    cv.noise(0.2, rng, (4, 8, 16))
    cv.gradient(c, shade(c, 1.3), (0.6, 0.82))
    for j in range(7):  # wax drips down from the rim
        u0 = (j * 0.137 + 0.05) % 1
        cv.fill(shade(c, 1.35), (0.8 - 0.05 * (1 + j % 3), 0.82), (u0, u0 + 0.04))
    cv.fill(shade(c, 0.8), (0.82, 0.92))  # melted pool
    if k == 1:
        img, d = panel(64, 24, (0.95, 0.92, 0.85))
        text(d, (32, 12), "LAVENDER" if name == "purple" else "VANILLA", 10, INK)
        cv.paste(img, (0.1, 0.9), (0.25, 0.45))
    cv.fill(INK, (0.93, 1.0))
    return cv



def toy_block(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(128, 192, fill=c)
    acc = contrast(c)
    signs = ("ABCDEF", "123456")[k]
    for i in range(6):
        u0, v1 = 0.5 * (i % 2), 1 - (i // 2) / 3
        img, d = panel(64, 64, c)
        d.rectangle((3, 3, 60, 60), outline=c8(mix(c, acc, 0.8)), width=4)
        if striped:
            d.rectangle((8, 24, 56, 40), fill=c8(acc))
        text(d, (32, 32), signs[i], 40, acc)
        cv.paste(img, (u0, u0 + 0.5), (v1 - 1 / 3, v1))
    cv.noise(0.05, rng)
    return cv



def clock(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    """Face drawn in polar form: u is the angle, v the distance from the centre inwards. The
    dial is a light tint of the case colour (a black clock has a black dial)."""
    cv = Canvas(128, 64, fill=c)
    face = {"white": (0.98, 0.97, 0.92), "black": (0.12, 0.12, 0.12)}.get(name, shade(c, 1.25))
    ink = WHITE if name == "black" else INK
    cv.fill(face, (0.35, 1.0))
    ticks = 12 if k == 0 else 60
    for j in range(ticks):
        w = 0.008 if (k == 0 or j % 5) else 0.014
        length = 0.12 if (k == 0 or j % 5 == 0) else 0.05
        cv.fill(ink, (0.35, 0.35 + length), (j / ticks - w / 2 + 1e-3, j / ticks + w / 2 + 1e-3))
    cv.fill(ink, (0.5, 1.0), (0.14, 0.16))  # hour hand
    cv.fill(ink, (0.4, 1.0), (0.59, 0.605))  # minute hand
    cv.fill((0.8, 0.1, 0.1) if name != "red" else WHITE, (0.42, 1.0), (0.84, 0.845))  # seconds
    cv.fill(INK if name == "white" else shade(c, 0.8), (0.3, 0.35))
    return cv
