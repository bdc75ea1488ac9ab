"""Objects a person names at a glance (issue 38): every askable category is a textured mesh
with at least two variants listed in the asset manifest, the shipped files are what the
generator draws, a close-up render shows texture, and the colour a question names is the
colour the object shows."""

from __future__ import annotations

import mujoco
import numpy as np
import pytest
from PIL import Image

from recallbench.world import asset_store
from recallbench.world.assetgen import objects as gen
from recallbench.world.mjcf import make_directional
from recallbench.world.object_catalogue import CATEGORIES, COLORS
from recallbench.world.objects import add_object, object_variant

FAMILY = "objects"
SIDE = 96


def _manifest() -> dict:
    return asset_store.manifests()[FAMILY]["assets"]


def test_every_askable_category_has_textured_meshes_in_two_variants() -> None:
    assets = _manifest()
    for name, cat in CATEGORIES.items():
        meshes = sorted(f for f, e in assets.items()
                        if e["category"] == name and e.get("kind") == "mesh")
        assert len(meshes) >= 2, f"{name}: {meshes}"
        for f in meshes:
            text = (asset_store.ASSET_ROOT / FAMILY / f).read_text()
            assert "\nvt " in text and "/" in text.split("\nf ", 1)[1], f"{f}: no UVs"
            assert assets[f]["source"].startswith("procedural: recallbench.world.assetgen.")
            assert assets[f]["licence"]
        for colour in cat.colors:
            prints = {e.get("variant") for f, e in assets.items() if e["category"] == name
                      and e.get("colour") == colour and e.get("pattern") == "plain"}
            assert len(prints) >= 2, f"{name} {colour}: {prints}"
        if cat.stripes:
            assert any(e["category"] == name and e.get("pattern") == "striped"
                       for e in assets.values()), name


def test_shipped_files_are_what_the_generator_draws() -> None:
    plan = gen.plan()
    shipped = {p.name for p in (asset_store.ASSET_ROOT / FAMILY).iterdir()} - {"manifest.json"}
    assert shipped == set(plan)
    assert {f: e for f, (_, e) in plan.items()} == _manifest()
    # every mesh, and one print of each category (all prints take a few seconds more)
    first_print = {}
    for f, (_, e) in plan.items():
        if e["kind"] == "texture":
            first_print.setdefault(e["category"], f)
    for f, (draw, e) in plan.items():
        if e["kind"] == "mesh" or first_print.get(e["category"]) == f:
            assert draw() == (asset_store.ASSET_ROOT / FAMILY / f).read_bytes(), f


def test_the_variant_comes_from_the_seed_and_draws_nothing() -> None:
    rng = np.random.default_rng(5)
    before = rng.bit_generator.state
    picks = [object_variant(rng, "obj") for _ in range(16)]
    assert rng.bit_generator.state == before  # the world's later draws do not move
    again = np.random.default_rng(5)
    assert picks == [object_variant(again, "obj") for _ in range(16)]  # same seed, same looks
    assert set(picks) == {0, 1}
    assert picks != [object_variant(np.random.default_rng(6), "obj") for _ in range(16)]


def _scene(items: list[tuple[str, str, int]]) -> tuple[mujoco.MjModel, list[str]]:
    """One object per item (category, colour, variant) in a row, under the world's lights."""
    spec = mujoco.MjSpec()
    asset_store.use_store(spec)
    spec.visual.headlight.ambient = [0.45, 0.45, 0.45]
    spec.visual.headlight.diffuse = [0.35, 0.35, 0.35]
    spec.stat.extent = 10.0
    spec.visual.map.znear = 0.01
    light = spec.worldbody.add_light(pos=[0, 0, 10], dir=[0.3, 0.2, -1.0], castshadow=False)
    make_directional(light)
    light.diffuse = [0.55, 0.55, 0.52]
    spec.worldbody.add_geom(type=mujoco.mjtGeom.mjGEOM_PLANE, size=[50, 50, 0.1],
                            rgba=[0.5, 0.5, 0.5, 1])
    names = []
    for i, (cat, colour, k) in enumerate(items):
        name = f"o{i}"
        pos = (i * 0.7, 0.0, CATEGORIES[cat].half_height)
        choice = np.random.default_rng(0)
        entry = add_object(spec, name, cat, pos, 0.5, _Fixed(choice, colour), variant=k)
        assert entry["attributes"]["color"] == colour
        names.append(name)
        _CATEGORY_OF[name] = cat
    return spec.compile(), names


