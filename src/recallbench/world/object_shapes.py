"""How each object category looks: a textured mesh from the asset store (family
``objects``, drawn by ``world.assetgen.objects``), in one of ``VARIANTS`` shape-and-print
variants, and the mass properties the object body gets (those of the primitives the
categories were built from before, so physics, grasping and placing behave as they did).

File names are the contract with the generator: ``<category>_<variant>.obj`` for shapes,
``<category>_<colour>_<variant>.png`` (or ``_striped.png``) for textures."""

from __future__ import annotations

import mujoco

from recallbench.world.asset_store import add_store_mesh, store_name
from recallbench.world.mjcf import VISUAL

RGBA = tuple[float, float, float, float]
Vec3 = tuple[float, float, float]
Vec4 = tuple[float, float, float, float]
FAMILY = "objects"
VARIANTS = 2


def mesh_file(category: str, variant: int) -> str:
    return f"{category}_{variant}.obj"


def texture_file(category: str, colour: str, variant: int, striped: bool) -> str:
    return f"{category}_{colour}_{'striped' if striped else variant}.png"


# (specular, shininess, reflectance, alpha) by the look of the category's material
GLASS = (0.9, 0.95, 0.0, 0.35)
FINISH: dict[str, tuple[float, float, float, float]] = {
    "ceramic": (0.6, 0.8, 0.0, 1.0),
    "metal": (0.8, 0.7, 0.0, 1.0),
    "glass": (0.9, 0.9, 0.0, 1.0),  # bottles and jars: opaque print of glass and contents
    "plastic": (0.5, 0.6, 0.0, 1.0),
    "organic": (0.25, 0.4, 0.0, 1.0),
    "cardboard": (0.1, 0.1, 0.0, 1.0),
    "paper": (0.1, 0.1, 0.0, 1.0),
    "rubber": (0.3, 0.4, 0.0, 1.0),
    "wax": (0.2, 0.3, 0.0, 1.0),
    "foam": (0.05, 0.05, 0.0, 1.0),
    "wood": (0.2, 0.3, 0.0, 1.0),
}
SEE_THROUGH = ("glass", "vase")  # drawn transparent (glass that reads as glass)
SHINY = ("tomato", "apple")


def finish(category: str, material: str) -> tuple[float, float, float, float]:
    if category in SEE_THROUGH:
        return GLASS
    spec, shine, refl, alpha = FINISH.get(material, (0.3, 0.3, 0.0, 1.0))
    if category in SHINY:
        spec, shine = 0.6, 0.8
    return spec, shine, refl, alpha


def add_shape(spec: mujoco.MjSpec, body: mujoco.MjsBody, name: str, category: str,
              material: str, colour: str, variant: int, striped: bool) -> mujoco.MjsGeom:
    """The object's one visible geom (``<name>_g0``): its category's mesh, textured. Massless:
    the body's inertia is set explicitly (``INERTIAL``)."""
    mesh = add_store_mesh(spec, f"objmesh_{category}_{variant}", FAMILY,
                          mesh_file(category, variant))
    mat = _material(spec, texture_file(category, colour, variant, striped), category, material)
    g = body.add_geom(type=mujoco.mjtGeom.mjGEOM_MESH, meshname=mesh, material=mat)
    g.name = f"{name}_g0"
    g.contype, g.conaffinity = VISUAL
    g.density = 0.0
    return g


def _material(spec: mujoco.MjSpec, file: str, category: str, material: str) -> str:
    """One texture and material per texture file (objects sharing a print share them)."""
    stem = "objmat_" + file.removesuffix(".png")
    if any(m.name == stem for m in spec.materials):
        return stem
    spec.add_texture(name=f"{stem}_tex", type=mujoco.mjtTexture.mjTEXTURE_2D,
                     file=store_name(FAMILY, file))
    specular, shininess, reflectance, alpha = finish(category, material)
    mat = spec.add_material(name=stem, rgba=[1.0, 1.0, 1.0, alpha], specular=specular,
                            shininess=shininess, reflectance=reflectance)
    mat.textures[mujoco.mjtTextureRole.mjTEXROLE_RGB] = f"{stem}_tex"
    return stem


def set_inertial(body: mujoco.MjsBody, category: str) -> None:
    """The body's mass, centre of mass and principal inertia of the old primitive shapes."""
    mass, ipos, inertia, iquat = INERTIAL[category]
    body.explicitinertial = True
    body.mass = mass
    body.ipos = list(ipos)
    body.inertia = list(inertia)
    body.iquat = list(iquat)


