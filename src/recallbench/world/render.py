"""Offscreen rendering: RGB, depth and instance segmentation, one renderer per image size.

Shadows and reflections are off by default: on a CPU (Mesa) renderer they cost ~10x.
"""

from __future__ import annotations

import atexit
import contextlib
import weakref
from collections.abc import Iterable

from recallbench.world.gl import select_backend

select_backend()

import mujoco  # noqa: E402  (the GL backend must be chosen first)
import numpy as np  # noqa: E402

_LIVE: weakref.WeakSet[Renders] = weakref.WeakSet()
_GEOM = int(mujoco.mjtObj.mjOBJ_GEOM)


_HOOKED = False


def _close_all() -> None:
    # Free GL contexts while the display is still up; left to interpreter teardown, EGL raises
    # (harmless but noisy) errors from __del__.
    for r in list(_LIVE):
        with contextlib.suppress(Exception):  # best effort at exit
            r.close()


def _hook_exit() -> None:
    """Register the exit hook after MuJoCo's GL context registered its own display teardown:
    exit hooks run last-in first-out, so ours frees the renderers first."""
    global _HOOKED
    if not _HOOKED:
        atexit.register(_close_all)
        _HOOKED = True


class Renders:
    """Caches one ``mujoco.Renderer`` per (width, height) for a model and renders cameras."""

    def __init__(
        self, model: mujoco.MjModel, shadows: bool = False, reflections: bool = False
    ) -> None:
        self.model = model
        self.shadows = shadows
        self.reflections = reflections
        self._renderers: dict[tuple[int, int], mujoco.Renderer] = {}
        self.scene_option = mujoco.MjvOption()
        _LIVE.add(self)

    def renderer(self, width: int, height: int) -> mujoco.Renderer:
        key = (int(width), int(height))
        r = self._renderers.get(key)
        if r is None:
            r = mujoco.Renderer(self.model, height=key[1], width=key[0])
            _hook_exit()
            r.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = self.shadows
            r.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = self.reflections
            self._renderers[key] = r
        return r

    def rgb(
        self,
        data: mujoco.MjData,
        camera: str | int | mujoco.MjvCamera,
        width: int,
        height: int,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """(H, W, 3) uint8."""
        r = self.renderer(width, height)
        r.update_scene(data, camera=camera, scene_option=self.scene_option)
        return r.render(out=out)

    def depth(
        self, data: mujoco.MjData, camera: str | int | mujoco.MjvCamera, width: int, height: int
    ) -> np.ndarray:
        """(H, W) float32 metres along the optical axis."""
        r = self.renderer(width, height)
        r.enable_depth_rendering()
        try:
            r.update_scene(data, camera=camera, scene_option=self.scene_option)
            return r.render()
        finally:
            r.disable_depth_rendering()

    def segmentation(
        self, data: mujoco.MjData, camera: str | int | mujoco.MjvCamera, width: int, height: int
    ) -> np.ndarray:
        """(H, W) int32 body id per pixel (-1 for background / non-geom pixels)."""
        r = self.renderer(width, height)
        r.update_scene(data, camera=camera, scene_option=self.scene_option)
        # Render the id colours ourselves instead of ``Renderer``'s segmentation mode: it
        # widens the image to uint32 and loops over the scene's geoms three times in Python
        # (~4 ms a frame at 240x320, as much as the GL render itself).
        flags = r.scene.flags
        saved = flags.copy()
        flags[mujoco.mjtRndFlag.mjRND_SEGMENT] = True
        flags[mujoco.mjtRndFlag.mjRND_IDCOLOR] = True
        try:
            img = r.render()
        finally:
            np.copyto(flags, saved)
        # IDCOLOR paints scene geom ``segid`` as the 24-bit colour segid + 1 (0: background)
        segid = img[..., 0].astype(np.int32)
        segid |= img[..., 1].astype(np.int32) << 8
        if img[..., 2].any():
            segid |= img[..., 2].astype(np.int32) << 16
        return self._segid_bodies(r.scene, int(segid.max()))[segid]

    def _segid_bodies(self, scene: mujoco.MjvScene, top: int) -> np.ndarray:
        """Look-up table colour value -> body id (-1: background, or not a model geom)."""
        lut = np.full(max(top, scene.ngeom) + 1, -1, dtype=np.int32)
        geom_body = self.model.geom_bodyid
        for g in scene.geoms[: scene.ngeom]:
            # integer compare: ``objtype == mjtObj.mjOBJ_GEOM`` on the pybind enum is slow
            if g.segid >= 0 and g.objtype == _GEOM and g.objid >= 0:
                lut[g.segid + 1] = geom_body[g.objid]
        return lut

    def close(self) -> None:
        for r in self._renderers.values():
            r.close()
        self._renderers.clear()


def subtree_bodies(model: mujoco.MjModel, root: int | str) -> list[int]:
    """A body and all its descendants (a fixture's doors and handles belong to it)."""
    rid = model.body(root).id if isinstance(root, str) else int(root)
    out = [rid]
    for b in range(rid + 1, model.nbody):
        # bodies are stored depth-first, so a descendant always follows its ancestor
        p = b
        while p > 0 and p != rid:
            p = int(model.body_parentid[p])
        if p == rid:
            out.append(b)
    return out


def coverage(seg: np.ndarray, bodies: Iterable[int]) -> float:
    """Fraction of pixels showing any of the given bodies (FindingDory's semantic coverage)."""
    ids = np.fromiter(bodies, dtype=np.int32)
    if seg.size == 0 or ids.size == 0:
        return 0.0
    return float(np.isin(seg, ids).sum()) / float(seg.size)
