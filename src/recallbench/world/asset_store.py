"""The world's own meshes and textures: files shipped in ``world/assets/<family>/``, each listed
with its source and licence in that folder's ``manifest.json``.

A model names a file by its store name (``rb-assets/<family>/<file>``) and MuJoCo gets the bytes
from here at compile time (its asset dictionary), so a saved world's XML stays portable across
machines and never reads a file of its own."""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import mujoco

ASSET_ROOT = Path(__file__).with_name("assets")
PREFIX = "rb-assets/"
MANIFEST = "manifest.json"
ASSET_SUFFIXES = (".png", ".obj")


def store_name(family: str, file: str) -> str:
    """The name a model uses for ``world/assets/<family>/<file>``."""
    return f"{PREFIX}{family}/{file}"


def is_store_name(value: str) -> bool:
    """True for a name the store serves (a model reference that reads no file)."""
    return value in asset_bytes()


@lru_cache(maxsize=1)
def asset_bytes() -> dict[str, bytes]:
    """Every shipped asset by store name (read once per process)."""
    out: dict[str, bytes] = {}
    for path in sorted(ASSET_ROOT.glob("*/*")):
        if path.suffix in ASSET_SUFFIXES and path.is_file():
            out[store_name(path.parent.name, path.name)] = path.read_bytes()
    return out


def manifests() -> dict[str, dict]:
    """Each family's manifest: ``{family: {"assets": {file: {source, licence, ...}}, ...}}``."""
    return {
        p.parent.name: json.loads(p.read_text())
        for p in sorted(ASSET_ROOT.glob(f"*/{MANIFEST}"))
    }


def model_from_xml(xml: str) -> mujoco.MjModel:
    """Compile a model whose assets come from the store."""
    return mujoco.MjModel.from_xml_string(xml, asset_bytes())


def use_store(spec: mujoco.MjSpec) -> None:
    """Let ``spec`` compile references to store names."""
    spec.assets = asset_bytes()


def add_textured_material(
    spec: mujoco.MjSpec,
    name: str,
    family: str,
    file: str,
    *,
    texrepeat: tuple[float, float] = (1.0, 1.0),
    texuniform: bool = False,
    rgba: tuple[float, float, float, float] = (1.0, 1.0, 1.0, 1.0),
    specular: float = 0.3,
    shininess: float = 0.3,
    reflectance: float = 0.0,
) -> str:
    """Add (once) a 2-D texture from the store and a material showing it; returns the material
    name. ``rgba`` tints the texture (white shows it as drawn)."""
    if any(m.name == name for m in spec.materials):
        return name
    tex = f"{name}_tex"
    spec.add_texture(name=tex, type=mujoco.mjtTexture.mjTEXTURE_2D, file=store_name(family, file))
    mat = spec.add_material(
        name=name, texrepeat=list(texrepeat), texuniform=texuniform, rgba=list(rgba),
        specular=specular, shininess=shininess, reflectance=reflectance,
    )
    mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = tex
    return name


def add_store_mesh(spec: mujoco.MjSpec, name: str, family: str, file: str,
                   scale: tuple[float, float, float] | None = None) -> str:
    """Add (once) a mesh from the store; returns its name."""
    if any(m.name == name for m in spec.meshes):
        return name
    mesh = spec.add_mesh(name=name, file=store_name(family, file))
    if scale is not None:
        mesh.scale = list(scale)
    return name
