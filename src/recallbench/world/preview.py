"""Preview pictures of a world: a top-down map (matplotlib) and camera views (PNG)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from recallbench.world.env import HomeEnv
from recallbench.world.robot import CAMERAS, HEAD_SIZE

if TYPE_CHECKING:  # matplotlib and mujoco load only when a picture is drawn
    import mujoco
    from matplotlib.axes import Axes

    from recallbench.world.navgrid import NavGrid

ROOM_ALPHA = 0.55


def _box_corners(center: np.ndarray, xmat: np.ndarray, half: np.ndarray) -> np.ndarray:
    r = xmat.reshape(3, 3)[:2, :2]
    pts = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]]) * half[:2]
    return center[:2] + pts @ r.T


def draw_map(env: HomeEnv, path: str | Path, show_nav: bool = True) -> Path:
    """Top-down map: rooms, walls, fixtures and receptacles (labelled), objects, the navigable
    area from the nav grid, and the robot with its heading."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    meta = env.world_meta
    xs = [r["bounds"] for r in meta["rooms"]]
    x1, y1 = max(b[2] for b in xs), max(b[3] for b in xs)
    fig, ax = plt.subplots(figsize=(max(6, x1 * 0.9), max(5, y1 * 0.9)), dpi=110)
    _draw_rooms(ax, env.model, meta)
    if show_nav:
        _draw_navigable(ax, env.nav_grid)
    for x0, y0, xa, ya in meta["walls"]:
        ax.plot([x0, xa], [y0, ya], color="#222", lw=3, solid_capstyle="butt", zorder=3)
    _draw_units(ax, env.model, env.data, meta)
    _draw_objects_and_robot(ax, env)
    ax.set_xlim(-0.3, x1 + 0.3)
    ax.set_ylim(-0.3, y1 + 0.3)
    ax.set_aspect("equal")
    ax.set_title(
        f"seed {meta['seed']}  style {meta['style']} ({meta['style_name']})  "
        f"{meta['kind']}  - green: navigable, red: fixtures, blue: receptacles"
    )
    ax.set_xlabel("x (m)")
    ax.set_ylabel("y (m)")
    path = Path(path)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path


def _draw_rooms(ax: Axes, m: mujoco.MjModel, meta: dict) -> None:
    """Each room's floor in its colour, with its name."""
    from matplotlib.patches import Rectangle

    for r in meta["rooms"]:
        gid = m.geom(r["floor_geom"]).id
        b = r["bounds"]
        ax.add_patch(
            Rectangle(
                (b[0], b[1]),
                b[2] - b[0],
                b[3] - b[1],
                color=m.geom_rgba[gid][:3],
                alpha=ROOM_ALPHA,
                lw=0,
            )
        )
        ax.text(
            (b[0] + b[2]) / 2,
            b[3] - 0.25,
            r["name"].replace("_", " "),
            ha="center",
            va="top",
            fontsize=10,
            weight="bold",
            color="#333",
        )


def _draw_navigable(ax: Axes, g: NavGrid) -> None:
    """The nav grid's free cells as a green overlay."""
    h, w = g.navigable.shape
    extent = (
        g.origin[0],
        g.origin[0] + w * g.resolution,
        g.origin[1],
        g.origin[1] + h * g.resolution,
    )
    overlay = np.zeros((h, w, 4))
    overlay[g.navigable] = (0.2, 0.7, 0.3, 0.28)
    ax.imshow(overlay, origin="lower", extent=extent, interpolation="nearest", zorder=1)


def _unit_outline(m: mujoco.MjModel, d: mujoco.MjData, bid: int
                  ) -> tuple[np.ndarray, float] | None:
    """World corners of a unit's box geoms' bounding box in the unit's frame, and its yaw;
    None when it has no box geom."""
    import mujoco

    from recallbench.world.render import subtree_bodies

    pts = []
    for b in subtree_bodies(m, bid):
        for gid in range(m.body_geomadr[b], m.body_geomadr[b] + m.body_geomnum[b]):
            if m.geom_type[gid] == mujoco.mjtGeom.mjGEOM_BOX and m.geom_size[gid][2] > 0.004:
                c = _box_corners(d.geom_xpos[gid], d.geom_xmat[gid], m.geom_size[gid])
                pts.append(c)
    if not pts:
        return None
    allp = np.concatenate(pts)
    yaw = math.atan2(d.xmat[bid][3], d.xmat[bid][0])
    rot = np.array([[math.cos(yaw), -math.sin(yaw)], [math.sin(yaw), math.cos(yaw)]])
    local = (allp - d.xpos[bid][:2]) @ rot
    lo, hi = local.min(0), local.max(0)
    corners = np.array([[lo[0], lo[1]], [hi[0], lo[1]], [hi[0], hi[1]], [lo[0], hi[1]]])
    return corners @ rot.T + d.xpos[bid][:2], yaw


