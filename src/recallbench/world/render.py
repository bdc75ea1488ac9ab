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

from recallbench.world.frustum import hidden_geoms  # noqa: E402

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
    """Caches one ``mujoco.Renderer`` per (width, height) for a model and renders cameras.

    ``cull``: leave the geoms a camera cannot see out of its scene (``frustum.py``; the same
    pixels; a 240x320 head-camera frame in a house ~1.4x faster on a CPU renderer). Only
    without shadows and reflections, through which off-screen geoms show.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        shadows: bool = False,
        reflections: bool = False,
        cull: bool = True,
    ) -> None:
        self.model = model
        self.shadows = shadows
        self.reflections = reflections
        self.cull = cull
        self._renderers: dict[tuple[int, int], mujoco.Renderer] = {}
        self.scene_option = mujoco.MjvOption()
        self._luts: dict[tuple, np.ndarray] = {}
        self._camera_ids: dict[str, int] = {}
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
        self._update_scene(r, data, camera)
        return r.render(out=out)

    def depth(
        self, data: mujoco.MjData, camera: str | int | mujoco.MjvCamera, width: int, height: int
    ) -> np.ndarray:
        """(H, W) float32 metres along the optical axis."""
        r = self.renderer(width, height)
        r.enable_depth_rendering()
        try:
            self._update_scene(r, data, camera)
            return r.render()
        finally:
            r.disable_depth_rendering()

    def segmentation(
        self, data: mujoco.MjData, camera: str | int | mujoco.MjvCamera, width: int, height: int
    ) -> np.ndarray:
        """(H, W) int32 body id per pixel (-1 for background / non-geom pixels)."""
        segids, lut = self._id_render(data, camera, width, height)
        # clip: a colour past the table (none should be) lands on its last, background slot
        return np.take(lut, segids, mode="clip")

    def geom_segmentation(
        self, data: mujoco.MjData, camera: str | int | mujoco.MjvCamera, width: int, height: int
    ) -> np.ndarray:
        """(H, W) int32 geom id per pixel (-1 for background / non-geom pixels): for what
        differs between a body's geoms (their materials), e.g. the readability audit's
        textured share. ~100x faster than ``Renderer``'s segmentation mode (see _id_render)."""
        segids, _ = self._id_render(data, camera, width, height)
        scene = self.renderer(width, height).scene
        lut = np.full(scene.ngeom + 2, -1, dtype=np.int32)
        for g in scene.geoms[: scene.ngeom]:
            if g.segid >= 0 and g.objtype == _GEOM and g.objid >= 0:
                lut[g.segid + 1] = g.objid
        return np.take(lut, segids, mode="clip")

    def body_pixel_counts(
        self, data: mujoco.MjData, camera: str | int | mujoco.MjvCamera, width: int, height: int
    ) -> np.ndarray:
        """(nbody + 1,) pixels showing each body: index ``b + 1`` for body ``b``, index 0 for
        the background. What coverage needs, without a per-pixel body image: the scene ids
        are counted first, then the counts are moved to their bodies."""
        segids, lut = self._id_render(data, camera, width, height)
        per_segid = np.bincount(segids.ravel(), minlength=len(lut))
        if len(per_segid) > len(lut):  # colours past the table: background, as segmentation()
            per_segid[len(lut) - 1] += per_segid[len(lut) :].sum()
            per_segid = per_segid[: len(lut)]
        return np.bincount(lut + 1, weights=per_segid, minlength=self.model.nbody + 1)

    def _id_render(
        self, data: mujoco.MjData, camera: str | int | mujoco.MjvCamera, width: int, height: int
    ) -> tuple[np.ndarray, np.ndarray]:
        """(H, W) scene ``segid + 1`` per pixel, and the table from it to body ids."""
        r = self.renderer(width, height)
        culled = self._update_scene(r, data, camera)
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
        # the culled set is part of the scene's identity for the colour -> body table
        key = b"" if culled is None else np.packbits(culled).tobytes()
        return self._segids(img), self._segid_bodies(r.scene, key)

    def _update_scene(
        self, r: mujoco.Renderer, data: mujoco.MjData, camera: str | int | mujoco.MjvCamera
    ) -> np.ndarray | None:
        """``r.update_scene`` without the geoms the camera cannot see (``frustum``); returns
        which were left out (None when none)."""
        hidden = None
        plain = not (self.shadows or self.reflections)
        if self.cull and plain and not isinstance(camera, mujoco.MjvCamera):
            cam = self._camera_id(camera)
            hidden = hidden_geoms(self.model, data, cam, r.width, r.height)
        if hidden is None or not hidden.any():
            r.update_scene(data, camera=camera, scene_option=self.scene_option)
            return None
        # MuJoCo leaves fully transparent geoms out of the scene: hide them for this update
        alpha = self.model.geom_rgba[:, 3]
        saved = alpha[hidden]
        alpha[hidden] = 0.0
        try:
            r.update_scene(data, camera=camera, scene_option=self.scene_option)
        finally:
            alpha[hidden] = saved
        return hidden

    @staticmethod
    def _segids(img: np.ndarray) -> np.ndarray:
        """(H, W) scene ``segid + 1`` per pixel from an IDCOLOR image (0: background)."""
        # IDCOLOR paints scene geom ``segid`` as the 24-bit little-endian colour segid + 1.
        # Below 65536 scene geoms the blue byte is 0, and the red and green bytes of each
        # pixel read as one uint16 through a strided view: no per-channel widening and shifts.
        img = np.ascontiguousarray(img)
        h, w = img.shape[:2]
        if not img[..., 2].any():
            return np.ndarray((h, w), dtype="<u2", buffer=img, strides=(3 * w, 3))
        buf = np.zeros((h, w, 4), dtype=np.uint8)
        buf[..., :3] = img
        return buf.view("<u4")[..., 0]

    def _camera_id(self, camera: str | int) -> int:
        if isinstance(camera, str):
            if camera not in self._camera_ids:
                self._camera_ids[camera] = self.model.camera(camera).id
            return self._camera_ids[camera]
        return int(camera)

    def _segid_bodies(self, scene: mujoco.MjvScene, culled: bytes = b"") -> np.ndarray:
        """Look-up table ``segid + 1`` -> body id (-1: background, or not a model geom)."""
        # Walking the scene's geoms in Python costs ~0.5 ms a frame. For one model, one set
        # of options and one set of culled geoms the scene lists the same geoms in the same
        # order every update (only their poses change), so the table is kept per culled set
        # and geom count, checked against the first and last geoms' identity.
        n = scene.ngeom
        if n == 0:
            return np.full(2, -1, dtype=np.int32)
        ends = tuple((int(g.objtype), int(g.objid)) for g in (scene.geoms[0], scene.geoms[n - 1]))
        key = (culled, n, ends)
        hit = self._luts.get(key)
        if hit is not None:
            return hit
        # background, one slot per scene geom, and a last -1 for colours past the geoms
        lut = np.full(n + 2, -1, dtype=np.int32)
        geom_body = self.model.geom_bodyid
        for g in scene.geoms[:n]:
            # integer compare: ``objtype == mjtObj.mjOBJ_GEOM`` on the pybind enum is slow
            if g.segid >= 0 and g.objtype == _GEOM and g.objid >= 0:
                lut[g.segid + 1] = geom_body[g.objid]
        if len(self._luts) >= 4096:  # a long day sees a few hundred distinct sets
            self._luts.clear()
        self._luts[key] = lut
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
