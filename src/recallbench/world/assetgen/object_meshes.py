"""The object categories' meshes, two shape variants each, in the body frame the world uses:
origin at the object's bottom centre plus its half height, inside the old primitives' bounds
(so the unchanged collider still fits; a candle's flame, light that nothing touches, rises
above it). Each category's texture bands (``v`` ranges) are the
same in both variants, so any of its textures fits either mesh."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from recallbench.world.assetgen.meshkit import (
    Mesh,
    Rect,
    arc,
    box,
    merge,
    planar_uv,
    revolve,
    rot_x,
    rot_y,
    tube,
)

P = list[tuple[float, float, float]]


def curve(fr: Callable[[np.ndarray], np.ndarray], fz: Callable[[np.ndarray], np.ndarray],
          v: tuple[float, float], k: int = 6) -> P:
    """k profile points of (fr(t), fz(t)) for t in [0, 1], texture rows v[0] -> v[1]."""
    t = np.linspace(0.0, 1.0, k)
    vv = np.linspace(v[0], v[1], k)
    return [(float(a), float(b), float(c)) for a, b, c in zip(fr(t), fz(t), vv, strict=True)]


def line(p0: tuple[float, float], p1: tuple[float, float], v: tuple[float, float],
         k: int = 2) -> P:
    return curve(lambda t: p0[0] + (p1[0] - p0[0]) * t, lambda t: p0[1] + (p1[1] - p0[1]) * t,
                 v, k)


def hollow(outer: P, lip: float, inner_r: float, depth_z: float, v_in: tuple[float, float],
           k: int = 5, bulge: float = 0.0) -> P:
    """An open vessel: the outer profile (ending at the rim), a flat lip of width ``lip``, and
    an inside wall down to a floor at ``depth_z``, mapped to texture rows v_in."""
    r_top, z_top, v_top = outer[-1]
    r_in = r_top - lip
    t = np.linspace(0, 1, k)
    rr = r_in + (inner_r - r_in) * t**2 + bulge * np.sin(np.pi * t)
    zz = z_top + (depth_z - z_top) * np.sin(t * np.pi / 2)
    vv = v_in[0] + (v_in[1] - v_in[0]) * 0.9 * t
    inside = [(float(a), float(b), float(c)) for a, b, c in zip(rr, zz, vv, strict=True)]
    return outer + [(r_top, z_top, v_top), (r_in, z_top, v_in[0])] + [inside[0]] + inside[1:] + [
        (inside[-1][0], depth_z, v_in[1] - 0.05), (0.0, depth_z, v_in[1])]


def _flat_bottom(r: float, z: float, v: tuple[float, float]) -> P:
    return [(0.0, z, v[0]), (r, z, v[1]), (r, z, v[1])]


def bowl(k: int) -> Mesh:
    if k == 0:
        out = _flat_bottom(0.032, -0.03, (0, 0.04)) + curve(
            lambda t: 0.032 + 0.043 * np.sin(t * np.pi / 2),
            lambda t: -0.03 + 0.06 * (1 - np.cos(t * np.pi / 2)), (0.05, 0.5), 5)
    else:
        out = _flat_bottom(0.03, -0.03, (0, 0.04)) + line((0.03, -0.03), (0.03, -0.024),
                                                          (0.04, 0.05)) + curve(
            lambda t: 0.036 + 0.039 * t**0.8, lambda t: -0.024 + 0.054 * t**1.2, (0.05, 0.5), 6)
    return revolve(hollow(out, 0.004, 0.03, -0.024, (0.55, 1.0), 4), 14)


def mug(k: int) -> Mesh:
    r0, r1 = (0.038, 0.04) if k == 0 else (0.04, 0.034)
    out = _flat_bottom(r0 - 0.003, -0.05, (0, 0.04)) + line(
        (r0, -0.048), (r1, 0.05), (0.05, 0.6), 5)
    body = revolve(hollow(out, 0.004, r1 - 0.01, -0.042, (0.62, 0.88), 4), 12)
    # a thick, tall handle (its outer edge where the thinner one's was), so its silhouette
    # shows beside the body from most sides
    a = np.linspace(-1.75, 1.75, 13)
    path = np.stack([r1 - 0.004 + 0.0165 * np.cos(a), np.zeros_like(a),
                     0.007 + 0.033 * np.sin(a)], -1)
    return merge(body, tube(path, [0.008] * len(a), (0, 1, 0), 8, (0.9, 1.0)))


def cup(k: int) -> Mesh:
    out = _flat_bottom(0.025, -0.045, (0, 0.04)) + line((0.025, -0.045), (0.035, 0.043),
                                                        (0.05, 0.6), 5) + [(0.0355, 0.045, 0.61)]
    wob = None if k == 0 else (lambda a: 1 + 0.035 * np.abs(np.sin(a * 6)))
    seg = 12 if k == 0 else 18  # flutes need the segments
    return revolve(hollow(out, 0.0015, 0.024, -0.04, (0.62, 1.0), 4), seg, wobble=wob)


PLATE_TOP: Rect = (0.0, 0.36, 1.0, 1.0)  # the plate's top, seen from above (``planar_uv``)


def plate(k: int) -> Mesh:
    """Texture rows 0-0.35 run round the underside and the rim's edge; the top (rim and well)
    is mapped flat from above onto ``PLATE_TOP``, so its print is drawn as seen."""
    well = 0.055 if k == 0 else 0.065
    under = _flat_bottom(0.06, -0.008, (0, 0.1)) + curve(
        lambda t: 0.06 + 0.04 * t, lambda t: -0.008 + 0.016 * t**1.5, (0.1, 0.3), 4) + [
        (0.1, 0.008, 0.3), (0.099, 0.008, 0.35)]
    top = curve(lambda t: 0.099 - (0.099 - well) * t, lambda t: 0.008 - 0.0085 * t**0.7,
                (0.35, 0.6), 4) + [(well, -0.0005, 0.6), (0.0, -0.0005, 1.0)]
    return merge(revolve(under, 18), planar_uv(revolve(top, 18), 0.1, PLATE_TOP))


def _round(rad: Callable[[np.ndarray], np.ndarray], zh: Callable[[np.ndarray], np.ndarray],
           v: tuple[float, float], k: int = 12) -> P:
    """A closed round body: theta from the bottom pole (0) to the top pole (pi)."""
    return curve(lambda t: np.maximum(rad(t * np.pi), 0.0) * (np.sin(t * np.pi) > 1e-9),
                 lambda t: zh(t * np.pi), v, k)


def _stem(z0: float, z1: float, r: float, lean: float, v: tuple[float, float]) -> Mesh:
    path = np.stack([np.linspace(0, lean, 4), np.zeros(4), np.linspace(z0, z1, 4)], -1)
    return tube(path, [r, r, r * 0.9, r * 0.8], (0, 1, 0), 6, v)


def apple(k: int) -> Mesh:
    sq = 0.0 if k == 0 else 0.06
    prof = _round(lambda th: 0.04 * np.sin(th) * (1 - 0.1 * np.cos(th) - sq * np.sin(th) ** 8),
                  lambda th: -0.039 * np.cos(th) - 0.011 * np.exp(-((np.pi - th) / 0.45) ** 2)
                  + 0.005 * np.exp(-(th / 0.4) ** 2), (0.0, 0.9), 9)
    return merge(revolve(prof, 12), _stem(0.022, 0.043, 0.003, 0.006, (0.92, 1.0)))


def orange(k: int) -> Mesh:
    fz = 0.037 if k == 0 else 0.032
    prof = _round(lambda th: 0.04 * np.sin(th), lambda th: -fz * np.cos(th), (0, 1), 9)
    return revolve(prof, 12).moved(shift=(0, 0, fz - 0.04))


def tomato(k: int) -> Mesh:
    lobes = 5 if k == 0 else 6
    prof = _round(lambda th: 0.035 * np.sin(th), lambda th: -0.028 * np.cos(th)
                  - 0.006 * np.exp(-((np.pi - th) / 0.5) ** 2), (0, 0.9), 9)

    def wob(a: np.ndarray) -> np.ndarray:
        return 1 + 0.04 * np.cos(a * lobes)

    body = revolve(prof, 12 if lobes == 6 else 15, wobble=wob).moved(shift=(0, 0, -0.005))
    return merge(body, _stem(0.015, 0.03, 0.0025, 0.003, (0.92, 1.0)))


def banana(k: int) -> Mesh:
    bend = 0.11 if k == 0 else 0.14
    a = np.linspace(-0.75, 0.75, 13)
    path = np.stack([bend * np.sin(a), bend * (1 - np.cos(a)) - 0.015, np.zeros_like(a)], -1)
    path[:, 0] *= 0.088 / (bend * math.sin(0.75) + 0.004)
    t = np.linspace(-1, 1, len(a))
    rad = 0.016 * np.sqrt(np.clip(1 - np.abs(t) ** 3, 0.03, 1)) + 0.002
    return tube(path, rad, (0, 0, 1), 7, (0.0, 1.0))


def can(k: int) -> Mesh:
    top = 0.06 if k == 0 else 0.058
    r = 0.033 if k == 0 else 0.031
    prof = [(0.0, -0.056, 0.0), (0.026, -0.06, 0.04), (r, -0.054, 0.08), (r, -0.054, 0.08)]
    prof += line((r, -0.052), (r, top - 0.01), (0.1, 0.86), 3)
    prof += [(r, top - 0.01, 0.88), (r - 0.004, top - 0.002, 0.9), (r - 0.004, top, 0.92),
             (r - 0.006, top, 0.93), (r - 0.006, top - 0.004, 0.95), (0.0, top - 0.004, 1.0)]
    return revolve(prof, 14)


def bottle(k: int) -> Mesh:
    rb, neck, shoulder = (0.034, 0.011, 0.0) if k == 0 else (0.033, 0.016, 0.03)
    prof = _flat_bottom(0.03, -0.09, (0, 0.03)) + [(0.034, -0.086, 0.05)]
    prof += line((rb, -0.08), (rb, 0.02 - shoulder), (0.1, 0.55), 3)
    prof += curve(lambda t: rb - (rb - neck) * np.sin(t * np.pi / 2) ** 1.5,
                  lambda t: 0.02 - shoulder + (0.045 + shoulder) * t, (0.56, 0.75), 5)
    prof += line((neck, 0.067), (neck, 0.082), (0.76, 0.84))
    prof += [(neck, 0.082, 0.85), (neck + 0.002, 0.083, 0.86), (neck + 0.002, 0.1, 0.95),
             (neck + 0.002, 0.1, 0.97), (0.0, 0.1, 1.0)]
    return revolve(prof, 14)


# cereal box / book / remote / sponge / block atlas rectangles (u0, v0, u1, v1)
BOX_RECTS: dict[str, dict[str, Rect]] = {
    "cereal_box": {"front": (0, 0, 0.36, 1), "back": (0.36, 0, 0.72, 1),
                   "left": (0.72, 0, 0.86, 1), "right": (0.86, 0, 1, 1),
                   "top": (0.72, 0.95, 0.86, 1), "bottom": (0.72, 0, 0.86, 0.05)},
    "book": {"top": (0, 0, 0.45, 1), "bottom": (0.45, 0, 0.9, 1), "left": (0.95, 0, 1, 1),
             "right": (0.9, 0, 0.95, 1), "front": (0.9, 0, 0.95, 1), "back": (0.9, 0, 0.95, 1)},
    "remote": {"top": (0, 0, 0.5, 1), "bottom": (0.5, 0, 1, 1), "left": (0.5, 0, 1, 1),
               "right": (0.5, 0, 1, 1), "front": (0.5, 0, 1, 0.2), "back": (0.5, 0, 1, 0.2)},
    "sponge": {"top": (0, 0.5, 0.5, 1), "bottom": (0.5, 0.5, 1, 1), "front": (0, 0, 1, 0.5),
               "back": (0, 0, 1, 0.5), "left": (0, 0, 0.5, 0.5), "right": (0.5, 0, 1, 0.5)},
    "toy_block": {f: (0.5 * (i % 2), 1 - (i // 2 + 1) / 3, 0.5 * (i % 2) + 0.5,
                      1 - (i // 2) / 3)
                  for i, f in enumerate(("front", "back", "left", "right", "top", "bottom"))},
}


def cereal_box(k: int) -> Mesh:
    return box((0.07, 0.03, 0.11) if k == 0 else (0.066, 0.028, 0.108), BOX_RECTS["cereal_box"])


def book(k: int) -> Mesh:
    hz = 0.02 if k == 0 else 0.014
    return box((0.08, 0.11, hz), BOX_RECTS["book"], (0, 0, hz - 0.02))


def remote(k: int) -> Mesh:
    return box((0.025, 0.08, 0.01) if k == 0 else (0.022, 0.075, 0.009), BOX_RECTS["remote"])


def sponge(k: int) -> Mesh:
    return box((0.05, 0.035, 0.02) if k == 0 else (0.047, 0.032, 0.02), BOX_RECTS["sponge"])


def toy_block(k: int) -> Mesh:
    return box((0.03, 0.03, 0.03), BOX_RECTS["toy_block"])


def vase(k: int) -> Mesh:
    if k == 0:
        out = _flat_bottom(0.03, -0.1, (0, 0.03)) + curve(
            lambda t: 0.03 + 0.02 * np.sin(t * np.pi * 0.9) - 0.008 * t,
            lambda t: -0.1 + 0.15 * t, (0.05, 0.7), 7) + curve(
            lambda t: 0.024 + 0.012 * t**2, lambda t: 0.05 + 0.05 * t, (0.72, 0.8), 3)
    else:
        out = _flat_bottom(0.028, -0.1, (0, 0.03)) + curve(
            lambda t: 0.028 + 0.014 * t, lambda t: -0.1 + 0.2 * t, (0.05, 0.8), 4)
    wob = None if k == 0 else (lambda a: 1 + 0.06 * np.abs(np.cos(a * 4)))
    return revolve(hollow(out, 0.003, 0.018, -0.085, (0.82, 1.0), 4), 16, wobble=wob)


def teapot(k: int) -> Mesh:
    sx = 1.0 if k == 0 else 0.9
    prof = _flat_bottom(0.045, -0.055, (0, 0.04)) + curve(
        lambda t: 0.045 + 0.025 * np.sin(t * np.pi), lambda t: -0.055 + 0.085 * t,
        (0.05, 0.6), 7) + [(0.045, 0.03, 0.62), (0.043, 0.033, 0.64)] + curve(
        lambda t: 0.043 * np.cos(t * np.pi / 2) + 0.006 * t, lambda t: 0.033 + 0.012 * np.sin(
            t * np.pi / 2), (0.65, 0.78), 4) + [(0.006, 0.05, 0.79), (0.01, 0.055, 0.8),
                                                 (0.0, 0.056, 0.82)]
    body = revolve(prof, 14).moved(scale=(sx, sx, 1))
    a = np.linspace(0, 1, 7)
    spout = np.stack([0.055 + 0.05 * a, np.zeros_like(a), -0.02 + 0.05 * a**1.4], -1)
    handle = arc((-0.068 * sx, 0, 0.005), 0.024, 1.4, 4.9, 10)
    return merge(body, tube(spout, 0.011 - 0.005 * a, (0, 1, 0), 6, (0.82, 0.9)),
                 tube(handle, [0.006] * 10, (0, 1, 0), 6, (0.9, 1.0)))


def ball(k: int) -> Mesh:
    return revolve(_round(lambda th: 0.06 * np.sin(th), lambda th: -0.06 * np.cos(th), (0, 1), 10),
                   24)


def candle(k: int) -> Mesh:
    """A pillar candle, lit: a dark wick and a teardrop flame (texture rows 0.94-1, drawn
    bright), the flame the one part above the old primitive's top (it is light: nothing touches
    it, the collider is unchanged). Variant 1 stands in a shallow metal dish (rows 0-0.04)."""
    r = 0.03 if k == 0 else 0.026
    prof = _flat_bottom(r, -0.06, (0, 0.03)) + line((r, -0.06), (r, 0.054), (0.05, 0.8), 4)
    prof += [(r - 0.002, 0.058, 0.82), (r - 0.006, 0.058, 0.85), (0.004, 0.054, 0.9),
             (0.0, 0.054, 0.9)]
    wick = np.stack([np.zeros(3), np.zeros(3), np.linspace(0.052, 0.07, 3)], -1)
    parts = [revolve(prof, 12), tube(wick, [0.0016] * 3, (0, 1, 0), 5, (0.905, 0.935)),
             revolve(flame(0.063, 0.034, 0.0085, (0.94, 1.0)), 10)]
    if k == 1:
        parts.append(revolve([(0.0, -0.0595, 0.0), (0.03, -0.0595, 0.01), (0.03, -0.0595, 0.01),
                              (0.03, -0.053, 0.02), (0.029, -0.052, 0.03),
                              (0.029, -0.052, 0.03), (0.027, -0.056, 0.04)], 14))
    return merge(*parts)


def flame(z0: float, h: float, r: float, v: tuple[float, float]) -> P:
    """A candle flame's profile: a teardrop from a round base at z0 to a point h above."""
    return curve(lambda t: r * np.sin(np.pi * t**0.6) * (1 - 0.25 * t),
                 lambda t: z0 + h * t, v, 9)


