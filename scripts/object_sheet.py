"""Contact sheet of every object category and variant, close up, under the world's lights:
so a person can check each object is named at a glance.

    MUJOCO_GL=egl .venv/bin/python scripts/object_sheet.py docs/images/objects_after.png
    PYTHONPATH=/work/base/src ... scripts/object_sheet.py before.png   (older code: one variant)
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


def _scene(variants: int) -> tuple[mujoco.MjSpec, list[tuple[str, int, str, tuple[float, ...]]]]:
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
        for k in range(variants):
            pos = (i * SPACING, k * SPACING, cat.half_height + 0.001)
            rng = np.random.default_rng(1000 * i + k)
            name = f"o_{cat.name}_{k}"
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
    a = ap.parse_args()
    variants = a.variants or getattr(objects, "VARIANTS", 1)
    spec, placed = _scene(variants)
    if a.only:
        placed = [p for p in placed if p[0] in a.only.split(",")]
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
        cam.distance = 0.15 + 3.0 * max(c.radius, c.half_height)
        cam.azimuth, cam.elevation = -70.0, -30.0
        r.update_scene(data, camera=cam)
        x, y = (j % cols) * tile, (j // cols) * (tile + 16)
        sheet.paste(Image.fromarray(r.render()), (x, y))
        ImageDraw.Draw(sheet).text((x + 3, y + tile + 1), f"{colour}{cat} v{k}", fill=(0, 0, 0),
                                   font=font)
    sheet.save(a.out)
    r.close()


if __name__ == "__main__":
    main()
