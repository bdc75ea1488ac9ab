"""Dressed furniture: beds have pillows and a cover in another fabric, sofas have seat and back
cushions; every part stays inside the piece's footprint and none rises over the surface objects
are put on."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from recallbench.generate.findingdory_views import ViewCheck
from recallbench.world import asset_store
from recallbench.world import furniture as fu
from recallbench.world.builder import build_world
from recallbench.world.env import HomeEnv
from recallbench.world.finishes import MAT_COVER, MAT_CUSHION, MAT_PILLOW
from recallbench.world.furnish import _footprint

RGB = int(mujoco.mjtTextureRole.mjTEXROLE_RGB)
TOL = 3e-4  # positions and sizes are rounded to 0.1 mm


@pytest.fixture(scope="module")
def home() -> tuple[mujoco.MjModel, mujoco.MjData, dict]:
    built = build_world(0, 0)
    model = asset_store.model_from_xml(built.xml)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    return model, data, built.meta


def _parts(model: mujoco.MjModel, body: str) -> list[int]:
    b = model.body(body).id
    return list(range(model.body_geomadr[b], model.body_geomadr[b] + model.body_geomnum[b]))


def _material(model: mujoco.MjModel, g: int) -> str:
    mat = model.geom_matid[g]
    return model.material(mat).name if mat >= 0 else ""


def _world_box(model: mujoco.MjModel, data: mujoco.MjData, g: int) -> tuple[np.ndarray, ...]:
    rot = data.geom_xmat[g].reshape(3, 3)
    centre = data.geom_xpos[g] + rot @ model.geom_aabb[g][:3]
    half = np.abs(rot) @ model.geom_aabb[g][3:]
    return centre - half, centre + half


def _pieces(meta: dict, kind: str) -> list[dict]:
    found = [r for r in meta["receptacles"] if r["type"] == kind]
    assert found, f"the default home has no {kind}"
    return found


def test_beds_have_pillows_and_a_cover_of_another_fabric(home) -> None:
    model, _, meta = home
    for bed in _pieces(meta, "bed"):
        parts = _parts(model, bed["body_name"])
        pillows = [g for g in parts if _material(model, g) == MAT_PILLOW
                   and model.geom_type[g] == mujoco.mjtGeom.mjGEOM_ELLIPSOID]
        covers = [g for g in parts if _material(model, g) == MAT_COVER]
        assert len(pillows) == 2 and len(covers) >= 3  # the top and its drapes
        cover_tex = model.mat_texid[model.material(MAT_COVER).id, RGB]
        pillow_tex = model.mat_texid[model.material(MAT_PILLOW).id, RGB]
        assert cover_tex >= 0 and pillow_tex >= 0 and cover_tex != pillow_tex
        assert not np.allclose(model.geom_rgba[covers[0]], model.geom_rgba[pillows[0]], atol=0.1)


def test_sofas_have_seat_and_back_cushions(home) -> None:
    model, _, meta = home
    for sofa in _pieces(meta, "sofa"):
        parts = _parts(model, sofa["body_name"])
        cushions = [g for g in parts if _material(model, g) == MAT_CUSHION]
        boxes = [g for g in cushions if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_BOX]
        seat_level = [g for g in boxes if abs(model.geom_pos[g][2] - 0.45) < 1e-3]
        back_level = [g for g in boxes if model.geom_pos[g][2] > 0.55]
        assert len(seat_level) == 3 and len(back_level) == 3
        # the seat surface objects rest on is still there, as a collider under the cushions
        seat = model.geom(f"{sofa['name']}_seat")
        assert seat.contype[0] and seat.group[0] == 3


@pytest.mark.parametrize("kind", ["bed", "sofa"])
def test_dressing_stays_inside_the_footprint_and_below_the_surface(home, kind) -> None:
    model, data, meta = home
    for piece in _pieces(meta, kind):
        x0, y0, x1, y1 = _footprint(kind, piece["pos"], piece["yaw"])
        site = model.site(piece["top_site"]).id
        s_rot = data.site_xmat[site].reshape(3, 3)
        s_half = np.abs(s_rot) @ model.site_size[site]
        s_lo, s_hi = data.site_xpos[site] - s_half, data.site_xpos[site] + s_half
        surface = data.site_xpos[site][2] - model.site_size[site][2]
        for g in _parts(model, piece["body_name"]):
            lo, hi = _world_box(model, data, g)
            name = f"{piece['name']} geom {g}"
            assert x0 - TOL <= lo[0] and hi[0] <= x1 + TOL, name
            assert y0 - TOL <= lo[1] and hi[1] <= y1 + TOL, name
            over = (lo[:2] < s_hi[:2] - 2e-3).all() and (hi[:2] > s_lo[:2] + 2e-3).all()
            if over:
                assert hi[2] <= surface + 1e-3, f"{name} rises over the {kind}'s surface"


def _front_parts(model: mujoco.MjModel, piece: dict) -> list[int]:
    """The piece's parts on its front (local y beyond the body's depth): doors, drawers, handles."""
    depth = fu.SIZES[piece["type"]][1]
    return [g for g in _parts(model, piece["body_name"]) if model.geom_pos[g][1] > depth]


def test_a_cabinet_has_doors_and_a_chest_of_drawers_four_drawers(home) -> None:
    """The two closed pieces a home gained read apart: a cabinet two side-by-side doors with
    upright handles, a chest of drawers four rows of drawers with flat handles."""
    model, _, meta = home
    for cab in _pieces(meta, "cabinet"):
        front = _front_parts(model, cab)
        doors = [g for g in front if model.geom_size[g][2] > 0.3]
        handles = [g for g in front if g not in doors]
        assert len(front) == 4
        assert len(doors) == 2 and len({round(model.geom_pos[g][0], 3) for g in doors}) == 2
        assert all(model.geom_size[g][2] > model.geom_size[g][0] for g in handles), "upright"
    for chest in _pieces(meta, "chest_of_drawers"):
        front = _front_parts(model, chest)
        drawers = {round(model.geom_pos[g][2], 3) for g in front}
        assert len(drawers) == 4, "four rows of drawers"
        assert all(model.geom_size[g][0] > model.geom_size[g][2] for g in front)


@pytest.mark.parametrize("seed", [0, 3])
def test_a_walk_through_a_home_mostly_sees_furniture(seed: int) -> None:
    """From 120 random spots and headings on a home's floor, the head camera shows an object,
    receptacle or fixture (and more than one colour) in over 75% of views. Rooms with a few
    pieces each left the walls bare: 31% and 33% of views (seeds 0 and 3) showed nothing, and a
    recorded day walking along them saw nothing in 13% of its walking frames."""
    env = HomeEnv(seed=seed, style=seed % 5, kind="home")
    try:
        env.reset()
        grid = env.nav_grid
        cells = np.argwhere(grid.navigable)
        rng = np.random.default_rng(seed)
        check = ViewCheck(env)
        blind = 0
        for k in rng.choice(len(cells), 120, replace=False):
            x, y = grid.to_world(cells[k])
            blind += not check.readable(np.array([x, y, rng.uniform(-np.pi, np.pi)]), 0)
    finally:
        env.close()
    assert blind / 120 < 0.25, f"{blind} of 120 views show nothing"


def test_the_kitchen_world_keeps_its_table_only() -> None:
    """SceneMem's kitchen world is built as RoboCasa's kitchens are: the run and a table; the
    cabinets lining a home's kitchen are not in it."""
    meta = build_world(0, 0, "kitchen").meta
    furniture = {r["type"] for r in meta["receptacles"]} & set(fu.SIZES)
    assert furniture <= set(fu.KITCHEN_ALONE)
    home = build_world(0, 0, "home").meta
    assert any(r["type"] == "cabinet" and r["room"] == "kitchen" for r in home["receptacles"])
