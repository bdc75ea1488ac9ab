"""Frames prepared once per video: decoded, resized, stamped and encoded once, then shared by
every question on that video.

An entry is keyed by the video's content hash, the original frame index, the image size, the
stamp drawn on it (its "Frame: i" position and time of day, and whether the source drew it
before resizing) and the encoding (format, quality), so two questions that offer the same frame
at the same position get the very same bytes: a server with prefix caching then sees equal image
prefixes. Memory per process, bounded; with a ``disk`` response cache (the VLM agent's
``cache_dir``) the entries are shared by all worker processes and reruns.
"""

from __future__ import annotations

import hashlib
import os
from collections import OrderedDict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from recallbench.agents.cache import ResponseCache, stable_hash
from recallbench.agents.vlm_images import ImageSize, image_data_url, model_images

_video_hashes: dict[tuple[str, int, int], str] = {}


def video_hash(path: str | Path) -> str:
    """sha256 of the file's bytes, computed once per process per (path, size, mtime)."""
    stat = os.stat(path)
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _video_hashes:
        digest = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                digest.update(block)
        _video_hashes[key] = digest.hexdigest()
    return _video_hashes[key]


class PreparedFrames:
    """Data URLs of prepared frames; ``encodes`` counts the frames actually encoded."""

    def __init__(self, max_items: int = 20_000, disk: ResponseCache | None = None) -> None:
        self.max_items = max_items  # 20k 256x256 JPEGs as base64: ~0.5 GB at most
        self.disk = disk
        self._items: OrderedDict[str, str] = OrderedDict()
        self.encodes = 0
        self.hits = 0
        self.disk_error: str | None = None  # the last failed cache write, if any

    def data_urls(self, source: Any, size: ImageSize, time_of: Callable[[int], str | None],
                  fmt: str, quality: int) -> list[str] | None:
        """One data URL per offered frame of ``source``, or None when the source is no video
        file (in-memory frames have no identity to key on)."""
        path = getattr(source, "path", None)
        offered: Sequence[int] | None = getattr(source, "offered", None)
        if path is None or offered is None:
            return None
        video = video_hash(path)
        pre_stamped = bool(getattr(source, "stamp", False))
        keys = [stable_hash([video, int(frame), size, position, time_of(position), pre_stamped,
                             fmt.lower(), int(quality)])
                for position, frame in enumerate(offered)]
        urls: list[str | None] = [self._get(key) for key in keys]
        missing = [p for p, url in enumerate(urls) if url is None]
        if missing:  # decode (once: the source keeps its frames), resize, stamp, encode
            for position, image in zip(missing, model_images(source, missing, size, time_of),
                                       strict=True):
                urls[position] = self._put(keys[position], image_data_url(image, fmt, quality))
        self.hits += len(keys) - len(missing)
        return [url for url in urls if url is not None]

    def _get(self, key: str) -> str | None:
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        if self.disk is not None:
            entry = self.disk.get(key)
            if entry and isinstance(entry.get("url"), str):
                self._remember(key, entry["url"])
                return entry["url"]
        return None

    def _put(self, key: str, url: str) -> str:
        self.encodes += 1
        self._remember(key, url)
        if self.disk is not None:
            try:
                self.disk.put(key, {"url": url})
            except OSError as exc:  # a full or read-only cache costs the entry, never the frame
                self.disk_error = f"{type(exc).__name__}: {exc}"
        return url

    def _remember(self, key: str, url: str) -> None:
        self._items[key] = url
        while len(self._items) > self.max_items:
            self._items.popitem(last=False)
