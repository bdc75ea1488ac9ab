"""Object instances: one free-jointed body per object, its shape from the catalogue, one simple
collider, an optional striped pattern, and the metadata entry (FindingDory-style attributes)."""

from __future__ import annotations

import mujoco
import numpy as np

from recallbench.world.mjcf import BOX, CYL, OBJECT, SPHERE, VISUAL, Vec, geom
from recallbench.world.object_catalogue import (
    CATEGORIES,
    COLORS,
    PATTERNS,
    ROOM_CATEGORIES,
    Category,
)

__all__ = ["CATEGORIES", "COLORS", "PATTERNS", "ROOM_CATEGORIES", "SPHERE_COLLIDERS", "add_object"]

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


def add_object(
    world: mujoco.MjsBody, name: str, category: str, pos: Vec, yaw: float, rng: np.random.Generator
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


def _add_stripes(body: mujoco.MjsBody, name: str, cat: Category, rgba: Vec) -> None:
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
