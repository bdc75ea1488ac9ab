"""Lazy access to the offered frames of a long video: one streaming pass, nothing else kept.

An 8,000-frame 256x256 video is 1.5 GB of pixels; an agent is offered K (96) of them. Frames are
decoded in presentation order and only the requested ones are converted to RGB and kept, so
memory is bounded by K frames whatever the video length.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from pathlib import Path

import av
import numpy as np

from recallbench.errors import InputError
from recallbench.video.stamp import stamp_frame

# The largest frame decoded (4K UHD). A frame costs width x height x 3 bytes as RGB and more inside
# the decoder: a 202 KB mp4 at 8192x8192 took 3.9 GB for 15 frames. Larger videos are refused.
MAX_PIXELS = 3840 * 2160
MAX_SIDE = 8192


class VideoTooLarge(ValueError):
    """A video above the resolution cap: the same on every try, so a case's error, not a
    transient failure."""


def check_resolution(path: Path, stream: av.VideoStream) -> None:
    width, height = stream.codec_context.width or 0, stream.codec_context.height or 0
    if width * height > MAX_PIXELS or max(width, height) > MAX_SIDE:
        raise VideoTooLarge(f"{path}: {width}x{height} is above the {MAX_PIXELS:,}-pixel "
                            f"resolution cap (3840x2160)")


def count_frames(path: str | Path) -> int:
    """Number of frames in a video: the container's count when it has one, else packets counted
    by demuxing (no decoding)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, None, "video file not found")
    with av.open(str(path)) as container:
        if not container.streams.video:
            raise InputError(path, "streams", "no video stream")
        stream = container.streams.video[0]
        if stream.frames and stream.frames > 0:
            return int(stream.frames)
        return sum(1 for packet in container.demux(stream) if packet.size)


