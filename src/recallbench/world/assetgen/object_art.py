"""The object categories' textures: glazes, skins, printed labels and covers, drawn in the
texture bands of ``object_meshes`` (v rows). Each takes the catalogue colour the object is
asked about (its name and RGB), the variant and whether it is striped; that colour is the
object's dominant one, so "the red mug" is red where a person looks."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PIL import Image

from recallbench.world.assetgen.paint import RGB, Canvas, c8, mix, panel, shade, text

WHITE: RGB = (0.96, 0.96, 0.94)
INK: RGB = (0.08, 0.07, 0.07)
METAL: RGB = (0.78, 0.79, 0.8)
STEM: RGB = (0.35, 0.24, 0.1)
LEAF: RGB = (0.2, 0.5, 0.15)
Art = Callable[[str, RGB, int, bool, np.random.Generator], Canvas]


def _contrast(c: RGB) -> RGB:
    """White on dark colours, near-black on light ones (stripes, print)."""
    return INK if sum(c) > 2.2 else WHITE


def _glaze(c: RGB, k: int, striped: bool, rng: np.random.Generator, body: tuple[float, float],
           inside: tuple[float, float], size: tuple[int, int] = (64, 128)) -> Canvas:
    """Ceramic: a glossy glaze of c, a rim band or painted pattern, a lighter inside."""
    cv = Canvas(*size, fill=c)
    cv.fill(shade(c, 1.12), inside)
    cv.fill(shade(c, 0.55), (0.0, body[0]))  # unglazed foot
    accent = _contrast(c)
    top = body[1]
    if striped:
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
    cv = _glaze(c, k, striped, rng, (0.04, 0.6), (0.6, 0.9))
    cv.fill(shade(c, 0.35), (0.8, 0.9))  # coffee-dark floor inside
    if not striped and k == 1:
        img, d = panel(64, 32, c)
        d.ellipse((20, 4, 44, 28), fill=c8(_contrast(c)))
        cv.paste(img, (0.55, 0.95), (0.25, 0.45))
    return cv


def cup(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(64, 128, fill=c)
    cv.gradient(shade(c, 0.8), shade(c, 1.15), (0.05, 0.6))
    cv.fill(shade(c, 1.3), (0.6, 1.0))
    if striped:
        cv.stripes(WHITE, 4, (0.1, 0.58), 0.4)
    else:
        for v in (0.12, 0.16, 0.54):  # moulded rings of a plastic cup
            cv.fill(shade(c, 0.65), (v, v + 0.012))
    return cv


def plate(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(64, 128, fill=c)
    well = shade(c, 1.1) if k == 0 else shade(c, 1.2)
    cv.fill(well, (0.6, 1.0))
    acc = _contrast(c) if c[0] + c[1] + c[2] < 2.2 else (0.15, 0.3, 0.8)
    if striped:
        cv.stripes(acc, 3, (0.36, 0.95), 0.3)
    elif k == 0:
        cv.fill(acc, (0.38, 0.42))
        cv.fill(acc, (0.55, 0.58))
    else:
        cv.stripes(acc, 12, (0.4, 0.52), 0.5, vertical=True)
    cv.noise(0.04, rng)
    return cv


def _skin(c: RGB, rng: np.random.Generator, pores: float, size: tuple[int, int] = (64, 64)
          ) -> Canvas:
    cv = Canvas(*size, fill=c)
    cv.noise(0.18, rng, (4, 8))
    cv.speckle(shade(c, 1.25), pores, rng)
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
    cv = _skin(col, rng, 0.12)
    cv.noise(0.25, rng, (16, 32))
    cv.speckle(shade(col, 0.85), 0.05, rng)
    cv.fill((0.45, 0.5, 0.15), (0.96, 1.0))
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


def _metal(cv: Canvas, v: tuple[float, float], rng: np.random.Generator,
           c: RGB = METAL) -> None:
    cv.fill(c, v)
    cv.streaks(shade(c, 0.7), 0.5, rng, v, 16)


BRANDS = {"can": ("COLA", "FIZZ"), "cereal_box": ("CRUNCH", "OATS"), "jar": ("JAM", "HOME")}


def can(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(256, 128, fill=c)
    _metal(cv, (0.0, 0.1), rng)
    _metal(cv, (0.86, 1.0), rng)
    img, d = panel(256, 96, c)
    acc = _contrast(c)
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
    acc = _contrast(c)
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
            d.rectangle((0, y, 160, y + 14), fill=c8(_contrast(c)))
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


def vase(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(64, 128, fill=shade(c, 1.1))
    cv.stripes(shade(c, 1.8), 3 if k == 0 else 8, (0.05, 0.8), 0.14, vertical=True)
    cv.stripes(shade(c, 0.6), 6, (0.1, 0.7), 0.08)  # etched rings
    if striped:
        cv.stripes(shade(c, 0.7), 4, (0.1, 0.75), 0.25)
    cv.fill(shade(c, 0.8), (0.0, 0.04))
    cv.fill(shade(c, 1.5), (0.78, 0.84))
    return cv


def teapot(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = _glaze(c, k, striped, rng, (0.04, 0.6), (0.6, 0.8))
    cv.fill(shade(c, 0.9), (0.62, 0.8))
    if k == 0:  # painted flowers on the belly
        img, d = panel(128, 40, c)
        for x in (16, 48, 80, 112):
            for dx, dy in ((0, -6), (6, 0), (0, 6), (-6, 0)):
                d.ellipse((x + dx - 4, 20 + dy - 4, x + dx + 4, 20 + dy + 4),
                          fill=c8(_contrast(c)))
            d.ellipse((x - 3, 17, x + 3, 23), fill=c8((0.95, 0.8, 0.2)))
        cv.paste(img, (0, 1), (0.25, 0.42))
    return cv


def ball(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(128, 64, fill=c)
    acc = _contrast(c)
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


def lemon(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    col = (0.98, 0.88, 0.12) if k == 0 else (0.95, 0.82, 0.1)
    cv = _skin(col, rng, 0.1)
    cv.noise(0.2, rng, (16, 32))
    cv.speckle(shade(col, 0.88), 0.05, rng)
    cv.gradient((0.6, 0.7, 0.15), col, (0.0, 0.08))
    cv.gradient(col, (0.6, 0.7, 0.15), (0.92, 1.0))
    return cv


JAR_FILL = {"white": (0.95, 0.93, 0.86), "green": (0.25, 0.6, 0.2), "orange": (0.95, 0.5, 0.08)}


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
    _metal(cv, (0.75, 1.0), rng, lid)
    if k == 1:  # a gingham cloth cover
        cv.stripes(shade(lid, 1.5), 6, (0.75, 1.0), 0.4)
        cv.stripes(shade(lid, 1.5), 8, (0.75, 1.0), 0.4, vertical=True)
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


def soap_bottle(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(128, 128, fill=c)
    cv.stripes(shade(c, 1.5), 2, (0.05, 0.6), 0.1, vertical=True)
    img, d = panel(128, 40, WHITE)
    text(d, (32, 20), "SOAP", 18, shade(c, 0.6))
    text(d, (96, 20), ("SOAP", "HAND")[k], 18, shade(c, 0.6))
    cv.paste(img, (0.0, 1.0), (0.2, 0.4))
    cv.fill(WHITE if k == 0 else (0.2, 0.2, 0.2), (0.63, 1.0))
    return cv


def pot(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(64, 128, fill=c)
    if name == "grey":
        _metal(cv, (0, 1), rng, (0.75, 0.76, 0.78))
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
        _metal(cv, (0, 0.9), rng, (0.7, 0.71, 0.74))
    cv.fill((0.1, 0.1, 0.1), (0.9, 1.0))  # handle
    cv.fill((0.1, 0.1, 0.1), (0.76, 0.8))  # knob
    cv.fill((0.8, 0.8, 0.82), (0.0, 0.05))
    band = _contrast(c) if name != "grey" else (0.1, 0.1, 0.1)
    cv.fill(band, (0.3, 0.34))
    cv.fill(band, (0.12, 0.14))
    if k == 1:  # a water window
        cv.fill((0.45, 0.6, 0.75), (0.15, 0.5), (0.7, 0.76))
    cv.noise(0.04, rng)
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


def toy_block(name: str, c: RGB, k: int, striped: bool, rng: np.random.Generator) -> Canvas:
    cv = Canvas(128, 192, fill=c)
    acc = _contrast(c)
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


ARTS: dict[str, Art] = {
    f.__name__: f for f in (
        bowl, mug, cup, plate, apple, orange, tomato, banana, can, bottle, cereal_box, book,
        remote, vase, teapot, ball, candle, lemon, jar, sponge, soap_bottle, pot, kettle, egg,
        bread, toy_block, clock, glass)
}
