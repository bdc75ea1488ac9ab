"""Close-ups of a home's objects where they stand on its furniture (under the home's lights and
finishes), seen from where the robot reaches them, one tile each: the world-side companion of
``object_sheet.py``.

    MUJOCO_GL=egl .venv/bin/python scripts/objects_in_home.py docs/images/objects_world_after.jpg

Options: ``--seed`` the home (default 2), ``--tiles`` how many objects (default 12, six a row).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import mujoco
import numpy as np
from PIL import Image

from recallbench.world.env import HomeEnv

TILE = 200
DISTANCE = 0.55  # m from the camera to the object
ELEVATION = -35.0  # deg: looking down on it, as a standing person does
OBJECTS = 18  # in the home: enough on its furniture for two rows (some stand in fixtures)


def tile(env: HomeEnv, obj: dict, approach: np.ndarray) -> np.ndarray:
    """One object, seen from where the robot stands to reach its receptacle."""
    pos = env.data.body(obj["body_name"]).xpos.copy()
    towards = approach[:2] - pos[:2]
    cam = mujoco.MjvCamera()
    cam.lookat[:] = pos
    cam.distance = DISTANCE
    cam.elevation = ELEVATION
    # MuJoCo's azimuth points the camera along it: it looks from the approach side
    cam.azimuth = math.degrees(math.atan2(towards[1], towards[0])) + 180.0
    return env.renders.rgb(env.data, cam, TILE, TILE)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--seed", type=int, default=2)
    ap.add_argument("--tiles", type=int, default=12)
    args = ap.parse_args()
    env = HomeEnv(seed=args.seed, style=0, kind="home", n_objects=OBJECTS)
    recs = {r["name"]: r for r in env.world_meta["receptacles"]}
    on_receptacles = [(o, np.asarray(recs[o["initial_location"]["name"]]["approach_pose"],
                                     dtype=float))
                      for o in env.world_meta["objects"]
                      if o["initial_location"]["kind"] == "receptacle"]  # not inside fixtures
    images = [tile(env, o, a) for o, a in on_receptacles[: args.tiles]]
    env.close()
    cols = 6
    rows = math.ceil(len(images) / cols)
    sheet = Image.new("RGB", (cols * TILE, rows * TILE), "white")
    for k, im in enumerate(images):
        sheet.paste(Image.fromarray(im), ((k % cols) * TILE, (k // cols) * TILE))
    sheet.save(args.out, quality=85)
    print(f"{len(images)} objects of home {args.seed}: {args.out}")


if __name__ == "__main__":
    main()
