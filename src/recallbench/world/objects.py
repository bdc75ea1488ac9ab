"""Object instances: one free-jointed body per object, its textured mesh (``object_shapes``),
one simple collider, and the metadata entry (FindingDory-style attributes)."""

from __future__ import annotations

import zlib

import mujoco
import numpy as np

from recallbench.world.mjcf import BOX, OBJECT, SPHERE, Vec, geom
from recallbench.world.object_catalogue import (
    CATEGORIES,
    COLORS,
    PATTERNS,
    ROOM_CATEGORIES,
    Category,
)
from recallbench.world.object_shapes import VARIANTS, add_shape, set_inertial

__all__ = [
    "CATEGORIES", "COLORS", "PATTERNS", "ROOM_CATEGORIES", "SPHERE_COLLIDERS", "add_object",
    "object_variant",
]

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


def _collider(body: mujoco.MjsBody, name: str, cat: Category) -> None:
    # One simple collider per object does the contacts: box-box and sphere-box are analytic in
    # MuJoCo, cylinders would go through the much slower general convex path.
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


def object_variant(rng: np.random.Generator, name: str) -> int:
    """Which of the category's variants an object shows: from a child of the world's generator
    (so the world seed decides it) without drawing from the generator itself, which would move
    every later draw of the world."""
    try:
        child = rng.spawn(1)[0]
    except (TypeError, ValueError):  # a generator without a seed sequence
        child = np.random.default_rng(zlib.crc32(name.encode()))
    return int(child.integers(VARIANTS))


def add_object(
    spec: mujoco.MjSpec,
    name: str,
    category: str,
    pos: Vec,
    yaw: float,
    rng: np.random.Generator,
    variant: int | None = None,
) -> dict:
    """Add one free-jointed instance to ``spec``'s world and return its metadata entry
    (attributes included). ``variant`` None: chosen from ``rng`` (``object_variant``)."""
    from recallbench.world.mjcf import r4, yaw_quat

    cat = CATEGORIES[category]
    color = str(rng.choice(cat.colors))
    pattern = "striped" if cat.stripes and rng.random() < 0.3 else "plain"
    if variant is None:
        variant = object_variant(rng, name)
    body = spec.worldbody.add_body(name=name, pos=r4(pos), quat=yaw_quat(yaw))
    body.add_freejoint(name=f"{name}_joint")
    add_shape(spec, body, name, category, cat.material, color, variant, pattern == "striped")
    set_inertial(body, category)
    _collider(body, name, cat)
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
        "rgba": list(COLORS[color]),
        "half_height": cat.half_height,
        "variant": variant,
    }
