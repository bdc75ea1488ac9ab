"""Shape builders of the object categories: each adds the geoms of one category to a free body
whose origin sits at the object's bottom centre plus ``half_height``. Shape geoms only show the
object and give it its mass; ``objects`` adds the one collider that does the contacts."""

from __future__ import annotations

from collections.abc import Callable

import mujoco

from recallbench.world.mjcf import BOX, CAPSULE, CYL, ELLIPSOID, SPHERE, VISUAL, Vec, geom

RGBA = tuple[float, float, float, float]
# (body, object name, colour, alternative colour): adds the shape geoms
Adder = Callable[[mujoco.MjsBody, str, RGBA, RGBA], None]
DENSITY = 400.0


def _g(body: mujoco.MjsBody, name: str, k: int, gtype: mujoco.mjtGeom, size: Vec, pos: Vec,
       rgba: Vec, quat: Vec | None = None, visual: bool = False) -> mujoco.MjsGeom:
    # Shape geoms only show the object (and give it mass); the one collider ``objects`` adds
    # does the contacts.
    g = geom(body, f"{name}_g{k}", gtype, size, pos, rgba, VISUAL, quat=quat)
    g.density = 0.0 if visual else DENSITY
    return g


QX = (0.7071, 0.7071, 0, 0)  # axis along y
QY = (0.7071, 0, 0.7071, 0)  # axis along x
DARK = (0.15, 0.1, 0.05, 1)
GREEN = (0.2, 0.5, 0.15, 1)


def bowl(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
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


def mug(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.04, 0.05), (0, 0, 0), c)
    _g(b, n, 1, BOX, (0.008, 0.012, 0.03), (0.05, 0, 0), c)
    _g(b, n, 2, CYL, (0.034, 0.001), (0, 0, 0.05), DARK, visual=True)


def cup(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.035, 0.045), (0, 0, 0), c)


def plate(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.1, 0.008), (0, 0, 0), c)


def sphere_fruit(r: float) -> Adder:
    def add(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
        _g(b, n, 0, SPHERE, (r,), (0, 0, 0), c)
        _g(b, n, 1, CYL, (0.004, 0.01), (0, 0, r), DARK, visual=True)

    return add


def banana(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CAPSULE, (0.018, 0.07), (0, 0, 0), c, quat=QY)
    _g(b, n, 1, SPHERE, (0.008,), (0.088, 0, 0), DARK, visual=True)


def can(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.033, 0.06), (0, 0, 0), c)
    _g(b, n, 1, CYL, (0.03, 0.002), (0, 0, 0.06), (0.75, 0.75, 0.78, 1), visual=True)


def bottle(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.035, 0.07), (0, 0, -0.02), c)
    _g(b, n, 1, CYL, (0.014, 0.03), (0, 0, 0.07), c)
    _g(b, n, 2, CYL, (0.016, 0.008), (0, 0, 0.1), (0.9, 0.9, 0.9, 1), visual=True)


def box(hx: float, hy: float, hz: float) -> Adder:
    def add(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
        _g(b, n, 0, BOX, (hx, hy, hz), (0, 0, 0), c)

    return add


def cereal(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, BOX, (0.07, 0.03, 0.11), (0, 0, 0), c)
    _g(b, n, 1, BOX, (0.045, 0.001, 0.05), (0, 0.031, 0.01), (0.95, 0.95, 0.9, 1), visual=True)


def remote(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
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


def vase(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, ELLIPSOID, (0.05, 0.05, 0.06), (0, 0, -0.04), c)
    _g(b, n, 1, CYL, (0.025, 0.05), (0, 0, 0.05), c)


def teapot(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, ELLIPSOID, (0.07, 0.07, 0.055), (0, 0, 0), c)
    _g(b, n, 1, CAPSULE, (0.01, 0.04), (0.08, 0, 0.02), c, quat=(0.9239, 0, 0.3827, 0))
    _g(b, n, 2, BOX, (0.01, 0.008, 0.03), (-0.075, 0, 0.01), c)
    _g(b, n, 3, SPHERE, (0.015,), (0, 0, 0.058), c)


def ball(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, SPHERE, (0.06,), (0, 0, 0), c)


def candle(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.03, 0.06), (0, 0, 0), c)
    _g(b, n, 1, CYL, (0.002, 0.008), (0, 0, 0.066), DARK, visual=True)


def lemon(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, ELLIPSOID, (0.045, 0.033, 0.033), (0, 0, 0), c)


def jar(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.045, 0.055), (0, 0, -0.01), c)
    _g(b, n, 1, CYL, (0.047, 0.01), (0, 0, 0.055), (0.8, 0.75, 0.2, 1))


def sponge(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, BOX, (0.05, 0.035, 0.012), (0, 0, -0.008), c)
    _g(b, n, 1, BOX, (0.05, 0.035, 0.008), (0, 0, 0.012), GREEN)


def soap(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, BOX, (0.035, 0.025, 0.06), (0, 0, -0.02), c)
    _g(b, n, 1, CYL, (0.01, 0.02), (0, 0, 0.06), (0.9, 0.9, 0.9, 1))


def pot(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.1, 0.055), (0, 0, 0), c)
    for s in (-1, 1):
        _g(b, n, 1 + (s > 0), BOX, (0.025, 0.012, 0.008), (s * 0.12, 0, 0.04), DARK)


def kettle(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.07, 0.075), (0, 0, 0), c)
    _g(b, n, 1, BOX, (0.05, 0.01, 0.01), (0, 0, 0.11), DARK)
    _g(b, n, 2, CAPSULE, (0.012, 0.04), (0.085, 0, 0.02), c, quat=(0.9239, 0, 0.3827, 0))


def egg(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, ELLIPSOID, (0.022, 0.022, 0.03), (0, 0, 0), c)


def bread(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CAPSULE, (0.045, 0.07), (0, 0, 0), c, quat=QY)


def block(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, BOX, (0.03, 0.03, 0.03), (0, 0, 0), c)


def clock(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.06, 0.02), (0, 0, 0), c, quat=QX)
    _g(b, n, 1, CYL, (0.05, 0.001), (0, 0.021, 0), (0.97, 0.97, 0.95, 1), quat=QX, visual=True)
    _g(b, n, 2, BOX, (0.002, 0.001, 0.035), (0, 0.023, 0.015), DARK, visual=True)


def glass(b: mujoco.MjsBody, n: str, c: RGBA, alt: RGBA) -> None:
    _g(b, n, 0, CYL, (0.032, 0.055), (0, 0, 0), c[:3] + (0.6,))