def _draw_units(ax: Axes, m: mujoco.MjModel, d: mujoco.MjData, meta: dict) -> None:
    """Fixtures (red) and receptacles (blue) as outlines with their names."""
    from matplotlib.patches import Polygon

    named = [(f["body_name"], f["name"], "#b03030") for f in meta["fixtures"]]
    named += [(r["body_name"], r["name"], "#305090") for r in meta["receptacles"]]
    n_fixtures = len(meta["fixtures"])
    for k, (body, label, color) in enumerate(named):
        outline = _unit_outline(m, d, m.body(body).id)
        if outline is None:
            continue
        world, yaw = outline
        ax.add_patch(
            Polygon(world, closed=True, fc=color, ec="black", alpha=0.45, lw=0.8, zorder=4)
        )
        c = world.mean(0)
        if k < n_fixtures:
            # kitchen units overlap in plan (upper cabinets above base units): put the labels
            # out in the room on staggered leader lines so they stay readable
            normal = np.array([-math.sin(yaw), math.cos(yaw)])
            tip = c + normal * (0.7 + 0.45 * (k % 3))
            ax.plot([c[0], tip[0]], [c[1], tip[1]], color="#b03030", lw=0.6, zorder=5)
            c = tip
        ax.text(
            c[0],
            c[1],
            label.replace("_", " "),
            fontsize=6.5,
            ha="center",
            va="center",
            zorder=10,
            color="black",
            bbox={"fc": "white", "alpha": 0.7, "lw": 0, "pad": 0.6},
        )


def _draw_objects_and_robot(ax: Axes, env: HomeEnv) -> None:
    """Objects as discs in their colour; the robot's base with a heading arrow."""
    from matplotlib.patches import Circle

    m, d, meta = env.model, env.data, env.world_meta
    for o in meta["objects"]:
        p = d.xpos[m.body(o["body_name"]).id]
        ax.add_patch(Circle(p[:2], 0.07, fc=o["rgba"][:3], ec="black", lw=0.6, zorder=7))
    pose = env.base_pose()
    ax.add_patch(
        Circle(
            (float(pose[0]), float(pose[1])),
            meta["robot"]["radius"],
            fc="#f08020",
            ec="black",
            zorder=8,
            alpha=0.9,
        )
    )
    ax.arrow(
        pose[0],
        pose[1],
        0.45 * math.cos(pose[2]),
        0.45 * math.sin(pose[2]),
        width=0.05,
        color="black",
        zorder=9,
    )


def free_views(env: HomeEnv) -> dict[str, object]:
    """Free cameras: the whole home from above at an angle, and the kitchen run."""
    import mujoco

    meta = env.world_meta
    xs = [r["bounds"] for r in meta["rooms"]]
    x1, y1 = max(b[2] for b in xs), max(b[3] for b in xs)
    over = mujoco.MjvCamera()
    over.lookat[:] = [x1 / 2, y1 / 2, 0.0]
    over.distance = max(x1, y1) * 1.25
    over.azimuth, over.elevation = 90.0, -78.0
    run = meta["kitchen_run"]
    yaw, length = run["yaw"], run["length"]
    ox, oy = run["origin"]
    kit = mujoco.MjvCamera()
    kit.lookat[:] = [
        ox + math.cos(yaw) * length / 2 - math.sin(yaw) * 0.3,
        oy + math.sin(yaw) * length / 2 + math.cos(yaw) * 0.3,
        0.9,
    ]
    kit.distance = 4.3
    kit.azimuth, kit.elevation = math.degrees(yaw) - 90.0 + 15.0, -20.0
    return {"overview": over, "kitchen": kit}


def write_preview(
    seed: int, style: int, out_dir: str | Path, kind: str = "home", size: int = 256
) -> list[Path]:
    """All preview PNGs for a world; returns the written paths."""
    from PIL import Image

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    env = HomeEnv(seed=seed, style=style, kind=kind)
    paths = [draw_map(env, out / "map.png")]
    for name, cam in free_views(env).items():
        img = env.render_camera(cam, 1024, 640)
        paths.append(out / f"{name}.png")
        Image.fromarray(img).save(paths[-1])
    for cam in CAMERAS:
        w, h = HEAD_SIZE if cam == "robot0_head" else (size, size)
        paths.append(out / f"{cam}.png")
        Image.fromarray(env.render_camera(cam, w, h)).save(paths[-1])
    env.close()
    return paths
