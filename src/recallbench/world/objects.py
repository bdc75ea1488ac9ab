"""Object categories built from primitives, each instance with FindingDory-style attributes.

A category builder adds geoms to a free body whose origin sits at the object's bottom centre
plus ``half_height``; it returns nothing, the catalogue records the size.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import mujoco
import numpy as np

from recallbench.world.mjcf import BOX, CAPSULE, CYL, ELLIPSOID, OBJECT, SPHERE, VISUAL, geom

COLORS: dict[str, tuple[float, float, float, float]] = {
    "red": (0.8, 0.1, 0.1, 1),
    "green": (0.2, 0.65, 0.2, 1),
    "blue": (0.15, 0.3, 0.85, 1),
    "yellow": (0.95, 0.85, 0.15, 1),
    "orange": (0.95, 0.5, 0.1, 1),
    "purple": (0.5, 0.2, 0.65, 1),
    "white": (0.95, 0.95, 0.95, 1),
    "black": (0.08, 0.08, 0.08, 1),
    "brown": (0.45, 0.28, 0.12, 1),
    "pink": (0.95, 0.5, 0.7, 1),
    "grey": (0.55, 0.55, 0.58, 1),
}
PATTERNS = ("plain", "striped")
DENSITY = 400.0

Adder = Callable[[mujoco.MjsBody, str, tuple, tuple], None]


@dataclass(frozen=True)
class Category:
    name: str
    half_height: float  # origin height above the surface it rests on
    radius: float  # xy footprint radius, for spacing
    shape: str
    material: str
    function: str
    colors: tuple[str, ...]
    add: Adder
    stripes: bool = False  # can carry the "striped" pattern


def _g(body, name, k, gtype, size, pos, rgba, quat=None, visual=False):
    # Shape geoms only show the object (and give it mass); one simple collider per object
    # (see COLLIDERS) does the contacts: box-box and sphere-box are analytic in MuJoCo,
    # cylinders would go through the much slower general convex path.
    g = geom(body, f"{name}_g{k}", gtype, size, pos, rgba, VISUAL, quat=quat)
    g.density = 0.0 if visual else DENSITY
    return g


SPHERE_COLLIDERS = ("apple", "orange", "tomato", "ball")
# (hx, hy) of the collision box where it is not (radius, radius); hz is always half_height
BOX_XY = {
    "banana": (0.088, 0.018),
    "cereal_box": (0.07, 0.03),
    "book": (0.08, 0.11),
    "remote": (0.025, 0.08),
    "sponge": (0.05, 0.035),
    "soap_bottle": (0.035, 0.025),
    "bread": (0.115, 0.045),
    "clock": (0.06, 0.02),
    "mug": (0.058, 0.04),
    "pot": (0.145, 0.1),
    "kettle": (0.1, 0.07),
    "teapot": (0.11, 0.07),
    "lemon": (0.045, 0.033),
    "egg": (0.022, 0.022),
    "toy_block": (0.03, 0.03),
    "plate": (0.1, 0.1),
    "bowl": (0.075, 0.075),
}
COLLIDER_RGBA = (0.5, 0.5, 0.5, 0.0)
COLLIDER_GROUP = 3  # hidden in renders and segmentation (default groups 0-2 are drawn)


def _collider(body, name: str, cat: Category) -> None:
    if cat.name in SPHERE_COLLIDERS:
        g = geom(body, f"{name}_col", SPHERE, (cat.half_height,), (0, 0, 0), COLLIDER_RGBA, OBJECT)
    else:
        hx, hy = BOX_XY.get(cat.name, (cat.radius, cat.radius))
        g = geom(
            body, f"{name}_col", BOX, (hx, hy, cat.half_height), (0, 0, 0), COLLIDER_RGBA, OBJECT
        )
    g.density = 0.0
    g.group = COLLIDER_GROUP
    g.friction = [1.0, 0.01, 0.001]


QX = (0.7071, 0.7071, 0, 0)  # axis along y
QY = (0.7071, 0, 0.7071, 0)  # axis along x
DARK = (0.15, 0.1, 0.05, 1)
GREEN = (0.2, 0.5, 0.15, 1)


def _bowl(b, n, c, alt):
    _g(b, n, 0, CYL, (0.075, 0.03), (0, 0, 0), c)
    _g(
        b,
        n,
        1,
        CYL,
        (0.062, 0.002),
        (0, 0, 0.03),
        tuple(x * 0.8 for x in c[:3]) + (1,),
        visual=True,
    )


def _mug(b, n, c, alt):
    _g(b, n, 0, CYL, (0.04, 0.05), (0, 0, 0), c)
    _g(b, n, 1, BOX, (0.008, 0.012, 0.03), (0.05, 0, 0), c)
    _g(b, n, 2, CYL, (0.034, 0.001), (0, 0, 0.05), DARK, visual=True)


def _cup(b, n, c, alt):
    _g(b, n, 0, CYL, (0.035, 0.045), (0, 0, 0), c)


def _plate(b, n, c, alt):
    _g(b, n, 0, CYL, (0.1, 0.008), (0, 0, 0), c)


def _sphere_fruit(r):
    def add(b, n, c, alt):
        _g(b, n, 0, SPHERE, (r,), (0, 0, 0), c)
        _g(b, n, 1, CYL, (0.004, 0.01), (0, 0, r), DARK, visual=True)

    return add


def _banana(b, n, c, alt):
    _g(b, n, 0, CAPSULE, (0.018, 0.07), (0, 0, 0), c, quat=QY)
    _g(b, n, 1, SPHERE, (0.008,), (0.088, 0, 0), DARK, visual=True)


def _can(b, n, c, alt):
    _g(b, n, 0, CYL, (0.033, 0.06), (0, 0, 0), c)
    _g(b, n, 1, CYL, (0.03, 0.002), (0, 0, 0.06), (0.75, 0.75, 0.78, 1), visual=True)


def _bottle(b, n, c, alt):
    _g(b, n, 0, CYL, (0.035, 0.07), (0, 0, -0.02), c)
    _g(b, n, 1, CYL, (0.014, 0.03), (0, 0, 0.07), c)
    _g(b, n, 2, CYL, (0.016, 0.008), (0, 0, 0.1), (0.9, 0.9, 0.9, 1), visual=True)


def _box(hx, hy, hz):
    def add(b, n, c, alt):
        _g(b, n, 0, BOX, (hx, hy, hz), (0, 0, 0), c)

    return add


def _cereal(b, n, c, alt):
    _g(b, n, 0, BOX, (0.07, 0.03, 0.11), (0, 0, 0), c)
    _g(b, n, 1, BOX, (0.045, 0.001, 0.05), (0, 0.031, 0.01), (0.95, 0.95, 0.9, 1), visual=True)


def _remote(b, n, c, alt):
    _g(b, n, 0, BOX, (0.025, 0.08, 0.01), (0, 0, 0), c)
    for k in range(3):
        _g(
            b,
            n,
            1 + k,
            CYL,
            (0.006, 0.002),
            (0, 0.04 - 0.03 * k, 0.01),
            (0.8, 0.1, 0.1, 1),
            visual=True,
        )


def _vase(b, n, c, alt):
    _g(b, n, 0, ELLIPSOID, (0.05, 0.05, 0.06), (0, 0, -0.04), c)
    _g(b, n, 1, CYL, (0.025, 0.05), (0, 0, 0.05), c)


def _teapot(b, n, c, alt):
    _g(b, n, 0, ELLIPSOID, (0.07, 0.07, 0.055), (0, 0, 0), c)
    _g(b, n, 1, CAPSULE, (0.01, 0.04), (0.08, 0, 0.02), c, quat=(0.9239, 0, 0.3827, 0))
    _g(b, n, 2, BOX, (0.01, 0.008, 0.03), (-0.075, 0, 0.01), c)
    _g(b, n, 3, SPHERE, (0.015,), (0, 0, 0.058), c)


def _ball(b, n, c, alt):
    _g(b, n, 0, SPHERE, (0.06,), (0, 0, 0), c)


def _candle(b, n, c, alt):
    _g(b, n, 0, CYL, (0.03, 0.06), (0, 0, 0), c)
    _g(b, n, 1, CYL, (0.002, 0.008), (0, 0, 0.066), DARK, visual=True)


def _lemon(b, n, c, alt):
    _g(b, n, 0, ELLIPSOID, (0.045, 0.033, 0.033), (0, 0, 0), c)


def _jar(b, n, c, alt):
    _g(b, n, 0, CYL, (0.045, 0.055), (0, 0, -0.01), c)
    _g(b, n, 1, CYL, (0.047, 0.01), (0, 0, 0.055), (0.8, 0.75, 0.2, 1))


def _sponge(b, n, c, alt):
    _g(b, n, 0, BOX, (0.05, 0.035, 0.012), (0, 0, -0.008), c)
    _g(b, n, 1, BOX, (0.05, 0.035, 0.008), (0, 0, 0.012), GREEN)


def _soap(b, n, c, alt):
    _g(b, n, 0, BOX, (0.035, 0.025, 0.06), (0, 0, -0.02), c)
    _g(b, n, 1, CYL, (0.01, 0.02), (0, 0, 0.06), (0.9, 0.9, 0.9, 1))


def _pot(b, n, c, alt):
    _g(b, n, 0, CYL, (0.1, 0.055), (0, 0, 0), c)
    for s in (-1, 1):
        _g(b, n, 1 + (s > 0), BOX, (0.025, 0.012, 0.008), (s * 0.12, 0, 0.04), DARK)


def _kettle(b, n, c, alt):
    _g(b, n, 0, CYL, (0.07, 0.075), (0, 0, 0), c)
    _g(b, n, 1, BOX, (0.05, 0.01, 0.01), (0, 0, 0.11), DARK)
    _g(b, n, 2, CAPSULE, (0.012, 0.04), (0.085, 0, 0.02), c, quat=(0.9239, 0, 0.3827, 0))


def _egg(b, n, c, alt):
    _g(b, n, 0, ELLIPSOID, (0.022, 0.022, 0.03), (0, 0, 0), c)


def _bread(b, n, c, alt):
    _g(b, n, 0, CAPSULE, (0.045, 0.07), (0, 0, 0), c, quat=QY)


def _block(b, n, c, alt):
    _g(b, n, 0, BOX, (0.03, 0.03, 0.03), (0, 0, 0), c)


def _clock(b, n, c, alt):
    _g(b, n, 0, CYL, (0.06, 0.02), (0, 0, 0), c, quat=QX)
    _g(b, n, 1, CYL, (0.05, 0.001), (0, 0.021, 0), (0.97, 0.97, 0.95, 1), quat=QX, visual=True)
    _g(b, n, 2, BOX, (0.002, 0.001, 0.035), (0, 0.023, 0.015), DARK, visual=True)


def _glass(b, n, c, alt):
    _g(b, n, 0, CYL, (0.032, 0.055), (0, 0, 0), c[:3] + (0.6,))


CATEGORIES: dict[str, Category] = {
    c.name: c
    for c in (
        Category(
            "bowl",
            0.03,
            0.075,
            "round",
            "ceramic",
            "eating",
            ("white", "blue", "red", "green"),
            _bowl,
            True,
        ),
        Category(
            "mug",
            0.05,
            0.055,
            "cylindrical",
            "ceramic",
            "drinking",
            ("white", "red", "blue", "yellow", "black"),
            _mug,
            True,
        ),
        Category(
            "cup",
            0.045,
            0.035,
            "cylindrical",
            "plastic",
            "drinking",
            ("red", "blue", "green", "orange", "pink"),
            _cup,
            True,
        ),
        Category(
            "plate",
            0.008,
            0.1,
            "round",
            "ceramic",
            "eating",
            ("white", "blue", "grey"),
            _plate,
            True,
        ),
        Category(
            "apple",
            0.04,
            0.04,
            "round",
            "organic",
            "eating",
            ("red", "green", "yellow"),
            _sphere_fruit(0.04),
        ),
        Category(
            "orange", 0.04, 0.04, "round", "organic", "eating", ("orange",), _sphere_fruit(0.04)
        ),
        Category(
            "tomato", 0.035, 0.035, "round", "organic", "cooking", ("red",), _sphere_fruit(0.035)
        ),
        Category(
            "banana", 0.018, 0.09, "elongated", "organic", "eating", ("yellow", "green"), _banana
        ),
        Category(
            "can",
            0.06,
            0.033,
            "cylindrical",
            "metal",
            "drinking",
            ("red", "blue", "green", "grey"),
            _can,
            True,
        ),
        Category(
            "bottle",
            0.09,
            0.035,
            "cylindrical",
            "glass",
            "drinking",
            ("green", "brown", "blue", "white"),
            _bottle,
        ),
        Category(
            "cereal_box",
            0.11,
            0.075,
            "rectangular",
            "cardboard",
            "eating",
            ("yellow", "red", "blue", "orange"),
            _cereal,
            True,
        ),
        Category(
            "book",
            0.02,
            0.11,
            "rectangular",
            "paper",
            "reading",
            ("red", "blue", "green", "black", "purple"),
            _box(0.08, 0.11, 0.02),
            True,
        ),
        Category(
            "remote",
            0.01,
            0.08,
            "rectangular",
            "plastic",
            "entertainment",
            ("black", "grey"),
            _remote,
        ),
        Category(
            "vase",
            0.1,
            0.05,
            "cylindrical",
            "glass",
            "decoration",
            ("blue", "white", "purple", "green"),
            _vase,
            True,
        ),
        Category(
            "teapot", 0.055, 0.09, "round", "ceramic", "drinking", ("white", "blue", "red"), _teapot
        ),
        Category(
            "ball",
            0.06,
            0.06,
            "spherical",
            "rubber",
            "playing",
            ("red", "blue", "yellow", "green", "orange"),
            _ball,
            True,
        ),
        Category(
            "candle",
            0.06,
            0.03,
            "cylindrical",
            "wax",
            "lighting",
            ("white", "red", "purple", "yellow"),
            _candle,
        ),
        Category("lemon", 0.033, 0.045, "oval", "organic", "cooking", ("yellow",), _lemon),
        Category(
            "jar",
            0.065,
            0.047,
            "cylindrical",
            "glass",
            "storage",
            ("white", "green", "orange"),
            _jar,
        ),
        Category(
            "sponge",
            0.02,
            0.05,
            "rectangular",
            "foam",
            "cleaning",
            ("yellow", "pink", "blue"),
            _sponge,
        ),
        Category(
            "soap_bottle",
            0.08,
            0.035,
            "rectangular",
            "plastic",
            "cleaning",
            ("pink", "green", "blue", "white"),
            _soap,
        ),
        Category(
            "pot", 0.055, 0.12, "cylindrical", "metal", "cooking", ("grey", "black", "red"), _pot
        ),
        Category(
            "kettle",
            0.075,
            0.1,
            "cylindrical",
            "metal",
            "cooking",
            ("grey", "black", "red", "white"),
            _kettle,
        ),
        Category("egg", 0.03, 0.022, "oval", "organic", "cooking", ("white", "brown"), _egg),
        Category("bread", 0.045, 0.12, "elongated", "organic", "eating", ("brown",), _bread),
        Category(
            "toy_block",
            0.03,
            0.03,
            "cubic",
            "wood",
            "playing",
            ("red", "blue", "yellow", "green"),
            _block,
            True,
        ),
        Category(
            "clock",
            0.06,
            0.06,
            "round",
            "plastic",
            "timekeeping",
            ("black", "white", "red"),
            _clock,
        ),
        Category(
            "glass",
            0.055,
            0.032,
            "cylindrical",
            "glass",
            "drinking",
            ("white", "blue", "green"),
            _glass,
        ),
    )
}

# Where each category plausibly lives (room types); kitchen categories also go into fixtures.
KITCHEN = (
    "bowl",
    "mug",
    "cup",
    "plate",
    "apple",
    "orange",
    "tomato",
    "banana",
    "can",
    "bottle",
    "cereal_box",
    "teapot",
    "lemon",
    "jar",
    "sponge",
    "pot",
    "kettle",
    "egg",
    "bread",
    "glass",
)
ROOM_CATEGORIES: dict[str, tuple[str, ...]] = {
    "kitchen": KITCHEN,
    "living_room": (
        "book",
        "remote",
        "vase",
        "ball",
        "candle",
        "mug",
        "clock",
        "toy_block",
        "bowl",
        "apple",
    ),
    "bedroom": ("book", "clock", "candle", "glass", "remote", "toy_block", "ball", "vase"),
    "dining_room": (
        "plate",
        "bowl",
        "cup",
        "glass",
        "vase",
        "candle",
        "bottle",
        "apple",
        "orange",
        "banana",
        "teapot",
    ),
    "bathroom": ("soap_bottle", "sponge", "candle", "cup", "glass", "jar"),
}


def add_object(
    world: mujoco.MjsBody, name: str, category: str, pos, yaw: float, rng: np.random.Generator
) -> dict:
    """Add one free-jointed instance and return its metadata entry (attributes included)."""
    from recallbench.world.mjcf import r4, yaw_quat

    cat = CATEGORIES[category]
    color = str(rng.choice(cat.colors))
    pattern = "striped" if cat.stripes and rng.random() < 0.3 else "plain"
    rgba = COLORS[color]
    body = world.add_body(name=name, pos=r4(pos), quat=yaw_quat(yaw))
    body.add_freejoint(name=f"{name}_joint")
    cat.add(body, name, rgba, rgba)
    _collider(body, name, cat)
    if pattern == "striped":
        stripe = COLORS["white" if color != "white" else "red"]
        _add_stripes(body, name, cat, stripe)
    return {
        "name": name,
        "category": category,
        "display_name": category.replace("_", " "),  # for "Show me where the {x} is placed."
        "body_name": name,
        "joint_name": f"{name}_joint",
        "attributes": {
            "color": color,
            "material": cat.material,
            "shape": cat.shape,
            "pattern": pattern,
            "function": cat.function,
        },
        "rgba": list(rgba),
        "half_height": cat.half_height,
    }


def _add_stripes(body, name: str, cat: Category, rgba) -> None:
    """Thin bands slightly proud of the first geom: visible stripes, no effect on physics."""
    h = cat.half_height
    for k, z in enumerate((-0.4 * h, 0.0, 0.4 * h)):
        if cat.name in ("book", "cereal_box", "toy_block"):
            dims = {
                "book": (0.081, 0.111, 0.02),
                "cereal_box": (0.071, 0.031, 0.11),
                "toy_block": (0.031, 0.031, 0.03),
            }[cat.name]
            geom(
                body,
                f"{name}_s{k}",
                BOX,
                (dims[0], dims[1], max(0.002, dims[2] * 0.08)),
                (0, 0, z),
                rgba,
                VISUAL,
            )
        elif cat.name == "ball":
            geom(
                body,
                f"{name}_s{k}",
                CYL,
                (0.061 * (1 - (z / 0.06) ** 2) ** 0.5, 0.004),
                (0, 0, z),
                rgba,
                VISUAL,
            )
        else:
            r = {"bowl": 0.075, "plate": 0.1, "mug": 0.04}.get(cat.name, cat.radius)
            geom(
                body,
                f"{name}_s{k}",
                CYL,
                (r + 0.0015, max(0.0015, h * 0.08)),
                (0, 0, z),
                rgba,
                VISUAL,
            )
