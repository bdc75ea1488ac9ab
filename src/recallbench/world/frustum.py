"""Which geoms a camera cannot see: view-frustum culling for the CPU renderer.

On Mesa's CPU renderer a frame's cost grows with the geoms drawn as much as with the pixels
filled (a whole house of ~300 geoms took ~4x the time of an empty scene at 240x320: 7.6 vs
1.8 ms), while a head camera sees one room. Geoms whose bounding sphere lies wholly outside
the camera's view frustum add no pixel to the image (without shadows and reflections, nothing
off screen shows on screen), so leaving them out of the scene changes no pixel and saves their
cost.
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

MARGIN = 0.02  # m added to every bounding sphere (and 5% of it): round-off never culls an edge


def _orthographic(model: mujoco.MjModel, camera: int) -> bool:
    # MuJoCo <= 3.3 has a flag; later releases an enum (mjPROJ_PERSPECTIVE = 0)
    if hasattr(model, "cam_projection"):
        return int(model.cam_projection[camera]) != 0
    return bool(model.cam_orthographic[camera])


def hidden_geoms(
    model: mujoco.MjModel, data: mujoco.MjData, camera: int, width: int, height: int
) -> np.ndarray | None:
    """(ngeom,) True for each geom wholly outside fixed camera ``camera``'s view frustum at an
    image of ``width`` x ``height``; None when the camera's projection is not the plain
    perspective this models (intrinsics from a sensor size, or orthographic)."""
    if np.any(model.cam_sensorsize[camera]) or _orthographic(model, camera):
        return None
    tan_v = math.tan(math.radians(float(model.cam_fovy[camera])) / 2)
    tan_h = tan_v * width / height
    axes = data.cam_xmat[camera].reshape(3, 3)  # columns: right, up, backward
    local = (data.geom_xpos - data.cam_xpos[camera]) @ axes
    depth = -local[:, 2]  # along the view direction
    r = model.geom_rbound * 1.05 + MARGIN
    out = depth < -r  # wholly behind the camera
    # beyond a side plane (left/right and top/bottom at once, by symmetry)
    for k, tan in ((0, tan_h), (1, tan_v)):
        out |= np.abs(local[:, k]) - depth * tan > r * math.sqrt(1.0 + tan * tan)
    # planes (rbound 0) are unbounded. Geoms with a material are culled too: a zero geom
    # alpha hides them as well (MuJoCo >= 3.3 takes a geom's rgba over its material's as soon
    # as it differs from the default), and textured rooms are most of a house's geoms.
    out &= model.geom_rbound > 0
    return out