# measured on the primitive shapes (density 400) this module replaced: mass, ipos, principal
# inertia, iquat
INERTIAL: dict[str, tuple[float, Vec3, Vec3, Vec4]] = {
    "bowl": (0.424115, (0.0, 0.0, 0.0),
        (0.00119282, 0.000723646, 0.000723646), (0.5, 0.5, -0.5, 0.5)),
    "mug": (0.210278, (0.0021914, 0.0, 0.0),
        (0.000272968, 0.000251184, 0.000183519), (0.707107, 0.0, 0.0, 0.707107)),
    "cup": (0.138544, (0.0, 0.0, 0.0),
        (0.000135947, 0.000135947, 8.48583e-05), (1.0, 0.0, 0.0, 0.0)),
    "plate": (0.201062, (0.0, 0.0, 0.0),
        (0.00100531, 0.000506944, 0.000506944), (0.5, 0.5, -0.5, 0.5)),
    "apple": (0.107233, (0.0, 0.0, 0.0),
        (6.86291e-05, 6.86291e-05, 6.86291e-05), (1.0, 0.0, 0.0, 0.0)),
    "orange": (0.107233, (0.0, 0.0, 0.0),
        (6.86291e-05, 6.86291e-05, 6.86291e-05), (1.0, 0.0, 0.0, 0.0)),
    "tomato": (0.0718378, (0.0, 0.0, 0.0),
        (3.52005e-05, 3.52005e-05, 3.52005e-05), (1.0, 0.0, 0.0, 0.0)),
    "banana": (0.0667727, (0.0, 0.0, 0.0),
        (0.0001561, 0.0001561, 1.05006e-05), (0.5, 0.5, 0.5, 0.5)),
    "can": (0.164217, (0.0, 0.0, 0.0),
        (0.000241769, 0.000241769, 8.94163e-05), (1.0, 0.0, 0.0, 0.0)),
    "bottle": (0.230291, (0.0, 0.0, -0.014225),
        (0.000535184, 0.000535184, 0.00013345), (1.0, 0.0, 0.0, 0.0)),
    "cereal_box": (0.7392, (0.0, 0.0, 0.0),
        (0.0041888, 0.0032032, 0.00142912), (0.707107, 0.0, 0.0, 0.707107)),
    "book": (0.5632, (0.0, 0.0, 0.0),
        (0.00347307, 0.00234667, 0.00127659), (0.5, 0.5, -0.5, 0.5)),
    "remote": (0.064, (0.0, 0.0, 0.0),
        (0.000149867, 0.000138667, 1.54667e-05), (0.5, 0.5, -0.5, 0.5)),
    "vase": (0.329867, (0.0, 0.0, -0.018571),
        (0.000869044, 0.000869044, 0.000275871), (1.0, 0.0, 0.0, 0.0)),
    "teapot": (0.476615, (0.00076013, 0.0, 0.0013414),
        (0.00100973, 0.000869254, 0.00074597), (0.0, 0.684355, 0.0, 0.729149)),
    "ball": (0.361911, (0.0, 0.0, 0.0),
        (0.000521153, 0.000521153, 0.000521153), (1.0, 0.0, 0.0, 0.0)),
    "candle": (0.135717, (0.0, 0.0, 0.0),
        (0.000193396, 0.000193396, 6.10726e-05), (1.0, 0.0, 0.0, 0.0)),
    "lemon": (0.0821087, (0.0, 0.0, 0.0),
        (5.11373e-05, 5.11373e-05, 3.57665e-05), (0.5, 0.5, 0.5, 0.5)),
    "jar": (0.335434, (0.0, 0.0, 0.00075825),
        (0.000652208, 0.000652208, 0.000344735), (1.0, 0.0, 0.0, 0.0)),
    "sponge": (0.112, (0.0, 0.0, 0.0),
        (0.000139067, 0.000108267, 6.06667e-05), (0.0, 0.707107, 0.0, 0.707107)),
    "soap_bottle": (0.173027, (0.0, 0.0, -0.017676),
        (0.000302231, 0.000268631, 0.000103851), (0.707107, 0.0, 0.0, 0.707107)),
    "pot": (1.39766, (0.0, 0.0, 0.00043959),
        (0.00713663, 0.00509859, 0.00487494), (0.0, 0.707107, 0.0, 0.707107)),
    "kettle": (0.957, (0.0015429, 0.0, 0.0022021),
        (0.00321034, 0.00306949, 0.00240602), (0.706891, 0.0174614, 0.0174614, 0.706891)),
    "egg": (0.0243285, (0.0, 0.0, 0.0),
        (6.73413e-06, 6.73413e-06, 4.71e-06), (1.0, 0.0, 0.0, 0.0)),
    "bread": (0.508938, (0.0, 0.0, 0.0),
        (0.00199476, 0.00199476, 0.000484382), (0.5, 0.5, 0.5, 0.5)),
    "toy_block": (0.0864, (0.0, 0.0, 0.0),
        (5.184e-05, 5.184e-05, 5.184e-05), (1.0, 0.0, 0.0, 0.0)),
    "clock": (0.180956, (0.0, 0.0, 0.0),
        (0.00032572, 0.000186988, 0.000186988), (0.707107, 0.0, 0.0, 0.707107)),
    "glass": (0.141548, (0.0, 0.0, 0.0),
        (0.000178963, 0.000178963, 7.24724e-05), (1.0, 0.0, 0.0, 0.0)),
}
