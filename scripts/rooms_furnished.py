"""How a home's rooms are furnished: the home from above (`world preview`'s overview), then the
head camera facing each cabinet and chest of drawers, from 0.6 m behind where the robot stands
to reach it.

    MUJOCO_GL=egl .venv/bin/python scripts/rooms_furnished.py docs/images/rooms_furnished_after.jpg

Options: ``--seed`` the home (default 0; its style is seed % 5), ``--tiles`` how many pieces
(default 6, one row). Run with another checkout's ``src`` on PYTHONPATH to draw its homes.
"""

from __future__ import annotations

import argparse
import math
from itertools import zip_longest
from pathlib import Path

import numpy as np
from PIL import Image

from recallbench.world.env import HomeEnv
from recallbench.world.preview import free_views

TILE = (240, 320)  # the portrait head camera at half its default size
BACK = 0.6  # m behind the reaching pose: the whole piece in view
KINDS = ("cabinet", "chest_of_drawers")
OVERVIEW = (1280, 800)  # the widest frame the model renders off screen


def pieces(env: HomeEnv, tiles: int) -> list[np.ndarray]:
    """Head-camera views of the home's cabinets and chests of drawers, kinds alternating."""
    by_kind = [[r for r in env.world_meta["receptacles"] if r["type"] == k] for k in KINDS]
    found = [r for pair in zip_longest(*by_kind) for r in pair if r is not None]
    out = []
    for r in found[:tiles]:
        x, y, yaw = r["approach_pose"]
        env.teleport((x - BACK * math.cos(yaw), y - BACK * math.sin(yaw), yaw), for_render=True)
        out.append(env.render_camera("robot0_head", *TILE))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--tiles", type=int, default=6)
    a = ap.parse_args()
    env = HomeEnv(seed=a.seed, style=a.seed % 5, kind="home")
    try:
        env.reset()
        over = Image.fromarray(env.render_camera(free_views(env)["overview"], *OVERVIEW))
        views = pieces(env, a.tiles)
    finally:
        env.close()
    w = max(TILE[0] * max(len(views), 1), over.width)
    sheet = Image.new("RGB", (w, over.height + (TILE[1] if views else 0)), "white")
    sheet.paste(over, ((w - over.width) // 2, 0))
    for k, v in enumerate(views):
        sheet.paste(Image.fromarray(v), (k * TILE[0], over.height))
    sheet.save(a.out, quality=85)


if __name__ == "__main__":
    main()