def lemon(k: int) -> Mesh:
    tip = 1.6 if k == 0 else 1.3  # pointed ends
    prof = _round(lambda th: 0.033 * np.sin(th) ** tip, lambda th: -0.045 * np.cos(th), (0, 1), 9)
    return revolve(prof, 12).moved(rot=rot_y(math.pi / 2))


def jar(k: int) -> Mesh:
    r = 0.045 if k == 0 else 0.042
    prof = _flat_bottom(r - 0.004, -0.065, (0, 0.03)) + line((r, -0.062), (r, 0.035), (0.05, 0.7),
                                                              4)
    prof += curve(lambda t: r - 0.006 * np.sin(t * np.pi / 2), lambda t: 0.035 + 0.008 * t,
                  (0.71, 0.74), 3)
    prof += [(r - 0.006, 0.043, 0.75), (0.047, 0.045, 0.78), (0.047, 0.064, 0.86),
             (0.047, 0.064, 0.88), (0.0, 0.066, 1.0)]
    return revolve(prof, 14)


def soap_bottle(k: int) -> Mesh:
    prof = _flat_bottom(0.033, -0.08, (0, 0.03)) + line((0.035, -0.078), (0.035, 0.025),
                                                        (0.05, 0.55), 3)
    prof += curve(lambda t: 0.035 - 0.025 * np.sin(t * np.pi / 2), lambda t: 0.025 + 0.015 * t,
                  (0.56, 0.62), 3)
    prof += [(0.01, 0.04, 0.63), (0.011, 0.04, 0.7), (0.009, 0.07, 0.85), (0.014, 0.07, 0.9),
             (0.014, 0.078, 0.95), (0.0, 0.078, 1.0)]
    body = revolve(prof, 12).moved(scale=(1, 0.72 if k == 0 else 0.6, 1))
    nozzle = np.stack([np.linspace(0, 0.035, 4), np.zeros(4), np.full(4, 0.074)], -1)
    return merge(body, tube(nozzle, [0.004] * 4, (0, 1, 0), 6, (0.9, 1.0)))


