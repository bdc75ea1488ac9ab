"""Captioning for the text-memory agent: the offered frames cut into chunks of consecutive
positions (``make_chunks``), and the captioners that turn a chunk into text: the VLM with a
captioning prompt (``VLMCaptioner``), or any object or function implementing ``Captioner``
(``as_captioner``, ``make_captioner``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from recallbench.agents.openai_client import ChatClient
from recallbench.agents.prompts import Prompt, load_prompt
from recallbench.agents.vlm import request_info
from recallbench.agents.vlm_images import (
    image_parts,
    model_images,
    parse_image_size,
    time_of_day_at,
)
from recallbench.benchmarks.findingdory.protocol import (
    FrameQuery,
    FrameSource,
    TransientError,
)
from recallbench.loader import load_attr


@dataclass(frozen=True)
class Chunk:
    """A run of consecutive offered frames. ``positions`` are the numbers stamped on the frames
    (what answers refer to); ``frame_indices`` the original video frames they show."""

    index: int
    positions: tuple[int, ...]
    frame_indices: tuple[int, ...]
    times_of_day: tuple[str | None, ...]
    video_path: str | None

    @property
    def time_span(self) -> str:
        times = [t for t in self.times_of_day if t]
        return f"{times[0]} to {times[-1]}" if times else "time unknown"

    def label(self) -> str:
        return f"Frames {self.positions[0]}-{self.positions[-1]} ({self.time_span})"


class CaptionError(RuntimeError):
    """A chunk could not be captioned (the request failed after its retries)."""

    def __init__(self, message: str, info: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.info = info or {}


@runtime_checkable
class Captioner(Protocol):
    """Turns one chunk into text. ``frames`` is the case's lazy frame source (None when the case
    has no video, e.g. for an annotation-based captioner). Raise ``CaptionError`` on failure."""

    def caption(self, chunk: Chunk, frames: FrameSource | None) -> str: ...


class FunctionCaptioner:
    """Adapts a plain ``fn(chunk, frames) -> str`` (e.g. a privileged annotation lookup)."""

    def __init__(self, fn: Callable[[Chunk, FrameSource | None], str], name: str = "function"):
        self.fn = fn
        self.name = name

    def caption(self, chunk: Chunk, frames: FrameSource | None) -> str:
        return str(self.fn(chunk, frames))

    def manifest(self) -> dict[str, Any]:
        return {"captioner": self.name}


def as_captioner(value: Captioner | Callable[..., str] | str) -> Captioner:
    """A Captioner from an object, a plain function, or a ``"module:attr"`` reference (a class
    is instantiated without arguments), so a command line can name one."""
    if isinstance(value, str):
        if ":" not in value:
            raise ValueError(f"captioner must be 'module:attr', got {value!r}")
        value = load_attr(value)
        if isinstance(value, type):
            value = value()
    if isinstance(value, Captioner):
        return value
    if callable(value):
        return FunctionCaptioner(value, getattr(value, "__name__", "function"))
    raise TypeError(f"not a captioner: {value!r}")


def make_chunks(query: FrameQuery, chunk_size: int, frames: FrameSource | None) -> list[Chunk]:
    """Consecutive chunks over the offered positions; the last one may be shorter."""
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be >= 1, got {chunk_size}")
    count = len(query.offered_frames)
    chunks = []
    for index, start in enumerate(range(0, count, chunk_size)):
        positions = tuple(range(start, min(start + chunk_size, count)))
        chunks.append(
            Chunk(
                index=index,
                positions=positions,
                frame_indices=tuple(query.offered_frames[p] for p in positions),
                times_of_day=tuple(time_of_day_at(query, frames, p) for p in positions),
                video_path=query.video_path,
            )
        )
    return chunks


class VLMCaptioner:
    """Captions a chunk by sending its stamped frames and a captioning prompt to the VLM."""

    def __init__(
        self,
        client: ChatClient,
        *,
        prompt: str | Path = "text_memory_caption_v1",
        max_words: int = 80,
        image_size: int | str | tuple[int, int] | None = None,
        image_format: str = "jpeg",
    ) -> None:
        self.client = client
        self.prompt: Prompt = load_prompt(prompt)
        self.max_words = int(max_words)
        self.image_size = parse_image_size(image_size)
        self.image_format = image_format
        self.stats: list[dict[str, Any]] = []
        self._lock = threading.Lock()

    def caption(self, chunk: Chunk, frames: FrameSource | None) -> str:
        if frames is None:
            raise CaptionError(f"chunk {chunk.label()}: no frames to caption")
        times = dict(zip(chunk.positions, chunk.times_of_day, strict=True))
        images = model_images(frames, chunk.positions, self.image_size, times.get)
        text = self.prompt.render(
            first_frame=chunk.positions[0],
            last_frame=chunk.positions[-1],
            time_span=chunk.time_span,
            max_words=self.max_words,
        )
        content = image_parts(images, self.image_format)
        content.append({"type": "text", "text": text})
        result = self.client.complete([{"role": "user", "content": content}])
        stats = request_info(result)
        with self._lock:
            self.stats.append(stats)
        if not result.ok and result.transient:  # no answer at all: --resume asks again
            raise TransientError(result.error_kind or "request_error", result.error or "", stats)
        if not result.ok or result.text is None:
            raise CaptionError(f"chunk {chunk.label()}: {result.error}", stats)
        return result.text.strip()

    def manifest(self) -> dict[str, Any]:
        return {
            "captioner": "vlm",
            "prompt": self.prompt.manifest(),
            "max_words": self.max_words,
            "image_size": self.image_size,
            "image_format": self.image_format,
        }


def make_captioner(
    captioner: Captioner | Callable[[Chunk, FrameSource | None], str] | None,
    vlm_model: str | None,
    client: Callable[[str], ChatClient],
    *,
    caption_prompt: str | Path,
    caption_max_words: int,
    image_size: int | str | tuple[int, int] | None,
    image_format: str,
) -> Captioner:
    """The given captioner (an object, a function or a ``"module:attr"``), else the VLM
    captioning with ``vlm_model`` (``client`` makes the chat client of a model id)."""
    if captioner is not None:
        return as_captioner(captioner)
    if not vlm_model:
        raise ValueError(
            "text-memory agent: give a captioner (captioner=module:Class; on generated "
            "suites recallbench.agents.annotation_captions:AnnotationCaptioner) or a "
            "model to caption with (model=NAME)")
    return VLMCaptioner(
        client(vlm_model),
        prompt=caption_prompt,
        max_words=caption_max_words,
        image_size=image_size,
        image_format=image_format,
    )
