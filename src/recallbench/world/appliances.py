"""Appliance fixtures: microwave, toaster oven, oven, dishwasher, and the fridge/freezer tower
(each a carcass with a hinged door and an interior site; see ``fixture_parts``)."""

from __future__ import annotations

import mujoco

from recallbench.world.fixture_parts import (
    BLACK,
    OVEN_RANGE,
    FixtureInfo,
    T,
    carcass,
    hinged_door,
    interior,
    root,
)
from recallbench.world.mjcf import CYL, VISUAL, Vec, box, geom
from recallbench.world.styles import Style


def microwave(
    world: mujoco.MjsBody, name: str, room: str, pos: Vec, yaw: float, st: Style
) -> FixtureInfo:
    info = FixtureInfo(name, "microwave", room, f"{name}_main")
    w, d, h = 0.52, 0.38, 0.3
    body = root(world, name, pos, yaw)
    dark = (0.18, 0.18, 0.19, 1.0)
    carcass(body, name, w, d, h, dark)
    box(
        body,
        f"{name}_panel",
        (w / 2 - 0.06, d + T / 2, h / 2),
        (0.06, T / 2, h / 2),
        (0.12, 0.12, 0.13, 1),
    )
    for k in range(3):  # buttons
        box(
            body,
            None,
            (w / 2 - 0.06, d + T + 0.002, h * 0.75 - 0.05 * k),
            (0.03, 0.002, 0.012),
            (0.5, 0.55, 0.6, 1),
            VISUAL,
        )
    box(body, f"{name}_tray", (-0.06, d / 2, T + 0.005), (0.18, 0.15, 0.005), (0.7, 0.7, 0.7, 1))
    hinged_door(
        body,
        info,
        "door",
        "left",
        -w / 2,
        w / 2 - 0.12,
        0.01,
        h - 0.01,
        d,
        dark,
        st.accent,
        window=True,
    )
    interior(body, info, (-0.06, d / 2 + 0.01, T + 0.07), (0.17, 0.13, 0.06))
    return info


def toaster_oven(
    world: mujoco.MjsBody, name: str, room: str, pos: Vec, yaw: float, st: Style
) -> FixtureInfo:
    info = FixtureInfo(name, "toaster_oven", room, f"{name}_main")
    w, d, h = 0.42, 0.32, 0.24
    body = root(world, name, pos, yaw)
    shell = (0.75, 0.75, 0.77, 1.0)
    carcass(body, name, w, d, h, shell)
    box(body, f"{name}_panel", (w / 2 - 0.05, d + T / 2, h / 2), (0.05, T / 2, h / 2), BLACK)
    for k in range(2):
        geom(
            body,
            None,
            CYL,
            (0.018, 0.01),
            (w / 2 - 0.05, d + T + 0.01, h * 0.68 - 0.09 * k),
            (0.8, 0.8, 0.8, 1),
            VISUAL,
            quat=(0.7071, 0.7071, 0, 0),
        )
    for f in (-1, 1):
        box(body, None, (f * (w / 2 - 0.06), d / 2, -0.01), (0.02, 0.02, 0.01), BLACK)
    hinged_door(
        body,
        info,
        "door",
        "bottom",
        -w / 2 + 0.01,
        w / 2 - 0.1,
        0.015,
        h - 0.015,
        d,
        shell,
        BLACK,
        window=True,
    )
    interior(body, info, (-0.05, d / 2, T + 0.05), (0.13, 0.11, 0.04))
    return info


