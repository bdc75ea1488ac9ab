"""Image primitives the texture families share: smooth noise and deterministic PNG bytes."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
from PIL import Image


def value_noise(shape: tuple[int, int], cells: int, rng: np.random.Generator) -> np.ndarray:
    """Smooth noise in [0, 1] that tiles seamlessly: ``cells`` random values per side,
    bicubic-interpolated (wraps at the edges so a repeated texture shows no seam)."""
    h, w = shape
    grid = rng.random((cells, cells))
    img = Image.fromarray((grid * 255).astype(np.uint8))
    tiled = Image.fromarray(np.tile(np.asarray(img), (3, 3)))
    big = tiled.resize((w * 3, h * 3), Image.Resampling.BICUBIC)
    return np.asarray(big, dtype=np.float32)[h : 2 * h, w : 2 * w] / 255.0


def fractal_noise(shape: tuple[int, int], rng: np.random.Generator,
                  octaves: tuple[int, ...] = (4, 8, 16, 32)) -> np.ndarray:
    """Sum of value noise at several scales, normalised to [0, 1]."""
    total = np.zeros(shape, np.float32)
    for i, cells in enumerate(octaves):
        total += value_noise(shape, cells, rng) / (i + 1)
    lo, hi = float(np.min(total)), float(np.max(total))
    return (total - lo) / max(hi - lo, 1e-6)


def to_rgb(image: np.ndarray) -> np.ndarray:
    """Float [0, 1] or uint8 (H, W, 3) to uint8."""
    if image.dtype == np.uint8:
        return image
    return (np.clip(image, 0.0, 1.0) * 255.0 + 0.5).astype(np.uint8)


def png_bytes(image: np.ndarray) -> bytes:
    """PNG bytes of an RGB image; the same array always gives the same bytes."""
    buf = io.BytesIO()
    Image.fromarray(to_rgb(image), "RGB").save(buf, format="PNG", optimize=True)
    return buf.getvalue()


def write_png(path: Path, image: np.ndarray) -> None:
    path.write_bytes(png_bytes(image))