_CATEGORY_OF: dict[str, str] = {}


class _Fixed:
    """A generator whose ``choice`` picks the given colour and that never stripes."""

    def __init__(self, rng: np.random.Generator, colour: str) -> None:
        self.rng, self.colour = rng, colour

    def choice(self, options: tuple[str, ...]) -> str:
        return self.colour

    def random(self) -> float:
        return 0.99

    def spawn(self, n: int) -> list[np.random.Generator]:
        return self.rng.spawn(n)


def _close_ups(model: mujoco.MjModel, names: list[str], azimuth: float = -70.0
              ) -> list[tuple[np.ndarray, np.ndarray]]:
    """(RGB image, object mask) of each object, seen close up from above and aside (``azimuth``
    110: from the other side), with the other objects hidden (a render then costs one object,
    not the whole row)."""
    data = mujoco.MjData(model)
    mujoco.mj_forward(model, data)
    out = []
    cam = mujoco.MjvCamera()
    saved = model.geom_rgba.copy()
    with mujoco.Renderer(model, SIDE, SIDE) as r:
        for name in names:
            bid = model.body(name).id
            model.geom_rgba[:, 3] = np.where(
                (model.geom_bodyid == bid) | (model.geom_bodyid == 0), saved[:, 3], 0.0)
            cam.lookat[:] = data.xpos[bid]
            cat = CATEGORIES[_CATEGORY_OF[name]]
            cam.distance = 0.1 + 2.6 * max(cat.radius, cat.half_height)
            cam.azimuth, cam.elevation = azimuth, -30.0
            r.update_scene(data, camera=cam)
            rgb = r.render().astype(np.float64)
            r.enable_segmentation_rendering()
            r.update_scene(data, camera=cam)
            seg = r.render()
            r.disable_segmentation_rendering()
            geoms = seg[..., 0]
            mask = (seg[..., 1] == mujoco.mjtObj.mjOBJ_GEOM) & (geoms >= 0)
            mask &= model.geom_bodyid[np.clip(geoms, 0, None)] == bid
            out.append((rgb, mask))
    model.geom_rgba[:] = saved
    return out


def _unlit(model: mujoco.MjModel) -> None:
    """Show colours as printed: full ambient light, no shading, no highlights."""
    model.vis.headlight.ambient[:] = 1.0
    model.vis.headlight.diffuse[:] = 0.0
    model.vis.headlight.specular[:] = 0.0
    model.light_diffuse[:] = 0.0
    model.light_specular[:] = 0.0
    model.mat_specular[:] = 0.0


def _spread(rgb: np.ndarray, mask: np.ndarray) -> float:
    """Standard deviation of the object's pixels (RGB, summed over channels), its outline
    (blended with what is behind it) left out."""
    inner = mask.copy()
    inner[1:-1, 1:-1] &= mask[:-2, 1:-1] & mask[2:, 1:-1] & mask[1:-1, :-2] & mask[1:-1, 2:]
    return float(np.sqrt(rgb[inner].var(0).sum()))


