"""The ``objects`` family: every catalogue category's meshes (OBJ with texture coordinates,
``object_meshes``) and textures in each of its colours (PNG, drawn by the ``art_*`` modules:
``ARTS``), ``VARIANTS`` of each, plus a striped print for categories that can be striped."""

from __future__ import annotations

import io
import zlib
from collections.abc import Callable
from functools import partial
from pathlib import Path

import numpy as np
from PIL import Image

from recallbench.world.assetgen import art_food, art_household, art_print, art_tableware
from recallbench.world.assetgen.meshkit import obj_text
from recallbench.world.assetgen.object_meshes import MESHES
from recallbench.world.assetgen.paint import Art
from recallbench.world.object_catalogue import CATEGORIES, COLORS
from recallbench.world.object_shapes import VARIANTS, mesh_file, texture_file

LICENCE = "MIT (this project, see LICENSE)"
MODULE = "recallbench.world.assetgen.objects"
# Each category's texture artist: its function in an ``art_*`` module, named after it.
ARTS: dict[str, Art] = {
    f.__name__: f for f in (
        art_tableware.bowl, art_tableware.mug, art_tableware.cup, art_tableware.plate,
        art_tableware.teapot, art_tableware.vase, art_tableware.glass, art_tableware.pot,
        art_tableware.kettle,
        art_food.apple, art_food.orange, art_food.lemon, art_food.tomato, art_food.banana,
        art_food.egg, art_food.bread,
        art_print.can, art_print.bottle, art_print.cereal_box, art_print.book, art_print.jar,
        art_print.soap_bottle,
        art_household.remote, art_household.ball, art_household.sponge, art_household.candle,
        art_household.toy_block, art_household.clock)
}


def png_palette_bytes(img: Image.Image) -> bytes:
    """PNG of a 256-colour palette (a third of RGB's bytes; the same image, the same bytes)."""
    buf = io.BytesIO()
    img.quantize(256, dither=Image.Dither.NONE).save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def mesh_bytes(category: str, variant: int) -> bytes:
    return obj_text(MESHES[category](variant),
                    f"{category} variant {variant}: {MODULE}").encode()


def texture_bytes(category: str, colour: str, variant: int, striped: bool) -> bytes:
    name = texture_file(category, colour, variant, striped)
    rng = np.random.default_rng(zlib.crc32(name.encode()))
    rgb = tuple(float(x) for x in COLORS[colour][:3])
    canvas = ARTS[category](colour, (rgb[0], rgb[1], rgb[2]), variant, striped, rng)
    return png_palette_bytes(canvas.image())


def plan() -> dict[str, tuple[Callable[[], bytes], dict]]:
    """Every file of the family: name -> (what draws its bytes, manifest entry)."""
    out: dict[str, tuple[Callable[[], bytes], dict]] = {}
    for cat in CATEGORIES.values():
        for k in range(VARIANTS):
            out[mesh_file(cat.name, k)] = (partial(mesh_bytes, cat.name, k), _entry(
                f"object_meshes:{cat.name}", cat.name, k, kind="mesh"))
        for colour in cat.colors:
            prints = [(k, False) for k in range(VARIANTS)] + ([(0, True)] if cat.stripes else [])
            for k, striped in prints:
                entry = _entry(_where(ARTS[cat.name]), cat.name, k, kind="texture",
                               colour=colour, pattern="striped" if striped else "plain")
                if striped:
                    del entry["variant"]
                out[texture_file(cat.name, colour, k, striped)] = (
                    partial(texture_bytes, cat.name, colour, k, striped), entry)
    return out


def _where(art: Art) -> str:
    """``<module>:<function>`` of an artist in this package (its manifest source)."""
    return f"{art.__module__.rpartition('.')[2]}:{art.__name__}"


def _entry(function: str, category: str, variant: int, **extra: str) -> dict:
    """``function`` is ``<module>:<function>`` in this package."""
    return {"source": f"procedural: recallbench.world.assetgen.{function}", "licence": LICENCE,
            "category": category, "variant": variant, **extra}


def generate(out_dir: Path) -> dict[str, dict]:
    """Write the family's files into ``out_dir``; returns their manifest entries."""
    entries = {}
    for name, (draw, entry) in plan().items():
        (out_dir / name).write_bytes(draw())
        entries[name] = entry
    return entries
