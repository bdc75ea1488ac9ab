"""Thumbnails as JPEG files beside the viewer's pages, made once and reused.

Pages ask for a (video, frame) thumbnail and get its relative URL at once; the frames are
decoded afterwards, one streaming pass per video for every frame any page asked for. A file
already on disk is never decoded again, so rebuilding a viewer (``--serve`` refreshes, a larger
run over the same videos) costs only the new frames.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from recallbench.io import replace_atomic

THUMB_DIR = "thumbs"
MAX_SIDE = 160  # px; the strips show them smaller, the side-by-side pairs at this size


def video_key(video: Path) -> str:
    return hashlib.sha1(str(Path(video).resolve()).encode()).hexdigest()[:12]


def _saver(img: Any) -> Callable[[BinaryIO], object]:
    return lambda f: img.save(f, "JPEG", quality=82)


class Thumbnailer:
    def __init__(self, out: Path, root: Path | None = None) -> None:
        self.out = Path(out)
        self.root = self.out if root is None else Path(root)  # writes stay inside it
        self.wanted: dict[Path, set[int]] = {}
        self.made = 0
        self.failed: dict[str, str] = {}
        self._bases: dict[str, tuple[Path, str] | None] = {}

    def base(self, video: Path | str | None) -> str | None:
        """The folder URL of a video's thumbnails (``thumbs/<key>/``), None without the video.
        Looked up once per video: a 10,000-case run asks half a million times."""
        if video is None:
            return None
        key = str(video)
        if key not in self._bases:
            path = Path(video)
            self._bases[key] = (path, f"{THUMB_DIR}/{video_key(path)}/") if path.is_file() \
                else None
        found = self._bases[key]
        return found[1] if found else None

    def want(self, video: Path | str | None, frames: list[int]) -> str | None:
        """Ask for these frames' thumbnails (``base + f"{frame}.jpg"``); returns ``base``."""
        base = self.base(video)
        if base is not None:
            path = self._bases[str(video)][0]  # type: ignore[index]
            self.wanted.setdefault(path, set()).update(int(f) for f in frames if f >= 0)
        return base

    def url(self, video: Path | str | None, frame: int) -> str | None:
        """Relative URL of this frame's thumbnail (decoded later by ``make``), or None."""
        base = self.want(video, [frame]) if frame >= 0 else None
        return f"{base}{int(frame)}.jpg" if base else None

    def make(self, progress: Callable[[str], None] | None = None) -> int:
        """Decode every asked-for thumbnail not yet on disk; returns how many were written.
        A video that cannot be decoded is noted in ``failed`` (its pages show no image)."""
        from PIL import Image

        from recallbench.video.reader import VideoFrames

        for video, frames in self.wanted.items():
            folder = self.out / THUMB_DIR / video_key(video)
            todo = sorted(f for f in frames if not (folder / f"{f}.jpg").is_file())
            if not todo:
                continue
            if progress:
                progress(f"thumbnails: {len(todo)} frames of {video.name}")
            try:
                images = VideoFrames(video, todo, stamp=False).frames()
            except Exception as exc:  # a broken or truncated video: no thumbnails, no crash
                self.failed[str(video)] = f"{type(exc).__name__}: {exc}"
                continue
            for frame, pixels in zip(todo, images, strict=True):
                img = Image.fromarray(pixels)
                img.thumbnail((MAX_SIDE, MAX_SIDE))
                replace_atomic(folder / f"{frame}.jpg", _saver(img), root=self.root)
                self.made += 1
        return self.made
