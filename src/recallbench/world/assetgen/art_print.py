"""Printed packaging and covers: a can, bottles, a cereal box, a jar, a soap bottle and a book,
their labels drawn upright with PIL (``paint.panel``) and pasted into the texture bands."""

from __future__ import annotations

import numpy as np
from PIL import Image

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
    shade,
    text,
)

BRANDS = {"can": ("COLA", "FIZZ"), "cereal_box": ("CRUNCH", "OATS"), "jar": ("JAM", "HOME")}
JAR_FILL = {"white": (0.95, 0.93, 0.86), "green": (0.25, 0.6, 0.2), "orange": (0.95, 0.5, 0.08)}


def can(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(256, 128, fill=c)
    metal(cv, (0.0, 0.1), rng)
    metal(cv, (0.86, 1.0), rng)
    img, d = panel(256, 96, c)
    acc = contrast(c)
    art = shade(c, 0.6) if name != "grey" else (0.85, 0.1, 0.1)
    if striped:
        for y in range(8, 96, 22):
            d.rectangle((0, y, 256, y + 7), fill=c8(acc))
    elif k == 0:
        d.polygon([(0, 70), (256, 44), (256, 56), (0, 82)], fill=c8(art))
    else:
        for x in (40, 168):
            d.ellipse((x - 22, 26, x + 22, 70), fill=c8(art))
    brand = BRANDS["can"][k]
    for x in (64, 192):
        text(d, (x, 40 if k == 0 else 48), brand, 24, WHITE, INK)
    cv.paste(img, (0, 1), (0.1, 0.86))
    return cv



def bottle(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    glass = {"green": (0.1, 0.45, 0.15), "brown": (0.4, 0.2, 0.06), "blue": (0.12, 0.3, 0.8),
             "white": (0.92, 0.93, 0.9)}.get(name, c)
    cv = Canvas(128, 128, fill=glass)
    cv.stripes(shade(glass, 1.6 if name != "white" else 1.0), 2, (0.0, 0.85), 0.12,
               vertical=True)  # highlights
    img, d = panel(128, 48, (0.95, 0.92, 0.8) if name != "white" else (0.2, 0.45, 0.85))
    ink = INK if name != "white" else WHITE
    for x in (0, 64):
        d.rectangle((x + 3, 4, x + 60, 43), outline=c8(ink), width=2)
        text(d, (x + 32, 24), "MILK" if name == "white" else ("WINE", "OIL")[k], 13, ink)
    cv.paste(img, (0.0, 1.0), (0.22, 0.42) if k == 0 else (0.18, 0.38))
    cv.fill((0.85, 0.7, 0.2) if k == 0 else (0.9, 0.1, 0.1), (0.85, 1.0))
    return cv



def cereal_box(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(256, 256, fill=c)
    front, d = panel(140, 220, c)
    acc = contrast(c)
    if striped:
        for y in range(0, 220, 30):
            d.rectangle((0, y, 140, y + 12), fill=c8(mix(c, WHITE, 0.5)))
    d.ellipse((20, 110, 120, 190), fill=c8(WHITE), outline=c8(INK), width=3)  # the bowl
    d.chord((20, 110, 120, 200), 0, 180, fill=c8((0.2, 0.35, 0.8)))
    for j in range(14):  # flakes heaped in it
        x, y = 30 + (j * 37) % 80, 118 + (j * 23) % 30
        d.ellipse((x, y, x + 14, y + 9), fill=c8((0.9, 0.65, 0.2)), outline=c8((0.6, 0.35, 0.1)))
    if k == 0:
        d.ellipse((90, 60, 134, 104), fill=c8((0.95, 0.85, 0.1)), outline=c8(INK))
        text(d, (112, 82), "NEW", 14, INK)
    else:
        d.rectangle((0, 0, 140, 56), fill=c8(shade(c, 0.6)))
    text(d, (70, 30), BRANDS["cereal_box"][k], 30, acc if k == 0 else WHITE, INK)
    cv.paste(front, (0, 0.36), (0, 1))
    cv.paste(front, (0.36, 0.72), (0, 1))
    side, d = panel(40, 220, shade(c, 0.85))
    for y in range(40, 200, 12):
        d.line((6, y, 34, y), fill=c8(acc), width=2)
    cv.paste(side, (0.72, 0.86), (0, 1))
    cv.paste(side, (0.86, 1.0), (0, 1))
    return cv



def book(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(256, 128, fill=c)
    cover, d = panel(160, 220, c)
    gold = (0.9, 0.75, 0.3)
    if striped:
        for y in range(0, 220, 36):
            d.rectangle((0, y, 160, y + 14), fill=c8(contrast(c)))
    elif k == 0:
        d.rectangle((10, 10, 150, 210), outline=c8(gold), width=4)
        d.rectangle((25, 50, 135, 100), fill=c8(WHITE))
        text(d, (80, 75), "NOVEL", 26, INK)
    else:
        d.rectangle((0, 140, 160, 190), fill=c8(WHITE))
        text(d, (80, 165), "ATLAS", 26, INK)
        d.ellipse((50, 30, 110, 90), outline=c8(gold), width=5)
    cv.paste(cover, (0, 0.45), (0, 1))
    cv.paste(cover.transpose(Image.Transpose.FLIP_TOP_BOTTOM), (0.45, 0.9), (0, 1))
    cv.fill((0.93, 0.9, 0.8), (0, 1), (0.9, 0.95))  # page edges
    cv.stripes((0.8, 0.77, 0.68), 6, (0, 1), 0.3, u=(0.9, 0.95))
    cv.fill(shade(c, 0.75), (0, 1), (0.95, 1.0))
    return cv



def jar(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    fill = JAR_FILL.get(name, c)
    cv = Canvas(128, 128, fill=fill)
    cv.noise(0.2, rng, (8, 16))
    cv.fill(mix(fill, WHITE, 0.5), (0.55, 0.75))  # headspace seen through the glass
    cv.stripes(WHITE, 2, (0.05, 0.72), 0.06, vertical=True)  # glass highlights
    img, d = panel(128, 40, (0.96, 0.94, 0.86))
    d.rectangle((2, 2, 125, 37), outline=c8((0.7, 0.15, 0.1)), width=2)
    text(d, (64, 20), BRANDS["jar"][k], 20, (0.6, 0.12, 0.08))
    cv.paste(img, (0.0, 1.0), (0.25, 0.42))
    lid = shade(fill, 0.8) if name != "white" else (0.8, 0.8, 0.82)
    metal(cv, (0.75, 1.0), rng, lid)
    if k == 1:  # a gingham cloth cover
        cv.stripes(shade(lid, 1.5), 6, (0.75, 1.0), 0.4)
        cv.stripes(shade(lid, 1.5), 8, (0.75, 1.0), 0.4, vertical=True)
    return cv



def soap_bottle(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(128, 128, fill=c)
    cv.stripes(shade(c, 1.5), 2, (0.05, 0.6), 0.1, vertical=True)
    img, d = panel(128, 40, WHITE)
    text(d, (32, 20), "SOAP", 18, shade(c, 0.6))
    text(d, (96, 20), ("SOAP", "HAND")[k], 18, shade(c, 0.6))
    cv.paste(img, (0.0, 1.0), (0.2, 0.4))
    cv.fill(WHITE if k == 0 else (0.2, 0.2, 0.2), (0.63, 1.0))
    return cv
