"""Household things' textures: a remote, a ball, a sponge, a candle, a toy block and a clock."""

from __future__ import annotations

import math

import numpy as np

from recallbench.world.assetgen.object_meshes import CLOCK_DIAL
from recallbench.world.assetgen.paint import (
    INK,
    RGB,
    Canvas,
    c8,
    contrast,
    metal,
    mix,
    panel,
    round_picture,
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
    """Wax with drips from the rim and a melted pool, a dark wick and a bright flame (rows
    0.94-1: orange at its root, near white in its core), and a brass dish (rows 0-0.04)."""
    cv = Canvas(64, 128, fill=c)
    cv.noise(0.2, rng, (4, 8, 16))
    cv.gradient(c, shade(c, 1.3), (0.6, 0.82))
    for j in range(7):  # wax drips down from the rim
        u0 = (j * 0.137 + 0.05) % 1
        cv.fill(shade(c, 1.35), (0.8 - 0.05 * (1 + j % 3), 0.82), (u0, u0 + 0.04))
    cv.fill(shade(c, 0.8), (0.82, 0.9))  # melted pool
    if k == 1:
        img, d = panel(64, 24, (0.95, 0.92, 0.85))
        text(d, (32, 12), "LAVENDER" if name == "purple" else "VANILLA", 10, INK)
        cv.paste(img, (0.1, 0.9), (0.25, 0.45))
    metal(cv, (0.0, 0.045), rng, (0.8, 0.64, 0.3))  # the dish
    cv.fill(INK, (0.9, 0.94))  # wick
    cv.gradient((1.0, 0.5, 0.1), (1.0, 0.97, 0.7), (0.94, 0.975))
    cv.gradient((1.0, 0.97, 0.7), (1.0, 0.78, 0.25), (0.975, 1.0))
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
    """The case (rim and bezels, rows 0.1-0.45) in the clock's colour and a light dial whatever
    the case (a black dial read as a black disc from across a room), on both faces: hour
    marks, hands and a red seconds hand, drawn face on into ``CLOCK_DIAL``. The wide bezel and
    the rim are most of what shows, so "the black clock" is black."""
    cv = Canvas(256, 256, fill=c)
    cv.noise(0.05, rng, (4, 8), (0.1, 0.45))
    metal(cv, (0.0, 0.1), rng, (0.6, 0.6, 0.62))  # feet
    cv.fill(shade(c, 0.55), (0.45, 0.5))  # the step down to the dial
    img, d, px = round_picture((0.97, 0.96, 0.9))
    ticks = 12 if k == 0 else 60
    for j in range(ticks):
        a = 2 * math.pi * j / ticks
        major = j % (1 if k == 0 else 5) == 0
        r0 = 0.72 if (k == 0 and j % 3 == 0) else (0.78 if major else 0.88)
        width = 22 if major else 6
        d.line([px(r0 * math.cos(a), r0 * math.sin(a)), px(0.94 * math.cos(a), 0.94 * math.sin(a))],
               fill=c8(INK), width=width)
    for a, length, width, colour in ((2.6, 0.5, 30, INK), (1.05, 0.78, 20, INK),
                                     (-0.9, 0.85, 7, (0.8, 0.1, 0.1))):
        d.line([px(-0.15 * math.cos(a), -0.15 * math.sin(a)),
                px(length * math.cos(a), length * math.sin(a))], fill=c8(colour), width=width)
    d.ellipse([px(-0.07, 0.07), px(0.07, -0.07)], fill=c8(INK))
    cv.paste(img, (CLOCK_DIAL[0], CLOCK_DIAL[2]), (CLOCK_DIAL[1], CLOCK_DIAL[3]))
    return cv
