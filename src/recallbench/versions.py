"""Installed versions of the packages that can move results (base layer, imported anywhere)."""

from __future__ import annotations

from importlib import metadata

# Packages whose versions can change results (simulator, renderer, decoder, robot stack).
TRACKED_PACKAGES = ("mujoco", "robosuite", "robocasa", "av", "numpy", "gymnasium", "ray")


def package_versions() -> dict[str, str | None]:
    versions: dict[str, str | None] = {}
    for name in TRACKED_PACKAGES:
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None
    return versions
