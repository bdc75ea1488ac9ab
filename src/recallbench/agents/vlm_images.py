"""Turning a case's offered frames into the images a model sees: decode, resize, stamp, encode.

Shared by the VLM agent and the text-memory captioner so both show a model the same pictures.
Stamps ("Frame: i", "Time of Day: HH:MM") are drawn after resizing, so they stay legible at any
image size; a frame source that already stamped its frames (``VideoFrames(stamp=True)``) is only
resized.
"""

from __future__ import annotations

import base64
import io
from collections.abc import Callable, Sequence

import numpy as np
from PIL import Image

from recallbench.benchmarks.findingdory.protocol import FrameQuery, FrameSource

ImageSize = int | tuple[int, int] | None


def parse_image_size(value: int | str | Sequence[int] | None) -> ImageSize:
    """``None`` (native), an int (longer side, aspect kept), ``(w, h)`` or ``"WxH"``."""
    if value is None or value == "" or value == 0:
        return None
    if isinstance(value, str):
        if "x" in value.lower():
            width, height = (int(v) for v in value.lower().split("x", 1))
            return _check_size((width, height))
        return _check_size(int(value))
    if isinstance(value, int):
        return _check_size(value)
    width, height = (int(v) for v in value)
    return _check_size((width, height))


def _check_size(size: int | tuple[int, int]) -> int | tuple[int, int]:
    values = size if isinstance(size, tuple) else (size,)
    if any(v < 8 for v in values):
        raise ValueError(f"image size {size} too small (minimum 8 pixels)")
    return size


def resize_frame(frame: np.ndarray, size: ImageSize) -> np.ndarray:
    if size is None:
        return frame
    height, width = frame.shape[:2]
    if isinstance(size, int):
        scale = size / max(height, width)
        target = (max(1, round(width * scale)), max(1, round(height * scale)))
    else:
        target = size
    if target == (width, height):
        return frame
    return np.asarray(Image.fromarray(frame).resize(target, Image.Resampling.BILINEAR))


def time_of_day_at(query: FrameQuery, source: FrameSource | None, position: int) -> str | None:
    """The time shown on the frame at this offered position, if the case has times."""
    lookup = getattr(source, "time_of_day", None)
    found = lookup(position) if callable(lookup) else None
    if found is not None:
        return found
    times = query.times_of_day
    if not times:
        return None
    if len(times) == len(query.offered_frames):
        return times[position]
    original = query.offered_frames[position]
    return times[original] if original < len(times) else None


def open_source(query: FrameQuery, frames: FrameSource | None) -> FrameSource | None:
    """The runner's frame source, or the case's video opened lazily and unstamped."""
    if frames is not None:
        return frames
    if not query.video_path:
        return None
    from recallbench.video.reader import VideoFrames  # PyAV on first use only

    return VideoFrames(
        query.video_path, query.offered_frames, stamp=False, times_of_day=query.times_of_day
    )


def model_images(
    source: FrameSource,
    positions: Sequence[int] | None = None,
    size: ImageSize = None,
    time_of: Callable[[int], str | None] = lambda position: None,
) -> list[np.ndarray]:
    """Resized RGB frames at these offered positions (all when None), stamped with their
    position and ``time_of(position)`` unless the source stamped them already."""
    from recallbench.video.stamp import stamp_frame

    wanted = list(range(len(source))) if positions is None else [int(p) for p in positions]
    raw = source.frames(wanted)
    already_stamped = bool(getattr(source, "stamp", False))
    images = []
    for position, frame in zip(wanted, raw, strict=True):
        frame = resize_frame(np.asarray(frame, dtype=np.uint8), size)
        if not already_stamped:
            frame = stamp_frame(frame, position, time_of(position))
        images.append(frame)
    return images


def image_data_url(frame: np.ndarray, fmt: str = "jpeg", quality: int = 90) -> str:
    """A base64 data URL (what chat-completions ``image_url`` parts carry)."""
    fmt = fmt.lower()
    buffer = io.BytesIO()
    image = Image.fromarray(frame)
    if fmt in ("jpeg", "jpg"):
        image.save(buffer, format="JPEG", quality=quality)
        mime = "image/jpeg"
    elif fmt == "png":
        image.save(buffer, format="PNG")
        mime = "image/png"
    else:
        raise ValueError(f"image format must be 'jpeg' or 'png', got {fmt!r}")
    return f"data:{mime};base64," + base64.b64encode(buffer.getvalue()).decode("ascii")


def image_parts(
    frames: Sequence[np.ndarray], fmt: str = "jpeg", quality: int = 90, detail: str | None = None
) -> list[dict]:
    """Chat-completions content parts, one ``image_url`` per frame, in order."""
    return url_parts([image_data_url(frame, fmt, quality) for frame in frames], detail)


def url_parts(urls: Sequence[str], detail: str | None = None) -> list[dict]:
    """Chat-completions content parts for already encoded images (data URLs), in order."""
    parts = []
    for url in urls:
        image_url: dict[str, str] = {"url": url}
        if detail:
            image_url["detail"] = detail
        parts.append({"type": "image_url", "image_url": image_url})
    return parts
