"""Stamp "Frame: i" and "Time of Day: HH:MM" in a frame's top-left corner, like the paper."""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    # Pillow's bundled font scales with size (FreeType); no system font files needed.
    return ImageFont.load_default(size=size)


def stamp_frame(frame: np.ndarray, index: int, time_of_day: str | None) -> np.ndarray:
    """Return a copy of an RGB uint8 HxWx3 frame with the index (and time) written top-left.

    ``index`` is the position the agent answers with (0..K-1), not the original frame number.
    White text on a black box so it stays readable on any scene.
    """
    if frame.ndim != 3 or frame.shape[2] != 3 or frame.dtype != np.uint8:
        raise ValueError(f"expected an RGB uint8 HxWx3 frame, got {frame.dtype} {frame.shape}")
    height = frame.shape[0]
    size = max(8, height // 24)
    lines = [f"Frame: {index}"]
    if time_of_day:
        lines.append(f"Time of Day: {time_of_day}")
    text = "\n".join(lines)
    image = Image.fromarray(frame)
    draw = ImageDraw.Draw(image)
    font = _font(size)
    pad = max(1, size // 4)
    left, top, right, bottom = draw.multiline_textbbox((pad, pad), text, font=font)
    draw.rectangle((0, 0, right + pad, bottom + pad), fill=(0, 0, 0))
    draw.multiline_text((pad, pad), text, font=font, fill=(255, 255, 255))
    return np.asarray(image)