def test_a_close_up_of_every_category_shows_texture() -> None:
    items = [(c, CATEGORIES[c].colors[0], 0) for c in CATEGORIES]
    model, names = _scene(items)
    _unlit(model)
    textured = _close_ups(model, names)
    # the same meshes in each texture's mean colour: flat-coloured objects
    for m in range(model.nmat):
        t = model.mat_texid[m, mujoco.mjtTextureRole.mjTEXROLE_RGB]
        adr, n = model.tex_adr[t], model.tex_height[t] * model.tex_width[t] * model.tex_nchannel[t]
        pixels = model.tex_data[adr: adr + n].reshape(-1, model.tex_nchannel[t])[:, :3]
        model.mat_rgba[m, :3] = pixels.mean(0) / 255.0
    model.mat_texid[:] = -1
    plain = _close_ups(model, names)
    flat_looking = []
    for (cat, _, _), (rgb, mask), (rgb0, mask0) in zip(items, textured, plain, strict=True):
        assert mask.sum() > 100, f"{cat}: object barely in view ({mask.sum()} px)"
        seen, flat = _spread(rgb, mask), _spread(rgb0, mask0)
        if seen < 1.6 * flat + 4:
            flat_looking.append(f"{cat}: {seen:.1f} vs {flat:.1f} flat")
    assert not flat_looking, flat_looking


def _chroma(rgb: np.ndarray) -> np.ndarray:
    """(..., 3) colours in [0, 1] as (saturation-weighted hue circle, brightness)."""
    mx, mn = rgb.max(-1), rgb.min(-1)
    sat = np.where(mx > 0, (mx - mn) / np.maximum(mx, 1e-6), 0.0)
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    hue = np.arctan2(np.sqrt(3) * (g - b), 2 * r - g - b)
    return np.stack([sat * np.cos(hue), sat * np.sin(hue), mx], -1)


def _dominant(pixels: np.ndarray, options: tuple[str, ...]) -> str:
    """The catalogue colour (of the category's own options) most of the object's pixels are
    nearest to (hue weighted by saturation, and brightness): labels, lids and print are
    allowed as long as the named colour is what dominates."""
    ref = _chroma(np.array([COLORS[o][:3] for o in options]))
    dist = np.linalg.norm(_chroma(pixels / 255.0)[:, None, :] - ref[None], axis=-1)
    votes = np.bincount(dist.argmin(1), minlength=len(options))
    return options[int(votes.argmax())]


@pytest.mark.parametrize("variant", [0, 1])
def test_the_colour_a_question_names_is_the_colour_shown(variant: int) -> None:
    items = [(c, colour, variant) for c, cat in CATEGORIES.items() if len(cat.colors) > 1
             for colour in cat.colors]
    model, names = _scene(items)
    wrong = []
    for (cat, colour, _), (rgb, mask) in zip(items, _close_ups(model, names), strict=True):
        seen = _dominant(rgb[mask], CATEGORIES[cat].colors)
        if seen != colour:
            wrong.append(f"{colour} {cat} looks {seen}")
    assert not wrong, wrong


# What a person could not name at a glance in a FindingDory day (issue 38): a black clock seen
# as a black disc, a candle as a plain cylinder, striped mugs and cups as stacks of rings.


