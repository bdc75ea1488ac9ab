"""Contact sheets of a generated day, so a person can look at what a model is offered.

``sheet_frames.jpg``: the K offered frames in a grid, each tagged with its position and its
frame in the day. ``sheet_targets.jpg``: every question target (one row per distinct target: an
object or a receptacle, or a goal any of several satisfy), at its valid offered frames (at most
``PER_TARGET``, evenly spread), the instances that satisfy it there outlined, each tagged with
its frame and the target's share of the frame. Both are written into the episode folder by
``generate`` (``SHEETS``); the viewer shows them on the case pages of a run on the suite.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

SHEETS = {"frames": "sheet_frames.jpg", "targets": "sheet_targets.jpg"}
COLUMNS = 12  # offered frames per row of the frames sheet
TILE = 120  # px: a tile's width (its height follows the frame's aspect)
TARGET_TILE = 160
PER_TARGET = 8  # valid frames shown per target (evenly spread when there are more)
LABEL = 220  # px: the targets sheet's label column
OUTLINE = (255, 0, 255)  # magenta: reads on wood, paint, tiles and fabric alike
BG = (24, 24, 24)


def _font(size: int) -> Any:
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _tile(rgb: np.ndarray, width: int) -> Any:
    from PIL import Image

    img = Image.fromarray(rgb)
    return img.resize((width, round(width * img.height / img.width)), Image.Resampling.BILINEAR)


def _tag(draw: Any, xy: tuple[int, int], text: str, font: Any) -> None:
    x, y = xy
    box = draw.textbbox((x + 2, y + 1), text, font=font)
    draw.rectangle((box[0] - 2, box[1] - 1, box[2] + 2, box[3] + 1), fill=(0, 0, 0))
    draw.text((x + 2, y + 1), text, fill=(255, 255, 255), font=font)


def frames_sheet(images: Mapping[int, np.ndarray], path: Path) -> Path:
    """The offered frames (original index -> RGB, in offered order) in a grid."""
    from PIL import Image, ImageDraw

    frames = sorted(images)
    first = _tile(images[frames[0]], TILE)
    th = first.height
    rows = -(-len(frames) // COLUMNS)
    sheet = Image.new("RGB", (COLUMNS * (TILE + 2) + 2, rows * (th + 2) + 2), BG)
    draw, font = ImageDraw.Draw(sheet), _font(11)
    for p, f in enumerate(frames):
        x, y = 2 + (p % COLUMNS) * (TILE + 2), 2 + (p // COLUMNS) * (th + 2)
        sheet.paste(_tile(images[f], TILE), (x, y))
        _tag(draw, (x, y), f"{p} · f{f}", font)
    sheet.save(path, "JPEG", quality=88)
    return path


def _grow(mask: np.ndarray) -> np.ndarray:
    out = mask.copy()
    out[1:] |= mask[:-1]
    out[:-1] |= mask[1:]
    out[:, 1:] |= mask[:, :-1]
    out[:, :-1] |= mask[:, 1:]
    return out


def _outlined(rgb: np.ndarray, inside: np.ndarray) -> np.ndarray:
    """``rgb`` with a three-pixel ring painted just outside ``inside``: the ring never covers
    the target, so a small one stays visible."""
    out = rgb.copy()
    out[_grow(_grow(_grow(inside))) & ~inside] = OUTLINE
    return out


def _label(entities: Sequence[str], kind: str, labels: Mapping[str, str], ids: list[int],
           valid: int) -> str:
    names = [f"{labels.get(e, e)} ({e})" for e in entities[:2]]
    more = f" +{len(entities) - 2} more" if len(entities) > 2 else ""
    qs = sorted(set(ids))
    tail = f" +{len(qs) - 6}" if len(qs) > 6 else ""
    return "\n".join([*names, f"{kind}{more}", "questions " + ", ".join(map(str, qs[:6])) + tail,
                      f"{valid} valid offered frame(s)"])


def _spread(frames: Sequence[int], n: int) -> list[int]:
    if len(frames) <= n:
        return list(frames)
    return [frames[i] for i in np.linspace(0, len(frames) - 1, n).round().astype(int)]


def targets_sheet(frames: Any, targets: Sequence[dict[str, Any]], labels: Mapping[str, str],
                  path: Path) -> Path:
    """One row per distinct target of ``targets`` (``frame_readability.target_areas``), its
    valid offered frames from ``frames`` (an ``OfferedFrames``) with the target outlined;
    ``labels``: entity id -> its readable name."""
    from PIL import Image, ImageDraw

    groups: dict[tuple[str, ...], dict[str, Any]] = {}
    for t in targets:
        g = groups.setdefault(tuple(t["entities"]),
                              {"kind": t["kind"], "ids": [], "area": {}, "held": {}})
        g["ids"].append(t["id"])
        g["area"].update(zip(t["frames"], t["area"], strict=True))
        g["held"].update(zip(t["frames"], t.get("held", [t["entities"]] * len(t["frames"])),
                             strict=True))
    sample = next(iter(frames.images.values()))
    th = round(TARGET_TILE * sample.shape[0] / sample.shape[1])
    # a target without a valid offered frame gets a row of text only
    heights = [th + 4 if g["area"] else 84 for _, g in sorted(groups.items())]
    sheet = Image.new("RGB", (LABEL + PER_TARGET * (TARGET_TILE + 2) + 2, sum(heights) + 4), BG)
    draw, font, small = ImageDraw.Draw(sheet), _font(12), _font(11)
    y = 4
    for (entities, g), h in zip(sorted(groups.items()), heights, strict=True):
        valid = sorted(g["area"])
        text = _label(entities, g["kind"], labels, g["ids"], len(valid))
        draw.multiline_text((6, y + 2), text, fill=(235, 235, 235), font=font, spacing=3)
        for c, f in enumerate(_spread(valid, PER_TARGET)):
            members = [frames.instance_index(e) + 1 for e in g["held"][f]]  # those that hold
            rgb = _outlined(frames.images[f], np.isin(frames.masks[f], members))
            x = LABEL + c * (TARGET_TILE + 2)
            sheet.paste(_tile(rgb, TARGET_TILE), (x, y))
            _tag(draw, (x, y), f"f{f} · {100 * g['area'][f]:.1f}%", small)
        y += h
    sheet.save(path, "JPEG", quality=88)
    return path


def write_sheets(frames: Any, targets: Sequence[dict[str, Any]], labels: Mapping[str, str],
                 folder: Path) -> dict[str, Path]:
    """Both sheets of one episode into ``folder``."""
    return {"frames": frames_sheet(frames.images, folder / SHEETS["frames"]),
            "targets": targets_sheet(frames, targets, labels, folder / SHEETS["targets"])}
