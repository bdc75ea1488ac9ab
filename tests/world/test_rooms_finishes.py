"""Rooms that look like rooms: every floor and wall shows a texture from the shipped "rooms"
family at a believable scale, the finishes differ between homes and suit each room type, and
walls (turned so their faces show the texture) block exactly what they blocked."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest

from recallbench.world import asset_store
from recallbench.world.builder import build_world
from recallbench.world.finishes import WALLS, choose_finishes, wall_box, wall_material
from recallbench.world.navigation import NavGrid

RGB = int(mujoco.mjtTextureRole.mjTEXROLE_RGB)


def _model(seed: int, style: int) -> tuple[mujoco.MjModel, dict]:
    built = build_world(seed, style)
    return asset_store.model_from_xml(built.xml), built.meta


@pytest.fixture(scope="module")
def home() -> tuple[mujoco.MjModel, dict]:
    return _model(0, 0)


def _texture_of(model: mujoco.MjModel, geom: str) -> str:
    """The store file a geom's material shows ('' when it has none)."""
    mat = model.geom(geom).matid[0]
    assert mat >= 0, f"{geom} has no material"
    tex = model.mat_texid[mat, RGB]
    assert tex >= 0, f"{geom}'s material has no texture"
    return model.tex(tex).name.removesuffix("_tex")


def _repeat_metres(model: mujoco.MjModel, geom: str) -> tuple[float, float]:
    """World size of one texture repeat on a uniform-mapped geom (MuJoCo: 2 / texrepeat)."""
    mat = model.geom(geom).matid[0]
    assert model.mat_texuniform[mat]
    rx, ry = model.mat_texrepeat[mat]
    return 2.0 / rx, 2.0 / ry


def _floors(model: mujoco.MjModel, meta: dict) -> dict[str, str]:
    return {r["type"] + ":" + r["name"]: _texture_of(model, r["floor_geom"])
            for r in meta["rooms"]}


def test_every_floor_and_wall_is_textured_at_room_scale(home) -> None:
    model, meta = home
    shipped = set(asset_store.manifests()["rooms"]["assets"])
    for room in meta["rooms"]:
        tex = _texture_of(model, room["floor_geom"])
        assert f"{tex}.png" in shipped
        sx, sy = _repeat_metres(model, room["floor_geom"])
        assert 0.4 <= sx <= 2.0 and sx == sy  # a repeat holds a few planks / tiles
        kind = tex.split("_")[1]
        allowed = {"kitchen": {"tile", "stone"}, "bathroom": {"tile", "stone"},
                   "bedroom": {"wood", "carpet"}}.get(room["type"])
        if allowed:
            assert kind in allowed, (room["type"], tex)
    walls = [model.geom(f"wall_{k}") for k in range(len(meta["walls"]))]
    assert walls and {_texture_of(model, g.name).split("_")[0] for g in walls} == {"wall"}
    along, up = _repeat_metres(model, walls[0].name)
    assert along == pytest.approx(1.0) and up == pytest.approx(2.5)  # one wall height


def test_walls_are_turned_boxes_covering_their_segment(home) -> None:
    """A wall's local y is up (so its faces lie in local xy and show the texture upright) and
    its world extent is the segment padded by half the thickness, as before."""
    model, meta = home
    data = mujoco.MjData(model)
    mujoco.mj_kinematics(model, data)
    for k, (x0, y0, x1, y1) in enumerate(meta["walls"]):
        g = model.geom(f"wall_{k}").id
        rot = data.geom_xmat[g].reshape(3, 3)
        assert np.allclose(rot[:, 1], [0, 0, 1], atol=1e-6)  # local y = world up
        half = np.abs(rot) @ model.geom_size[g]
        lo, hi = data.geom_xpos[g] - half, data.geom_xpos[g] + half
        # (centre and half sizes are each rounded to 0.1 mm, as before the walls were turned)
        assert np.allclose(lo, [min(x0, x1) - 0.05, min(y0, y1) - 0.05, 0.0], atol=2e-4)
        assert np.allclose(hi, [max(x0, x1) + 0.05, max(y0, y1) + 0.05, 2.5], atol=2e-4)


def test_homes_differ_in_finishes_and_a_home_keeps_its_own() -> None:
    homes = {(seed, style): _model(seed, style) for seed, style in ((0, 0), (5, 1), (0, 3))}
    floors = {k: sorted(set(_floors(*v).values())) for k, v in homes.items()}
    assert len({tuple(f) for f in floors.values()}) == len(homes)  # each home its own floors
    assert floors[(0, 0)] != floors[(0, 3)]  # same plan, other style: other finishes
    rooms = [(r["name"], r["type"]) for r in homes[(5, 1)][1]["rooms"]]
    assert choose_finishes(5, 1, rooms) == choose_finishes(5, 1, rooms)
    model, meta = homes[(5, 1)]
    assert {r["name"]: _texture_of(model, r["floor_geom"]) + ".png" for r in meta["rooms"]} \
        == choose_finishes(5, 1, rooms).floors