def oven(
    world: mujoco.MjsBody, name: str, room: str, pos: Vec, yaw: float, st: Style
) -> FixtureInfo:
    info = FixtureInfo(name, "oven", room, f"{name}_main")
    w, d, h = 0.76, 0.6, 0.86
    body = root(world, name, pos, yaw)
    steel = st.appliance
    carcass(body, name, w, d, h, steel)
    box(body, f"{name}_cooktop", (0, d / 2 + 0.01, h + 0.02), (w / 2, d / 2 + 0.01, 0.02), BLACK)
    for bx, by in ((-0.18, 0.18), (0.18, 0.18), (-0.18, 0.42), (0.18, 0.42)):
        geom(body, None, CYL, (0.09, 0.003), (bx, by, h + 0.041), (0.25, 0.25, 0.25, 1), VISUAL)
        geom(body, None, CYL, (0.05, 0.004), (bx, by, h + 0.042), (0.12, 0.12, 0.12, 1), VISUAL)
    box(body, f"{name}_controls", (0, d + T / 2, h - 0.06), (w / 2, T / 2, 0.06), steel)
    for k in range(5):
        geom(
            body,
            None,
            CYL,
            (0.02, 0.012),
            (-0.28 + 0.14 * k, d + T + 0.012, h - 0.06),
            BLACK,
            VISUAL,
            quat=(0.7071, 0.7071, 0, 0),
        )
    box(
        body,
        f"{name}_rack",
        (0, d / 2, 0.35),
        (w / 2 - T, d / 2 - 0.03, 0.005),
        (0.55, 0.55, 0.55, 1),
    )
    hinged_door(
        body,
        info,
        "door",
        "bottom",
        -w / 2 + 0.01,
        w / 2 - 0.01,
        0.1,
        h - 0.125,
        d,
        steel,
        st.accent,
        rng=OVEN_RANGE,
        window=True,
    )
    box(body, None, (0, d + T / 2, 0.05), (w / 2, T / 2, 0.05), BLACK, VISUAL)
    interior(body, info, (0, d / 2, 0.36 + 0.08), (0.3, 0.22, 0.08))
    return info


def dishwasher(
    world: mujoco.MjsBody, name: str, room: str, pos: Vec, yaw: float, st: Style
) -> FixtureInfo:
    info = FixtureInfo(name, "dishwasher", room, f"{name}_main")
    w, d, h = 0.6, 0.6, 0.86
    body = root(world, name, pos, yaw)
    carcass(body, name, w, d, h, (0.85, 0.86, 0.87, 1))
    box(
        body,
        f"{name}_rack",
        (0, d / 2, 0.2),
        (w / 2 - T, d / 2 - 0.04, 0.005),
        (0.6, 0.62, 0.65, 1),
    )
    box(body, None, (0, d + T / 2, 0.05), (w / 2, T / 2, 0.05), BLACK, VISUAL)
    door = hinged_door(
        body,
        info,
        "door",
        "bottom",
        -w / 2 + 0.005,
        w / 2 - 0.005,
        0.1,
        h - 0.01,
        d,
        st.appliance,
        st.accent,
    )
    box(door, None, (0, T + 0.001, h - 0.16), (w / 2 - 0.02, 0.001, 0.02), BLACK, VISUAL)
    interior(body, info, (0, d / 2, 0.21 + 0.08), (0.24, 0.22, 0.08))
    return info


def fridge_tower(
    world: mujoco.MjsBody, room: str, pos: Vec, yaw: float, st: Style
) -> list[FixtureInfo]:
    """Fridge below, freezer above: two fixtures, two roots, separate doors (like RoboCasa)."""
    w, d = 0.8, 0.7
    fridge = FixtureInfo("fridge", "fridge", room, "fridge_main")
    fb = root(world, "fridge", pos, yaw)
    white = st.appliance
    carcass(fb, "fridge", w, d, 1.24, white)
    box(fb, "fridge_shelf", (0, d / 2, 0.6), (w / 2 - T, d / 2 - T, 0.008), (0.85, 0.9, 0.95, 1))
    hinged_door(fb, fridge, "door", "left", -w / 2, w / 2, 0.01, 1.23, d, white, st.accent)
    interior(fb, fridge, (0, d / 2, 0.6 + 0.08), (0.3, 0.25, 0.07))
    freezer = FixtureInfo("freezer", "freezer", room, "freezer_main")
    zb = root(world, "freezer", (pos[0], pos[1], pos[2] + 1.26), yaw)
    carcass(zb, "freezer", w, d, 0.56, white)
    hinged_door(zb, freezer, "door", "left", -w / 2, w / 2, 0.01, 0.55, d, white, st.accent)
    interior(zb, freezer, (0, d / 2, T + 0.08), (0.3, 0.25, 0.07))
    return [fridge, freezer]