def pot(k: int) -> Mesh:
    r = 0.1 if k == 0 else 0.095
    out = _flat_bottom(r - 0.006, -0.055, (0, 0.04)) + line((r, -0.05), (r, 0.05), (0.05, 0.55), 3)
    body = revolve(hollow(out, 0.003, r - 0.005, -0.048, (0.58, 0.88), 4), 18)
    parts = [body]
    if k == 0:
        for s in (-1, 1):
            path = arc((s * (r + 0.018), 0, 0.03), 0.018, 0, math.pi, 7, "xy") * [1, 0.7, 1]
            parts.append(tube(path, [0.005] * 7, (0, 0, 1), 6, (0.92, 1.0)))
    else:
        grip = np.stack([np.linspace(r - 0.005, 0.145, 5), np.zeros(5),
                         np.linspace(0.03, 0.045, 5)], -1)
        parts.append(tube(grip, [0.008] * 5, (0, 1, 0), 6, (0.92, 1.0)))
        parts.append(tube(grip * [-1, 1, 1], [0.008] * 5, (0, 1, 0), 6, (0.92, 1.0)))
    return merge(*parts)


def kettle(k: int) -> Mesh:
    rb, rt = (0.07, 0.045) if k == 0 else (0.066, 0.058)
    prof = _flat_bottom(rb - 0.004, -0.075, (0, 0.03)) + line((rb, -0.072), (rt, 0.05),
                                                              (0.05, 0.6), 4)
    prof += [(rt, 0.05, 0.62), (rt - 0.004, 0.055, 0.65)] + curve(
        lambda t: (rt - 0.004) * np.cos(t * np.pi / 2) + 0.008 * t,
        lambda t: 0.055 + 0.01 * np.sin(t * np.pi / 2), (0.66, 0.76), 4)
    prof += [(0.008, 0.07, 0.78), (0.0, 0.072, 0.8)]
    body = revolve(prof, 14)
    a = np.linspace(0, 1, 6)
    spout = np.stack([rb - 0.01 + 0.04 * a, np.zeros_like(a), -0.04 + 0.06 * a], -1)
    handle = np.stack([np.linspace(-rt + 0.01, rt - 0.01, 9), np.zeros(9),
                       0.06 + 0.04 * np.sin(np.linspace(0, np.pi, 9)) ** 0.5], -1)
    return merge(body, tube(spout, 0.01 - 0.004 * a, (0, 1, 0), 6, (0.8, 0.88)),
                 tube(handle, [0.007] * 9, (0, 1, 0), 6, (0.9, 1.0)))