@pytest.mark.parametrize("pattern", WALLS)
def test_wall_texture_lands_upright_with_the_skirting_on_the_floor(pattern: str) -> None:
    """A wall box as the builder makes it, seen face on: the skirting board's shadow line is
    the darkest row just above the floor (at 11-13 cm), with the lighter board below it."""
    spec = mujoco.MjSpec()
    asset_store.use_store(spec)
    spec.visual.headlight.ambient = [1.0, 1.0, 1.0]
    spec.visual.headlight.diffuse = [0.0, 0.0, 0.0]
    wall_box(spec.worldbody, "w", (0, 0, 4, 0), 0.1, 2.5, wall_material(spec, pattern),
             (1.0, 1.0, 1.0, 1.0))
    spec.worldbody.add_camera(name="c", pos=[2, -3, 0.15], xyaxes=[1, 0, 0, 0, 0, 1],
                              orthographic=True, fovy=0.3)
    model = spec.compile()
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    with mujoco.Renderer(model, 300, 300) as r:
        r.update_scene(data, "c")
        rows = r.render().astype(float).mean(axis=(1, 2))  # 1 mm per row, z = 0.3 at row 0
    z = 0.3 - (np.arange(300) + 0.5) / 1000
    band = (z > 0.02) & (z < 0.28)
    darkest = z[band][np.argmin(rows[band])]
    assert 0.105 < darkest < 0.135, darkest
    assert rows[np.argmin(abs(z - 0.05))] > rows[band].min() + 20


def test_nav_grid_ignores_the_dressing() -> None:
    """The grid of the dressed home equals the grid of the same home with its walls as
    axis-aligned boxes and every visual-only furniture part (cushions, drapes) removed."""
    built = build_world(0, 0)
    xml = built.xml
    model = asset_store.model_from_xml(xml)
    dressed = {r["body_name"] for r in built.meta["receptacles"] if r["type"] in ("bed", "sofa")}
    spec = mujoco.MjSpec.from_string(xml, assets=asset_store.asset_bytes())
    removed = 0
    for g in list(spec.geoms):
        if g.name.startswith("wall_"):
            sx, sy, sz = g.size
            along_x = abs(g.quat[2]) < 0.1  # turned about x only: the wall runs along x
            g.size = [sx, sz, sy] if along_x else [sz, sx, sy]
            g.quat = [1, 0, 0, 0]
        elif (g.contype, g.conaffinity) == (0, 0) and g.parent.name in dressed:
            g.delete()
            removed += 1
    plain = spec.compile()
    assert removed >= 10 and plain.ngeom == model.ngeom - removed
    grids = []
    for m in (model, plain):
        d = mujoco.MjData(m)
        mujoco.mj_resetDataKeyframe(m, d, 0)
        mujoco.mj_forward(m, d)
        grids.append(NavGrid.from_model(m, d).navigable)
    assert np.array_equal(grids[0], grids[1])


def test_the_manifest_lists_every_texture_a_home_can_choose_and_the_generator_drew_them(
) -> None:
    """Every file a finish can name is shipped and listed (with source and licence), the
    manifest lists exactly what ``assetgen.rooms`` draws, and shipped files hold its pixels."""
    from PIL import Image

    from recallbench.world import finishes as fi
    from recallbench.world.assetgen import rooms
    from recallbench.world.assetgen.images import to_rgb

    manifest = asset_store.manifests()["rooms"]
    listed = set(manifest["assets"])
    names = {f"floor_wood_{w}.png" for w in fi.WOODS}
    names |= {f"floor_carpet_{c}.png" for c in fi.CARPETS}
    names |= {f"floor_{t}.png" for t in (*fi.TILES, *fi.BATH_TILES, "stone_travertine")}
    names |= {f"wall_{w}.png" for w in fi.WALLS}
    names |= {f"backsplash_{b}.png" for b in fi.BACKSPLASHES}
    names |= {f"fabric_{c}.png" for c in (*fi.COVERS, "linen")} | {"furniture_wood.png"}
    assert names <= listed, sorted(names - listed)
    assert all(e["source"] for e in manifest["assets"].values()) and manifest["licence"]
    assert {f"{stem}.png" for stem in rooms.drawings()} == listed
    for stem in ("floor_wood_oak", "floor_tile_checker", "wall_wainscot", "fabric_quilt"):
        shipped = np.asarray(Image.open(asset_store.ASSET_ROOT / "rooms" / f"{stem}.png"))
        assert np.array_equal(shipped, to_rgb(rooms.draw(stem))), stem


def test_large_grey_floor_tiles_come_in_two_shades_a_colour_cube_apart() -> None:
    """A kitchen floor of large grey tiles in nearly one shade put over 80% of a walking frame
    in one colour cube (the readability audit's one-colour rule), with a pale wall beside it:
    two of seed 0's six one-colour frames. Its two shades now fall in different cubes, so the
    floor alone is never one colour."""
    from PIL import Image

    from recallbench.generate.frame_readability import ONE_COLOUR, dominant_colour_share

    floor = np.asarray(Image.open(asset_store.ASSET_ROOT / "rooms" / "floor_tile_grey.png"))
    assert dominant_colour_share(floor[..., :3]) < ONE_COLOUR - 0.1
