"""Dressed furniture: beds have pillows and a cover in another fabric, sofas have seat and back
cushions; every part stays inside the piece's footprint and none rises over the surface objects
are put on."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from recallbench.world import asset_store
from recallbench.world.builder import build_world
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
