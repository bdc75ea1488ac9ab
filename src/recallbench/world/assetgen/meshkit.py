"""Small procedural meshes with texture coordinates and normals: revolved profiles, swept
tubes and boxes, merged and written as OBJ text (the same numbers always give the same bytes).

Texture coordinates follow OBJ: ``u`` runs left to right, ``v`` bottom (0) to top (1) of the
image. Every vertex carries its own ``vt`` and ``vn`` (a seam or crease is a repeated vertex)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

# (r, z, v): a profile point and the texture row it maps to; a repeated (r, z) is a crease
Profile = Sequence[tuple[float, float, float]]
Rect = tuple[float, float, float, float]  # u0, v0, u1, v1 of a texture rectangle


@dataclass
class Mesh:
    v: np.ndarray  # (N, 3) positions
    t: np.ndarray  # (N, 2) texture coordinates
    n: np.ndarray  # (N, 3) unit normals
    f: np.ndarray  # (M, 3) vertex indices, counter-clockwise seen from outside

    def moved(self, rot: np.ndarray | None = None, shift: Sequence[float] = (0, 0, 0),
              scale: Sequence[float] = (1, 1, 1)) -> Mesh:
        """Scaled, then rotated, then shifted (normals follow the scale's inverse)."""
        s = np.asarray(scale, float)
        r = np.eye(3) if rot is None else rot
        n = self.n / s
        n /= np.linalg.norm(n, axis=1, keepdims=True)
        f = self.f if np.prod(s) > 0 else self.f[:, ::-1]
        return Mesh((self.v * s) @ r.T + np.asarray(shift, float), self.t, n @ r.T, f)


def merge(*meshes: Mesh) -> Mesh:
    offs = np.cumsum([0] + [len(m.v) for m in meshes])
    return Mesh(np.concatenate([m.v for m in meshes]), np.concatenate([m.t for m in meshes]),
                np.concatenate([m.n for m in meshes]),
                np.concatenate([m.f + o for m, o in zip(meshes, offs, strict=False)]))


def rot_x(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def rot_y(a: float) -> np.ndarray:
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _grid_faces(rows: int, cols: int, skip_low: np.ndarray, skip_high: np.ndarray) -> np.ndarray:
    """Two triangles per cell of a (rows x cols+1) vertex grid; a cell whose lower (upper) row
    is a pole keeps only the triangle that has area."""
    out = []
    w = cols + 1
    for i in range(rows - 1):
        for j in range(cols):
            a, b, c, d = i * w + j, i * w + j + 1, (i + 1) * w + j + 1, (i + 1) * w + j
            if not skip_low[i]:
                out.append((a, b, c))
            if not skip_high[i + 1]:
                out.append((a, c, d))
    return np.array(out, dtype=np.int64).reshape(-1, 3)


def _split_runs(profile: Profile) -> list[np.ndarray]:
    runs: list[list[tuple[float, float, float]]] = [[]]
    for p in profile:
        if runs[-1] and abs(runs[-1][-1][0] - p[0]) < 1e-9 and abs(runs[-1][-1][1] - p[1]) < 1e-9:
            runs.append([])
        runs[-1].append(p)
    return [np.asarray(r, float) for r in runs if len(r) > 1]


def revolve(profile: Profile, seg: int = 16, u: tuple[float, float] = (0.0, 1.0),
            wobble: Callable[[np.ndarray], np.ndarray] | None = None) -> Mesh:
    """The surface swept by a profile (r, z, v) turning about the z axis, traversed so its
    right-hand side is the outside (bottom centre out, up, over a rim and down inside).
    ``wobble(angle) -> radius factor`` makes ribbed or lobed shapes."""
    parts = []
    ang = np.linspace(0.0, 2 * math.pi, seg + 1)
    fac = np.ones_like(ang) if wobble is None else wobble(ang)
    fac[-1] = fac[0]
    for run in _split_runs(profile):
        r, z, v = run[:, 0], run[:, 1], run[:, 2]
        dr, dz = np.gradient(r), np.gradient(z)
        ln = np.hypot(dr, dz) + 1e-12
        nr, nz = dz / ln, -dr / ln
        ca, sa = np.cos(ang), np.sin(ang)
        rr = r[:, None] * fac[None, :]
        pos = np.stack([rr * ca, rr * sa, np.broadcast_to(z[:, None], rr.shape)], -1)
        nrm = np.stack([nr[:, None] * ca, nr[:, None] * sa,
                        np.broadcast_to(nz[:, None], rr.shape)], -1)
        uv = np.stack([np.broadcast_to(u[0] + (u[1] - u[0]) * ang / (2 * math.pi), rr.shape),
                       np.broadcast_to(v[:, None], rr.shape)], -1)
        pole = r < 1e-9
        parts.append(Mesh(pos.reshape(-1, 3), uv.reshape(-1, 2), nrm.reshape(-1, 3),
                          _grid_faces(len(r), seg, pole, pole)))
    return merge(*parts)


def planar_uv(mesh: Mesh, radius: float, rect: Rect) -> Mesh:
    """The mesh with texture coordinates projected from above: x and y within ``radius`` of
    the axis onto the texture rectangle ``rect``, so a round picture drawn flat (a plate's
    top, a clock's dial) keeps its straight lines and motifs (a revolved surface's own mapping
    bends them into wavy arcs between its segments)."""
    u0, v0, u1, v1 = rect
    x, y = mesh.v[:, 0] / radius, mesh.v[:, 1] / radius
    t = np.stack([u0 + (u1 - u0) * (x + 1) / 2, v0 + (v1 - v0) * (y + 1) / 2], -1)
    return Mesh(mesh.v, t, mesh.n, mesh.f)


def tube(path: np.ndarray, radius: Sequence[float] | np.ndarray, side: Sequence[float],
         seg: int = 10, v: tuple[float, float] = (0.0, 1.0)) -> Mesh:
    """A tube of varying ``radius`` along ``path`` (K, 3), which lies in a plane with normal
    ``side`` (a handle, a spout, a banana). Open ends (they sit inside a body or are tiny)."""
    b = np.asarray(side, float) / np.linalg.norm(side)
    tan = np.gradient(path, axis=0)
    tan /= np.linalg.norm(tan, axis=1, keepdims=True)
    nvec = np.cross(b, tan)
    nvec /= np.linalg.norm(nvec, axis=1, keepdims=True)
    phi = np.linspace(0.0, 2 * math.pi, seg + 1)
    ring = (np.cos(phi)[None, :, None] * nvec[:, None, :]
            + np.sin(phi)[None, :, None] * b[None, None, :])
    rad = np.asarray(radius, float)[:, None, None]
    pos = path[:, None, :] + rad * ring
    k = len(path)
    vv = v[0] + (v[1] - v[0]) * np.arange(k) / (k - 1)
    uv = np.stack([np.broadcast_to(phi[None, :] / (2 * math.pi), (k, seg + 1)),
                   np.broadcast_to(vv[:, None], (k, seg + 1))], -1)
    none = np.zeros(k, bool)
    return Mesh(pos.reshape(-1, 3), uv.reshape(-1, 2), ring.reshape(-1, 3),
                _grid_faces(k, seg, none, none))


def arc(center: Sequence[float], radius: float, a0: float, a1: float, k: int,
        plane: str = "xz") -> np.ndarray:
    """Points on a circular arc in the xz or xy plane, angles in radians."""
    a = np.linspace(a0, a1, k)
    c = np.asarray(center, float)
    if plane == "xz":
        return c + np.stack([radius * np.cos(a), np.zeros(k), radius * np.sin(a)], -1)
    return c + np.stack([radius * np.cos(a), radius * np.sin(a), np.zeros(k)], -1)


# the six faces of a box: normal axis, sign, (u axis, v axis) in the face's own view
_FACES = {
    "front": (1, -1, (0, 1), (2, 1)),   # -y face, u along +x, v along +z
    "back": (1, 1, (0, -1), (2, 1)),
    "right": (0, 1, (1, 1), (2, 1)),
    "left": (0, -1, (1, -1), (2, 1)),
    "top": (2, 1, (0, 1), (1, 1)),
    "bottom": (2, -1, (0, 1), (1, -1)),
}


def box(half: Sequence[float], rects: dict[str, Rect], center: Sequence[float] = (0, 0, 0)
        ) -> Mesh:
    """A box whose faces map to the given texture rectangles (faces not listed are left out)."""
    parts = []
    h = np.asarray(half, float)
    for face, (ax, sgn, (ua, us), (va, vs)) in _FACES.items():
        if face not in rects:
            continue
        u0, v0, u1, v1 = rects[face]
        corners, uvs = [], []
        for cu, cv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            p = np.zeros(3)
            p[ax] = sgn * h[ax]
            p[ua] = us * cu * h[ua]
            p[va] = vs * cv * h[va]
            corners.append(p + np.asarray(center, float))
            uvs.append((u0 + (u1 - u0) * (cu + 1) / 2, v0 + (v1 - v0) * (cv + 1) / 2))
        nrm = np.zeros(3)
        nrm[ax] = sgn
        f = np.array([(0, 1, 2), (0, 2, 3)])
        e1, e2 = corners[1] - corners[0], corners[2] - corners[0]
        if np.dot(np.cross(e1, e2), nrm) < 0:
            f = f[:, ::-1]
        parts.append(Mesh(np.array(corners), np.array(uvs), np.tile(nrm, (4, 1)), f))
    return merge(*parts)


def obj_text(mesh: Mesh, comment: str) -> str:
    """OBJ with one ``vt`` and ``vn`` per vertex (faces ``i/i/i``), fixed precision."""
    lines = [f"# {comment}"]
    lines += [f"v {x:.5f} {y:.5f} {z:.5f}" for x, y, z in mesh.v]
    lines += [f"vt {a:.5f} {b:.5f}" for a, b in mesh.t]
    lines += [f"vn {x:.4f} {y:.4f} {z:.4f}" for x, y, z in mesh.n]
    lines += ["f " + " ".join(f"{i + 1}/{i + 1}/{i + 1}" for i in tri) for tri in mesh.f]
    return "\n".join(lines).replace("-0.00000 ", "0.00000 ") + "\n"
