"""The contact sheets `generate` writes per day (generate/contact_sheet.py): the offered frames
in a numbered grid, each tile the offered frame it names; every target outlined at its valid
offered frames, the outline never covering the target."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from recallbench.generate.contact_sheet import COLUMNS, OUTLINE, SHEETS, TILE, _outlined


def _tiles(sheet: np.ndarray, n: int, th: int) -> list[np.ndarray]:
    out = []
    for p in range(n):
        x, y = 2 + (p % COLUMNS) * (TILE + 2), 2 + (p // COLUMNS) * (th + 2)
        out.append(sheet[y + 16:y + th, x:x + TILE].astype(np.int16))  # below the tag
    return out


def _pool(img: np.ndarray) -> np.ndarray:
    h, w = img.shape[0] // 4 * 4, img.shape[1] // 4 * 4
    return img[:h, :w].reshape(h // 4, 4, w // 4, 4, 3).mean(axis=(1, 3))


def test_the_frames_sheet_shows_each_offered_frame_in_order(findingdory_generated_suite: Path):
    from PIL import Image

    from recallbench.video.reader import VideoFrames

    ep = findingdory_generated_suite / "episodes" / "ep_0"
    video = VideoFrames(ep / "video_96.mp4", list(range(96)), stamp=False).frames()
    h, w = video[0].shape[:2]
    th = round(TILE * h / w)
    sheet = np.asarray(Image.open(ep / SHEETS["frames"]).convert("RGB"))
    assert sheet.shape == (8 * (th + 2) + 2, COLUMNS * (TILE + 2) + 2, 3)
    frames = [np.asarray(Image.fromarray(f).resize((TILE, th), Image.Resampling.BILINEAR))
              [16:th].astype(np.int16) for f in video]
    tiles = _tiles(sheet, 96, th)
    t = np.stack([_pool(x).ravel() for x in tiles]).astype(np.float32)  # 16x fewer pixels
    f = np.stack([_pool(x).ravel() for x in frames]).astype(np.float32)
    mad = np.stack([np.abs(f - row).mean(axis=1) for row in t])  # (tile, frame)
    own = np.diag(mad)
    # each tile is its own frame (up to the JPEG and the video's compression), none other closer
    assert (own < 20).all() and (own <= mad.min(axis=1) + 1).all()
    assert (own < mad.max(axis=1) / 3).all()


def test_the_targets_sheet_outlines_targets(findingdory_generated_suite: Path):
    from PIL import Image

    ep = findingdory_generated_suite / "episodes" / "ep_0"
    rec = json.loads((ep / "readability.json").read_text())
    assert any(t["frames"] for t in rec["targets"])
    sheet = np.asarray(Image.open(ep / SHEETS["targets"]).convert("RGB")).astype(int)
    magenta = (sheet[..., 0] > 200) & (sheet[..., 1] < 90) & (sheet[..., 2] > 200)
    assert magenta.sum() > 100


def test_the_outline_rings_the_target_without_covering_it():
    rgb = np.full((20, 20, 3), 50, np.uint8)
    inside = np.zeros((20, 20), bool)
    inside[8:11, 8:11] = True  # a 3x3 target
    out = _outlined(rgb, inside)
    painted = (out == OUTLINE).all(axis=-1)
    assert not painted[inside].any() and (out[inside] == 50).all()
    yy, xx = np.indices(inside.shape)
    ty, tx = np.nonzero(inside)
    dist = np.abs(yy[..., None] - ty).__add__(np.abs(xx[..., None] - tx)).min(axis=-1)
    assert (painted == ((dist >= 1) & (dist <= 3))).all()  # a three-pixel ring just outside