def _obj(file: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Positions, texture coordinates, normals and faces of a shipped OBJ (one vt/vn per v)."""
    v, t, n, f = [], [], [], []
    for line in (asset_store.ASSET_ROOT / FAMILY / file).read_text().splitlines():
        key, *rest = line.split()
        if key in ("v", "vt", "vn"):
            {"v": v, "vt": t, "vn": n}[key].append([float(x) for x in rest])
        elif key == "f":
            f.append([int(x.split("/")[0]) - 1 for x in rest])
    return np.array(v), np.array(t), np.array(n), np.array(f)


def _texture(file: str) -> np.ndarray:
    return np.asarray(Image.open(asset_store.ASSET_ROOT / FAMILY / file).convert("RGB"),
                      np.float64) / 255.0


def _at(img: np.ndarray, uv: np.ndarray) -> np.ndarray:
    """The texels at texture coordinates uv (v = 0 at the image's bottom, as in the OBJ)."""
    h, w = img.shape[:2]
    cols = np.clip((uv[:, 0] * w).astype(int), 0, w - 1)
    rows = np.clip(((1 - uv[:, 1]) * h).astype(int), 0, h - 1)
    return img[rows, cols]


def _luminance(rgb: np.ndarray) -> np.ndarray:
    return rgb @ np.array([0.2126, 0.7152, 0.0722])


@pytest.mark.parametrize("variant", [0, 1])
def test_the_candle_is_lit_a_bright_flame_above_its_wax(variant: int) -> None:
    v, t, _, f = _obj(f"candle_{variant}.obj")
    wax_top = 0.058  # the wax's rim; the collider's top is the half height, 0.06
    above = v[:, 2] > wax_top + 0.008  # above the wick's stub: the flame
    assert v[:, 2].max() > wax_top + 0.025, f"nothing tall above the wax: {v[:, 2].max():.3f}"
    assert (v[above, 0] ** 2 + v[above, 1] ** 2).max() ** 0.5 > 0.004, "no flame, a bare wick"
    for colour in CATEGORIES["candle"].colors:
        tex = _texture(f"candle_{colour}_{variant}.png")
        flame = _at(tex, t[above])
        r, g, b = flame.mean(0)
        assert r > 0.9 and g > 0.55 and b < r - 0.3, f"{colour}: flame {flame.mean(0)}"


@pytest.mark.parametrize("variant", [0, 1])
def test_every_clock_has_a_light_dial_on_both_faces(variant: int) -> None:
    """A black clock too: its case is black, its dial light (a black dial seen from behind or
    across a room is a black disc). The dial: the triangles facing front or back (the
    clock stands on its rim, faces along y), sampled at points within half the case's radius
    of its centre."""
    v, t, n, f = _obj(f"clock_{variant}.obj")
    centre = (v[:, [0, 2]].max(0) + v[:, [0, 2]].min(0)) / 2
    radius = (v[:, 0].max() - v[:, 0].min()) / 2
    k = 6  # barycentric sample points per triangle edge
    bary = np.array([(i, j, k - i - j) for i in range(k + 1) for j in range(k + 1 - i)]) / k
    for side in (1, -1):
        tris = f[(n[f, 1].mean(1) * side) > 0.9]
        points = np.einsum("sc,tcd->tsd", bary, v[tris]).reshape(-1, 3)
        uv = np.einsum("sc,tcd->tsd", bary, t[tris]).reshape(-1, 2)
        uv = uv[np.linalg.norm(points[:, [0, 2]] - centre, axis=1) < 0.5 * radius]
        assert len(uv), f"no dial on the {'front' if side > 0 else 'back'}"
        for colour in CATEGORIES["clock"].colors:
            lum = _luminance(_at(_texture(f"clock_{colour}_{variant}.png"), uv)).mean()
            assert lum > 0.6, f"{colour} clock, {'front' if side > 0 else 'back'}: {lum:.2f}"


def test_a_black_clock_seen_from_behind_shows_a_dial_and_stays_black() -> None:
    items = [("clock", "black", k) for k in (0, 1)]
    model, names = _scene(items)
    for azimuth in (-70.0, 110.0):  # its front, its back
        for (_, _, k), (rgb, mask) in zip(items, _close_ups(model, names, azimuth),
                                          strict=True):
            pixels = rgb[mask] / 255.0
            light = (_luminance(pixels) > 0.6).mean()
            assert light > 0.15, f"clock v{k} from azimuth {azimuth}: {light:.0%} light"
            assert _dominant(rgb[mask], CATEGORIES["clock"].colors) == "black"


@pytest.mark.parametrize("category", ["mug", "cup"])
def test_striped_cylinders_have_stripes_up_the_wall(category: str) -> None:
    """Bands round a straight-sided vessel read as a stack of rings: the stripes run up it (the
    print changes along u, round the wall, and not along v, up it)."""
    for colour in CATEGORIES[category].colors:
        tex = _texture(f"{category}_{colour}_striped.png")
        h = tex.shape[0]
        wall = _luminance(tex[int(0.5 * h): int(0.85 * h)])  # rows v 0.15-0.5: the outer wall
        across, up = wall.std(1).mean(), wall.std(0).mean()
        assert across > 0.15 and up < 0.5 * across, f"{colour}: {across:.2f} round, {up:.2f} up"
