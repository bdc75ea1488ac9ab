"""Drawing helpers for object textures: a canvas addressed in texture coordinates (``v`` = 0
at the bottom, as in the meshes), colour mixing, glaze/skin noise, stripes, printed text, and
what the ``art_*`` modules share (the palette, a contrasting colour, brushed metal)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from recallbench.world.assetgen.images import fractal_noise, value_noise

RGB = tuple[float, float, float]
WHITE: RGB = (0.96, 0.96, 0.94)
INK: RGB = (0.08, 0.07, 0.07)
METAL: RGB = (0.78, 0.79, 0.8)


def mix(a: Sequence[float], b: Sequence[float], t: float) -> RGB:
    return (a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t)


def shade(c: Sequence[float], f: float) -> RGB:
    """Darker (f < 1) or towards white (f > 1)."""
    return mix(c, (0, 0, 0), 1 - f) if f <= 1 else mix(c, (1, 1, 1), min(1.0, f - 1))


def c8(c: Sequence[float]) -> tuple[int, int, int]:
    return (int(round(c[0] * 255)), int(round(c[1] * 255)), int(round(c[2] * 255)))


class Canvas:
    """An RGB float image drawn in texture coordinates (u right, v up)."""

    def __init__(self, w: int, h: int, fill: Sequence[float] = (1, 1, 1)) -> None:
        self.w, self.h = w, h
        self.a = np.ones((h, w, 3), np.float32) * np.asarray(fill, np.float32)

    def rows(self, v0: float, v1: float) -> slice:
        return slice(int(round((1 - v1) * self.h)), int(round((1 - v0) * self.h)))

    def cols(self, u0: float, u1: float) -> slice:
        return slice(int(round(u0 * self.w)), int(round(u1 * self.w)))

    def fill(self, c: Sequence[float], v: tuple[float, float] = (0, 1),
             u: tuple[float, float] = (0, 1)) -> None:
        self.a[self.rows(*v), self.cols(*u)] = np.asarray(c, np.float32)

    def gradient(self, c0: Sequence[float], c1: Sequence[float], v: tuple[float, float],
                 u: tuple[float, float] = (0, 1)) -> None:
        """c0 at v[0] blending to c1 at v[1]."""
        rs = self.rows(*v)
        n = rs.stop - rs.start
        t = np.linspace(1, 0, max(n, 1), dtype=np.float32)[:, None, None]
        col = np.asarray(c0, np.float32) * (1 - t) + np.asarray(c1, np.float32) * t
        self.a[rs, self.cols(*u)] = col

    def noise(self, amount: float, rng: np.random.Generator, cells: tuple[int, ...] = (4, 8, 16),
              v: tuple[float, float] = (0, 1)) -> None:
        """Multiply by 1 +- amount of smooth noise (glaze, skin, wax)."""
        n = fractal_noise((self.h, self.w), rng, cells)
        rs = self.rows(*v)
        self.a[rs] *= (1 + amount * (n[rs] - 0.5) * 2)[..., None]

    def speckle(self, c: Sequence[float], density: float, rng: np.random.Generator,
                v: tuple[float, float] = (0, 1), size: int = 1) -> None:
        rs = self.rows(*v)
        mask = rng.random((rs.stop - rs.start, self.w)) < density
        if size > 1:
            k = np.zeros_like(mask)
            for dy in range(size):
                for dx in range(size):
                    k |= np.roll(np.roll(mask, dy, 0), dx, 1)
            mask = k
        self.a[rs][mask] = np.asarray(c, np.float32)

    def streaks(self, c: Sequence[float], amount: float, rng: np.random.Generator,
                v: tuple[float, float] = (0, 1), cells: int = 24) -> None:
        """Vertical streaks (apple skin, brushed metal): blend towards c by a noise of u."""
        n = value_noise((8, self.w), cells, rng)[0]
        t = (amount * n)[None, :, None]
        rs = self.rows(*v)
        self.a[rs] = self.a[rs] * (1 - t) + np.asarray(c, np.float32) * t

    def stripes(self, c: Sequence[float], n: int, v: tuple[float, float], width: float = 0.5,
                vertical: bool = False, u: tuple[float, float] = (0, 1)) -> None:
        """n bands of colour c across the region (horizontal, or vertical ones)."""
        span = (u if vertical else v)
        step = (span[1] - span[0]) / n
        for k in range(n):
            a0 = span[0] + k * step + step * (1 - width) / 2
            a1 = a0 + step * width
            if vertical:
                self.fill(c, v, (a0, a1))
            else:
                self.fill(c, (a0, a1), u)

    def image(self) -> Image.Image:
        return Image.fromarray((np.clip(self.a, 0, 1) * 255 + 0.5).astype(np.uint8), "RGB")

    def paste(self, img: Image.Image, u: tuple[float, float], v: tuple[float, float]) -> None:
        """Draw a PIL image (drawn upright) into a rectangle of the canvas."""
        rs, cs = self.rows(*v), self.cols(*u)
        w, h = cs.stop - cs.start, rs.stop - rs.start
        arr = np.asarray(img.convert("RGB").resize((w, h), Image.Resampling.LANCZOS), np.float32)
        self.a[rs, cs] = arr / 255.0


def panel(w: int, h: int, bg: Sequence[float]) -> tuple[Image.Image, ImageDraw.ImageDraw]:
    """An upright PIL image to draw printed art on (labels, covers), pasted with ``paste``."""
    img = Image.new("RGB", (w, h), c8(bg))
    return img, ImageDraw.Draw(img)


def text(d: ImageDraw.ImageDraw, xy: tuple[float, float], s: str, size: int,
         fill: Sequence[float], stroke: Sequence[float] | None = None) -> None:
    """Centred bold-ish text at xy (PIL's bundled font, so the bytes are the same everywhere)."""
    font = ImageFont.load_default(size)
    width = 0 if stroke is None else max(1, size // 10)
    d.text(xy, s, fill=c8(fill), font=font, anchor="mm", stroke_width=width,
           stroke_fill=None if stroke is None else c8(stroke))


# What draws one category's texture, in the texture bands of ``object_meshes`` (v rows): it takes
# the catalogue colour the object is asked about (its name and RGB), the variant, whether it is
# striped and an rng. That colour is the object's dominant one, so "the red mug" is red where a
# person looks.
Art = Callable[[str, RGB, int, bool, np.random.Generator], Canvas]


def round_picture(bg: Sequence[float], n: int = 256
                  ) -> tuple[Image.Image, ImageDraw.ImageDraw, Callable[[float, float], tuple]]:
    """A square picture of a round face (a plate's top, a clock's dial: the meshes map it flat,
    ``meshkit.planar_uv``), drawn at twice ``n`` to be smoothed by ``Canvas.paste``, and a
    function from face units (radius 1 at the picture's edge, y up) to its pixels."""
    img = Image.new("RGB", (2 * n, 2 * n), c8(bg))

    def px(x: float, y: float) -> tuple[float, float]:
        return ((1 + x) * n, (1 - y) * n)

    return img, ImageDraw.Draw(img), px


def contrast(c: RGB) -> RGB:
    """White on dark colours, near-black on light ones (stripes, print)."""
    return INK if sum(c) > 2.2 else WHITE


def metal(cv: Canvas, v: tuple[float, float], rng: np.random.Generator, c: RGB = METAL) -> None:
    """A band of brushed metal (can ends, lids, steel pots)."""
    cv.fill(c, v)
    cv.streaks(shade(c, 0.7), 0.5, rng, v, 16)
