"""Generators of the world's shipped assets (``world/assets/<family>/``): procedural meshes and
textures the project draws itself. ``python -m recallbench.world.assetgen`` rewrites every family's
files and manifest; the files are committed, so worlds never run these at build time."""