def egg(k: int) -> Mesh:
    f = 1.0 if k == 0 else 0.93
    return revolve(_round(lambda th: 0.022 * f * np.sin(th) * (1 + 0.12 * np.cos(th)),
                          lambda th: -0.03 * np.cos(th), (0, 1), 8), 12)


def bread(k: int) -> Mesh:
    hl = 0.112 if k == 0 else 0.1
    prof = curve(lambda t: 0.044 * np.sin(t * np.pi) ** 0.18, lambda t: -hl * np.cos(t * np.pi),
                 (0, 1), 9)
    m = revolve(prof, 12).moved(rot=rot_y(math.pi / 2))
    v = m.v.copy()
    v[:, 2] = np.where(v[:, 2] < 0, v[:, 2] * 0.8, v[:, 2] * (1.0 if k == 0 else 0.9))
    v[:, 2] -= 0.045 - 0.044 * 0.8
    return Mesh(v, m.t, m.n, m.f)


CLOCK_DIAL: Rect = (0.0, 0.5, 0.5, 1.0)  # the dial, seen face on (``planar_uv``)


def clock(k: int) -> Mesh:
    """A round clock standing on its rim, a dial on both faces (recessed behind a wide bezel in
    the case colour), so it reads as a clock from the front and from behind. Texture rows:
    0-0.1 the feet, 0.1-0.45 the case (rim and bezels), 0.45-0.5 the step down to the dial;
    each dial is mapped flat onto ``CLOCK_DIAL``. Variant 1 is a desk clock, smaller, on two
    splayed feet."""
    r = 0.06 if k == 0 else 0.054
    d = 0.64 * r  # the dial's radius
    front = [(r, 0.016, 0.25), (r - 0.003, 0.02, 0.3), (r - 0.003, 0.02, 0.3),
             (d + 0.003, 0.019, 0.45), (d + 0.003, 0.019, 0.45), (d, 0.013, 0.5)]
    back = [(a, -z, vv) for a, z, vv in reversed(front)]
    case = revolve(back + front, 24)  # the rim's run: back corner, the side, front corner
    dials = [planar_uv(revolve(p, 24), d, CLOCK_DIAL) for p in (
        [(0.0, -0.013, 1.0), (d, -0.013, 0.5)], [(d, 0.013, 0.5), (0.0, 0.013, 1.0)])]
    body = merge(case, *dials).moved(rot=rot_x(-math.pi / 2))
    if k == 0:
        return body
    body = body.moved(shift=(0, 0, 0.06 - r))
    feet = []
    for s in (-1, 1):
        path = np.stack([s * np.linspace(0.024, 0.036, 3), np.zeros(3),
                         np.linspace(-0.03, -0.0585, 3)], -1)
        feet.append(tube(path, [0.0045, 0.0045, 0.0035], (0, 1, 0), 6, (0.0, 0.1)))
    return merge(body, *feet)


def glass(k: int) -> Mesh:
    r0, r1 = (0.028, 0.032) if k == 0 else (0.03, 0.03)
    out = _flat_bottom(r0, -0.055, (0, 0.04)) + line((r0, -0.055), (r1, 0.055), (0.05, 0.6), 3)
    wob = None if k == 0 else (lambda a: 1 + 0.05 * np.abs(np.cos(a * 5)))
    seg = 12 if k == 0 else 20  # facets need the segments
    return revolve(hollow(out, 0.002, r0 - 0.003, -0.043, (0.62, 1.0), 4), seg, wobble=wob)


MESHES: dict[str, Callable[[int], Mesh]] = {
    f.__name__: f for f in (
        bowl, mug, cup, plate, apple, orange, tomato, banana, can, bottle, cereal_box, book,
        remote, vase, teapot, ball, candle, lemon, jar, sponge, soap_bottle, pot, kettle, egg,
        bread, toy_block, clock, glass)
}
