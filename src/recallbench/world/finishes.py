"""Room finishes: which floor, wall, backsplash and fabric textures a home uses, and the
materials that show them at a believable scale.

The choice depends on (seed, style) through a generator of its own, so the floor plan, furniture
and objects (the seed's main stream) are the same whatever the finishes. Textures come from the
asset store's "rooms" family (``assetgen/rooms.py``).

MuJoCo maps a 2-D texture onto a box from the geom's local x and y (``texuniform``: one repeat
per ``2 / texrepeat`` metres), so only faces lying in the local xy plane show it undistorted:
floors are flat boxes, and walls are boxes turned so their local y is up and the faces a person
sees lie in local xy (``wall_box``)."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import mujoco
import numpy as np

from recallbench.world.asset_store import add_textured_material
from recallbench.world.mjcf import BOX, STATIC, Vec, geom
from recallbench.world.styles import RGBA

FAMILY = "rooms"
WHITE: RGBA = (1.0, 1.0, 1.0, 1.0)

# World size (metres) one repeat of each texture group covers.
FLOOR_TILE_M = {"wood": 0.72, "tile": 1.2, "stone": 1.6, "carpet": 0.6}
WALL_TILE_M = (1.0, 2.5)  # one wall texture: 1 m along, one wall height up
BACKSPLASH_TILE_M = 0.6
FABRIC_TILE_M = 0.4
FURNITURE_WOOD_M = 0.5

WOODS = ("oak", "walnut", "maple", "ash_grey", "cherry")
CARPETS = ("beige", "grey", "blue", "sage")
TILES = ("tile_white", "tile_checker", "tile_terracotta", "tile_grey", "stone_slate")
BATH_TILES = ("tile_white", "tile_grey", "tile_checker", "stone_travertine")
WALLS = ("paint", "stripes", "diamonds", "wainscot")
BACKSPLASHES = ("subway_white", "subway_green", "mosaic_blue")
COVERS = ("quilt", "plaid", "cotton")
# per room type: the floor kinds it may get ("wood" and "carpet" use the home's wood / carpet)
ROOM_FLOORS: dict[str, tuple[str, ...]] = {
    "kitchen": ("tiles",),
    "bathroom": ("bath_tiles",),
    "bedroom": ("carpet", "wood"),
    "living_room": ("wood", "wood", "carpet"),
    "dining_room": ("wood", "wood", "stone_travertine"),
}

# Material names the furniture uses (added by ``add_furniture_materials``).
MAT_WOOD = "rb_wood"
MAT_SOFA = "rb_sofa"
MAT_CUSHION = "rb_cushion"
MAT_COVER = "rb_cover"
MAT_PILLOW = "rb_pillow"


@dataclass(frozen=True)
class Finishes:
    """One home's finishes: a floor texture per room name, the wall pattern, the backsplash and
    the bed cover fabric."""

    floors: dict[str, str] = field(default_factory=dict)  # room name -> texture file
    wall: str = "paint"
    backsplash: str = "subway_white"
    cover: str = "quilt"


def choose_finishes(seed: int, style: int, rooms: list[tuple[str, str]]) -> Finishes:
    """Finishes for the home (seed, style) with ``rooms`` as (name, type) pairs."""
    rng = np.random.default_rng([seed, style, 38])
    wood = f"floor_wood_{_pick(rng, WOODS)}.png"
    carpet = f"floor_carpet_{_pick(rng, CARPETS)}.png"
    floors = {}
    for name, rtype in rooms:
        kind = _pick(rng, ROOM_FLOORS.get(rtype, ("wood",)))
        if kind == "wood":
            floors[name] = wood
        elif kind == "carpet":
            floors[name] = carpet
        elif kind == "tiles":
            floors[name] = f"floor_{_pick(rng, TILES)}.png"
        elif kind == "bath_tiles":
            floors[name] = f"floor_{_pick(rng, BATH_TILES)}.png"
        else:
            floors[name] = f"floor_{kind}.png"
    return Finishes(floors, _pick(rng, WALLS), _pick(rng, BACKSPLASHES), _pick(rng, COVERS))


def _pick(rng: np.random.Generator, options: tuple[str, ...]) -> str:
    return options[int(rng.integers(len(options)))]


def _repeat(metres: float) -> tuple[float, float]:
    """``texrepeat`` for a uniform texture covering ``metres`` per repeat."""
    return (round(2.0 / metres, 4), round(2.0 / metres, 4))


def floor_material(spec: mujoco.MjSpec, file: str) -> str:
    """The material of a floor texture, sized by its kind (planks, tiles, stone, carpet)."""
    group = file.split("_")[1]  # floor_<group>_...
    glossy = group in ("tile", "stone")
    return add_textured_material(
        spec, file.removesuffix(".png"), FAMILY, file, texrepeat=_repeat(FLOOR_TILE_M[group]),
        texuniform=True, specular=0.25 if glossy else 0.08, shininess=0.4,
    )


def wall_material(spec: mujoco.MjSpec, pattern: str) -> str:
    """The wall texture (near-white: the wall geoms' colour tints it): 1 m per repeat along the
    wall and exactly one wall height up (its skirting board sits on the floor)."""
    return add_textured_material(
        spec, f"wall_{pattern}", FAMILY, f"wall_{pattern}.png",
        texrepeat=(2.0 / WALL_TILE_M[0], 2.0 / WALL_TILE_M[1]), texuniform=True,
        specular=0.0, shininess=0.0,
    )


def wall_box(body: mujoco.MjsBody, name: str, seg: Vec, thickness: float, height: float,
             material: str, rgba: RGBA) -> mujoco.MjsGeom:
    """A wall segment (x0, y0, x1, y1) as a box turned so its local y points up and its two
    faces lie in local xy: same extent and collision as an axis-aligned box."""
    x0, y0, x1, y1 = seg
    hx, hy = (x1 - x0) / 2 + thickness / 2, (y1 - y0) / 2 + thickness / 2
    if hx >= hy:  # along world x: local (x, y, z) = world (x, z, -y)
        quat, size = (math.sqrt(0.5), math.sqrt(0.5), 0.0, 0.0), (hx, height / 2, hy)
    else:  # along world y: local (x, y, z) = world (y, z, x)
        quat, size = (0.5, 0.5, 0.5, 0.5), (hy, height / 2, hx)
    center = ((x0 + x1) / 2, (y0 + y1) / 2, height / 2)
    return geom(body, name, BOX, size, center, rgba, STATIC, quat=quat, material=material)


def dress_backsplash(spec: mujoco.MjSpec, choice: str) -> None:
    """Tile the kitchen run's backsplash (a thin box against the wall): turn it like a wall so
    its tiles show on the face, same place and extent."""
    body = spec.body("backsplash")
    if body is None:
        return
    mat = add_textured_material(
        spec, f"backsplash_{choice}", FAMILY, f"backsplash_{choice}.png",
        texrepeat=_repeat(BACKSPLASH_TILE_M), texuniform=True, specular=0.3, shininess=0.6,
    )
    for g in body.geoms:
        sx, sy, sz = g.size
        g.size = [sx, sz, sy]
        g.quat = [round(math.sqrt(0.5), 4), round(math.sqrt(0.5), 4), 0.0, 0.0]
        g.material = mat
        g.rgba = list(WHITE)


def add_furniture_materials(spec: mujoco.MjSpec, fin: Finishes) -> None:
    """The materials furniture names: wood grain and the fabrics (near-white textures: each geom's
    own colour, which takes precedence over a material's, tints them by the style)."""
    fab = _repeat(FABRIC_TILE_M)
    add_textured_material(spec, MAT_WOOD, FAMILY, "furniture_wood.png",
                          texrepeat=_repeat(FURNITURE_WOOD_M), texuniform=True,
                          specular=0.15, shininess=0.4)
    for mat, file in ((MAT_SOFA, "fabric_linen.png"), (MAT_CUSHION, "fabric_linen.png"),
                      (MAT_COVER, f"fabric_{fin.cover}.png"), (MAT_PILLOW, "fabric_cotton.png")):
        add_textured_material(spec, mat, FAMILY, file, texrepeat=fab, texuniform=True,
                              specular=0.0, shininess=0.0)