def check_video(path: str | Path, field: str | None = None) -> int:
    """Refuse a garbage or truncated video before any work: it must open, hold a video stream,
    decode its first frame and demux every frame its container announces. Returns the frame
    count. One pass over the packets (no decoding past the first frame)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, field, "video file not found")
    try:
        with av.open(str(path)) as container:
            if not container.streams.video:
                raise InputError(path, field, "no video stream")
            stream = container.streams.video[0]
            check_resolution(path, stream)
            packets, first = 0, None
            for packet in container.demux(stream):
                if not packet.size:
                    continue
                packets += 1
                if first is None:
                    first = packet.decode()
    except VideoTooLarge as exc:
        raise InputError(path, field, str(exc).removeprefix(f"{path}: ")) from None
    except (av.FFmpegError, OSError, ValueError, EOFError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        raise InputError(path, field, f"not a readable video: {reason}") from None
    if packets == 0:
        raise InputError(path, field, "no frames")
    if stream.frames and packets < stream.frames:
        raise InputError(path, field, f"truncated: {packets} of {stream.frames} frames")
    return packets


class VideoFrames:
    """The K offered frames of one video (implements ``agents.base.FrameSource``).

    ``offered`` holds original-frame indices (e.g. ``subsample_indices(N, K)``); positions
    0..K-1 index that list, and frame ``p`` is stamped "Frame: p" (the number the agent answers
    with). ``times_of_day`` is either one string per offered frame or one per original frame
    (then looked up by original index). ``size`` is (width, height) to rescale to while decoding.
    Nothing is decoded until ``frames()`` is first called.
    """

    def __init__(
        self,
        path: str | Path,
        offered: Sequence[int],
        *,
        stamp: bool = True,
        times_of_day: Sequence[str] | None = None,
        size: tuple[int, int] | None = None,
    ) -> None:
        self.path = Path(path)
        if not self.path.is_file():
            raise InputError(self.path, None, "video file not found")
        self.offered: tuple[int, ...] = tuple(int(i) for i in offered)
        if any(i < 0 for i in self.offered):
            raise InputError(self.path, "offered", "frame indices must be >= 0")
        self.stamp = stamp
        self.size = size
        self._times = self._align_times(times_of_day)
        self._cache: dict[int, np.ndarray] = {}

    def _align_times(self, times: Sequence[str] | None) -> tuple[str | None, ...]:
        if times is None:
            return (None,) * len(self.offered)
        times = list(times)
        if len(times) == len(self.offered):
            return tuple(times)
        if self.offered and len(times) > max(self.offered):
            return tuple(times[i] for i in self.offered)
        raise InputError(
            self.path,
            "times_of_day",
            f"{len(times)} entries: need one per offered frame ({len(self.offered)}) "
            "or one per original frame",
        )

    def __len__(self) -> int:
        return len(self.offered)

    def original_index(self, position: int) -> int:
        """The original-video frame shown at this position of the offered list."""
        return self.offered[position]

    def time_of_day(self, position: int) -> str | None:
        return self._times[position]

    def frames(self, positions: Sequence[int] | None = None) -> list[np.ndarray]:
        """RGB uint8 HxWx3 frames at these positions (all offered when None), in the order asked."""
        wanted = (
            list(range(len(self.offered))) if positions is None else [int(p) for p in positions]
        )
        for p in wanted:
            if not 0 <= p < len(self.offered):
                raise IndexError(f"position {p} outside the {len(self.offered)} offered frames")
        missing = sorted({p for p in wanted if p not in self._cache})
        if missing:
            self._decode(missing)
        return [self._cache[p] for p in wanted]

    # Seek to the keyframe before a wanted frame when that skips decoding; False = one
    # sequential pass (always used when timestamps cannot be mapped to frame numbers).
    seek: bool = True

    def _decode(self, positions: list[int]) -> None:
        # Several positions may show the same original frame (duplicates in ``offered``).
        by_frame: dict[int, list[int]] = {}
        for p in positions:
            by_frame.setdefault(self.offered[p], []).append(p)
        with av.open(str(self.path)) as container:
            stream = container.streams.video[0]
            check_resolution(self.path, stream)  # the file may have changed since the load check
            clock = _constant_rate_clock(stream)
            if clock is None or not self.seek:
                # Frame threads pay off on a long pass; after every seek they would refill
                # their pipeline (measured 2.6x slower in bench_video), so seeking is unthreaded.
                stream.thread_type = "AUTO"
                self._decode_sequential(container, stream, by_frame)
            else:
                self._decode_seeking(container, stream, by_frame, clock)

    def _keep(self, frame: av.VideoFrame, positions: list[int]) -> None:
        if self.size is not None:
            width, height = self.size
            rgb = frame.to_ndarray(format="rgb24", width=width, height=height)
        else:
            rgb = frame.to_ndarray(format="rgb24")
        for p in positions:
            kept = stamp_frame(rgb, p, self._times[p]) if self.stamp else rgb
            # Frames are shared by every caller (and cached across questions): read-only, so
            # one agent cannot alter what the next one sees.
            kept.flags.writeable = False
            self._cache[p] = kept

    def _decode_sequential(
        self, container: av.container.InputContainer, stream: av.VideoStream, by_frame: dict
    ) -> None:
        last = max(by_frame)
        index = -1
        for index, frame in enumerate(container.decode(stream)):
            if index in by_frame:
                self._keep(frame, by_frame[index])
            if index >= last:
                break
        if index < last:
            raise InputError(
                self.path, "offered", f"frame {last} requested but the video has {index + 1} frames"
            )

    def _decode_seeking(
        self,
        container: av.container.InputContainer,
        stream: av.VideoStream,
        by_frame: dict,
        clock: tuple[int, float, int],
    ) -> None:
        start, ticks_per_frame, total = clock
        last = max(by_frame)
        if last >= total:
            raise InputError(
                self.path, "offered", f"frame {last} requested but the video has {total} frames"
            )
        # Keyframe positions from the packet index (demuxing reads bytes, decodes nothing).
        keyframes = sorted(
            round((packet.pts - start) / ticks_per_frame)
            for packet in container.demux(stream)
            if packet.is_keyframe and packet.pts is not None
        )
        got: set[int] = set()
        frames = None
        here = -1  # index of the frame the decoder produced last
        for target in sorted(by_frame):
            if target in got:
                continue
            k = bisect.bisect_right(keyframes, target) - 1
            key = keyframes[k] if k >= 0 else 0
            if frames is None or key > here:  # a keyframe lies ahead: jump to it
                container.seek(int(start + key * ticks_per_frame), stream=stream, backward=True)
                frames = container.decode(stream)
            for frame in frames:
                if frame.pts is None:
                    break
                here = round((frame.pts - start) / ticks_per_frame)
                if here in by_frame and here not in got:
                    self._keep(frame, by_frame[here])
                    got.add(here)
                if here >= target:
                    break
        missing = {i: ps for i, ps in by_frame.items() if i not in got}
        if missing:  # timestamps did not line up (e.g. a seek overshot): fall back, exactly
            container.seek(0, stream=stream, backward=True)
            self._decode_sequential(container, stream, missing)


def _constant_rate_clock(stream: av.VideoStream) -> tuple[int, float, int] | None:
    """(start pts, pts ticks per frame, frame count) when frame i has pts start + i * ticks,
    which holds for constant-rate files that state their frame count; else None."""
    rate = stream.average_rate
    if not rate or not stream.frames or not stream.time_base or stream.duration is None:
        return None
    ticks = float(1 / (rate * stream.time_base))
    if abs(stream.duration / ticks - stream.frames) > 0.5:  # variable rate or odd metadata
        return None
    return (stream.start_time or 0, ticks, int(stream.frames))


# Decode failures that are the same on every try (corrupt data, a video over the cap): the case's
# error, recorded, never left for --resume to retry forever.
DETERMINISTIC_DECODE_ERRORS: tuple[type[BaseException], ...] = (
    VideoTooLarge, av.error.InvalidDataError)
