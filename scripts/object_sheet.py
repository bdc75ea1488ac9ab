"""Contact sheet of every object category and variant, close up, under the world's lights:
so a person can check each object is named at a glance.

    MUJOCO_GL=egl .venv/bin/python scripts/object_sheet.py docs/images/objects_after.png
    PYTHONPATH=/work/base/src ... scripts/object_sheet.py before.png   (older code: one variant)

Options: ``--only clock,mug`` some categories; ``--colours`` every colour (and the striped
print) of each, not one drawn at random; ``--azimuth 110`` from another side (-70: the default
view, 110: from behind); ``--robot`` as the FindingDory head camera sees them (1.5 m away,
25 deg down, at the head camera's 480 px over 43 deg).
"""

from __future__ import annotations

import argparse
import inspect
import math

import mujoco  # noqa: E402
import numpy as np
from PIL import Image, ImageDraw, ImageFont

import recallbench.world  # noqa: F401  (picks the headless GL backend before MuJoCo loads)
from recallbench.world import objects  # noqa: E402
from recallbench.world.asset_store import use_store  # noqa: E402
from recallbench.world.mjcf import make_directional  # noqa: E402

TILE = 150
SPACING = 0.8
HEAD_PX, HEAD_HFOV_DEG = 480, 43.0  # the FindingDory head camera's width and field of view


class _Pick:
    """A generator whose ``choice`` gives one colour and ``random`` decides the stripes."""

    def __init__(self, rng: np.random.Generator, colour: str, striped: bool) -> None:
        self.rng, self.colour, self.striped = rng, colour, striped

    def choice(self, options: tuple[str, ...]) -> str:
        return self.colour

    def random(self) -> float:
        return 0.0 if self.striped else 0.99

    def spawn(self, n: int) -> list[np.random.Generator]:
        return self.rng.spawn(n)


def _looks(cat: objects.Category, variants: int, colours: bool
           ) -> list[tuple[int, tuple[str, bool] | None]]:
    """(variant, its (colour, striped) or None: drawn at random) per tile of a category."""
    if not colours:
        return [(k, None) for k in range(variants)]
    out: list[tuple[int, tuple[str, bool] | None]] = []
    for c in cat.colors:
        out += [(k, (c, False)) for k in range(variants)]
    if cat.stripes:
        out += [(0, (cat.colors[0], True))]
    return out


def _scene(variants: int, only: list[str] | None = None, colours: bool = False
           ) -> tuple[mujoco.MjSpec, list[tuple[str, int, str, tuple[float, ...]]]]:
    spec = mujoco.MjSpec()
    use_store(spec)
    spec.visual.headlight.ambient = [0.45, 0.45, 0.45]  # as world.builder sets them
    spec.visual.headlight.diffuse = [0.35, 0.35, 0.35]
    spec.visual.headlight.specular = [0.0, 0.0, 0.0]
    spec.visual.map.znear = 0.01
    spec.stat.extent = 10.0  # as the world: znear is relative to it
    spec.visual.quality.numslices = 16
    spec.visual.quality.numstacks = 8
    light = spec.worldbody.add_light(name="sun", pos=[0, 0, 10], dir=[0.3, 0.2, -1.0],
                                     castshadow=False)  # the env renders no shadows
    make_directional(light)
    light.diffuse = [0.55, 0.55, 0.52]
    light.specular = [0.05, 0.05, 0.05]
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[40, 40, 0.1],
                            rgba=[0.72, 0.62, 0.48, 1])
    new_api = "spec" in inspect.signature(objects.add_object).parameters
    placed = []
    for i, cat in enumerate(objects.CATEGORIES.values()):
        if only and cat.name not in only:
            continue
        for j, (k, look) in enumerate(_looks(cat, variants, colours)):
            pos = (i * SPACING, j * SPACING, cat.half_height + 0.001)
            rng: np.random.Generator | _Pick = np.random.default_rng(1000 * i + k)
            if look is not None:
                rng = _Pick(np.random.default_rng(1000 * i + k), *look)
            name = f"o_{cat.name}_{j}"
            if new_api:
                e = objects.add_object(spec, name, cat.name, pos, 0.6, rng, variant=k)
            else:
                e = objects.add_object(spec.worldbody, name, cat.name, pos, 0.6, rng)
            placed.append((cat.name, k, e["attributes"]["color"] + " "
                           + ("striped " if e["attributes"]["pattern"] == "striped" else ""),
                           pos))
    return spec, placed


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--variants", type=int, default=None)
    ap.add_argument("--only", default="", help="comma-separated categories")
    ap.add_argument("--tile", type=int, default=TILE)
    ap.add_argument("--colours", action="store_true", help="every colour of each category")
    ap.add_argument("--azimuth", type=float, default=-70.0)
    ap.add_argument("--robot", action="store_true", help="at the head camera's distance")
    a = ap.parse_args()
    variants = a.variants or getattr(objects, "VARIANTS", 1)
    only = a.only.split(",") if a.only else None
    spec, placed = _scene(variants, only, a.colours)
    if a.robot:  # a tile's pixels per radian as the head camera's
        spec.visual.global_.fovy = math.degrees(2 * math.atan(
            a.tile / HEAD_PX * math.tan(math.radians(HEAD_HFOV_DEG) / 2)))
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    tile = a.tile
    r = mujoco.Renderer(model, tile, tile)
    cam = mujoco.MjvCamera()
    font = ImageFont.load_default(13)
    cols = 8
    rows = math.ceil(len(placed) / cols)
    sheet = Image.new("RGB", (cols * tile, rows * (tile + 16)), (255, 255, 255))
    for j, (cat, k, colour, pos) in enumerate(placed):
        c = objects.CATEGORIES[cat]
        cam.lookat[:] = pos
        cam.distance = 1.5 if a.robot else 0.15 + 3.0 * max(c.radius, c.half_height)
        cam.azimuth, cam.elevation = a.azimuth, (-25.0 if a.robot else -30.0)
        r.update_scene(data, camera=cam)
        x, y = (j % cols) * tile, (j // cols) * (tile + 16)
        sheet.paste(Image.fromarray(r.render()), (x, y))
        ImageDraw.Draw(sheet).text((x + 3, y + tile + 1), f"{colour}{cat} v{k}", fill=(0, 0, 0),
                                   font=font)
    sheet.save(a.out)
    r.close()


if __name__ == "__main__":
    main()
