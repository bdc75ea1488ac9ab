"""Write RGB frames to an H.264 mp4 with PyAV."""

from __future__ import annotations

import ctypes
import functools
import platform
import re
from fractions import Fraction
from pathlib import Path
from types import TracebackType

import av
import numpy as np
from av.video.reformatter import VideoReformatter

# libx264's speed presets, fastest first. A faster preset only moves bytes (a larger file at
# the same crf quality), never which frames are written.
PRESETS = (
    "ultrafast",
    "superfast",
    "veryfast",
    "faster",
    "fast",
    "medium",
    "slow",
    "slower",
    "veryslow",
    "placebo",
)
DEFAULT_PRESET = "veryfast"  # ~3x faster than x264's "medium", files ~25% larger
# libx264's AVX-512 macroblock-tree kernel (mbtree_propagate_list_avx512, picked on CPUs with
# AVX-512) takes a row of macroblocks 8 at a time without masking the lanes past the row's end
# (x264's other versions stop at it): when the width in macroblocks (16 px) is not a multiple of
# MBTREE_MB_COLUMNS it reads past the last row of the lookahead's cost and motion arrays, into
# memory whose content comes from the process's earlier allocations (another writer's freed
# buffers), and the same frames encode to other bytes now and then: 64x64 and 240x320 videos
# change with MALLOC_PERTURB_, a 48x64 day's video changed in 1 of 25 encodes in one process,
# under load a suite's video differed between two runs. Such videos are encoded without x264's
# AVX-512 kernels (``asm=`` its detected CPU flags but AVX-512: the bytes of a CPU without it);
# where libx264's detection cannot be reached, without macroblock-tree rate control (mbtree=0;
# costs bytes: +46% for a 240x320 FindingDory day). Widths of a multiple of 128 px (256:
# SceneMem) never run the unmasked lanes and keep everything (their bytes unchanged).
MBTREE_MB_COLUMNS = 8
X264_CPU_AVX512 = 1 << 16  # x264.h


def check_x264_params(params: str) -> None:
    """Raise ValueError unless ``params`` reads as x264's ``key=value:key=value`` options."""
    if params and not all(re.fullmatch(r"[a-z0-9-]+=[^:=]+", kv) for kv in params.split(":")):
        raise ValueError(f"x264 params must read 'key=value:key=value', got {params!r}")


@functools.cache
def x264_cpu_flags() -> int | None:
    """The CPU flags the libx264 PyAV loaded detects (``x264_cpu_detect``); None where the
    library cannot be found (looked for in /proc/self/maps: Linux) or called."""
    try:
        with open("/proc/self/maps") as maps:
            paths = [f[5].strip() for f in (line.split(maxsplit=5) for line in maps)
                     if len(f) == 6 and "libx264" in f[5]]
        if not paths:
            return None
        detect = ctypes.CDLL(paths[0]).x264_cpu_detect
    except (OSError, AttributeError):
        return None
    detect.restype = ctypes.c_uint32
    detect.argtypes = []
    return int(detect())


def repeatable_x264_params(width: int, params: str, cpu_flags: int | None) -> str:
    """``params`` with what keeps x264's bytes from depending on memory it never wrote first
    (see MBTREE_MB_COLUMNS); the same option in ``params`` comes later and wins."""
    if -(-width // 16) % MBTREE_MB_COLUMNS == 0:
        return params
    if cpu_flags is not None:
        if not cpu_flags & X264_CPU_AVX512:
            return params
        first = f"asm={cpu_flags & ~X264_CPU_AVX512}"
    elif platform.machine().lower() in ("x86_64", "amd64"):
        first = "mbtree=0"
    else:  # x264 has AVX-512 kernels on x86 only
        return params
    return first + (f":{params}" if params else "")


class VideoWriter:
    """PyAV H.264 writer (libx264, yuv420p) with a short keyframe interval for fast seeking.

    Width and height must be even (yuv420p halves the chroma planes). ``preset`` is x264's
    speed/size trade-off (``PRESETS``); ``crf`` sets the quality; ``x264_params`` sets single
    x264 options on top of the preset (``"key=value:key=value"``). ``threads``: x264's
    encoding threads. One by default: on the small frames recorded here x264's frame threads
    cost more than they save (a generated 240x320 day, veryfast: ~30% less CPU time and no
    more wall time single-threaded), and the bytes no longer depend on the machine's core
    count. 0 lets x264 choose. At a width not a multiple of 128 px, x264 runs without its
    AVX-512 kernels (``repeatable_x264_params``): the same frames give the same bytes.
    """

    def __init__(
        self,
        path: str | Path,
        fps: int,
        width: int,
        height: int,
        *,
        gop: int = 20,
        crf: int = 18,
        preset: str = DEFAULT_PRESET,
        threads: int = 1,
        x264_params: str = "",
    ) -> None:
        if preset not in PRESETS:
            raise ValueError(f"preset must be one of {PRESETS}, got {preset!r}")
        if width % 2 or height % 2:
            raise ValueError(f"width and height must be even for yuv420p, got {width}x{height}")
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.width = width
        self.height = height
        self.preset = preset
        self.frames_written = 0
        options = {"crf": str(crf), "g": str(gop), "preset": preset, "threads": str(threads)}
        check_x264_params(x264_params)
        x264_params = repeatable_x264_params(width, x264_params, x264_cpu_flags())
        if x264_params:
            options["x264-params"] = x264_params
        self._container = av.open(str(self.path), mode="w")
        stream = self._container.add_stream(
            "libx264",
            rate=Fraction(fps),
            options=options,
        )
        stream.width = width
        stream.height = height
        stream.pix_fmt = "yuv420p"
        stream.codec_context.gop_size = gop
        self._stream = stream
        self._last_yuv: av.VideoFrame | None = None
        self._reformatter = VideoReformatter()
        self._closed = False

    def write(self, frame: np.ndarray) -> None:
        if self._closed:
            raise ValueError(f"{self.path}: writer is closed")
        if frame.shape != (self.height, self.width, 3) or frame.dtype != np.uint8:
            raise ValueError(
                f"{self.path}: expected uint8 frame of shape {(self.height, self.width, 3)}, "
                f"got {frame.dtype} {frame.shape}"
            )
        rgb = av.VideoFrame.from_ndarray(np.ascontiguousarray(frame), format="rgb24")
        # converted here (as encode would) so that repeat() can reuse it: the RGB -> YUV
        # conversion costs about as much as encoding a still frame. One reformatter for the
        # whole video keeps its scaler context (frame.reformat builds one per call, ~2x slower).
        self._last_yuv = self._reformatter.reformat(rgb, format="yuv420p")
        self._encode(self._last_yuv)

    def repeat(self) -> None:
        """Write the last written frame again (byte-identical to ``write`` of the same image)."""
        if self._closed:
            raise ValueError(f"{self.path}: writer is closed")
        if self._last_yuv is None:
            raise ValueError(f"{self.path}: nothing written yet to repeat")
        self._encode(self._last_yuv)

    def _encode(self, yuv: av.VideoFrame) -> None:
        # The encoder stamps an unstamped frame with its frame number and takes its own
        # reference, so one converted frame is sent again for a repeat (unstamped first)
        # instead of copying it into a fresh frame each time.
        yuv.pts = None
        for packet in self._stream.encode(yuv):
            self._container.mux(packet)
        self.frames_written += 1

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            for packet in self._stream.encode(None):  # flush the encoder's delayed frames
                self._container.mux(packet)
        finally:
            self._container.close()

    def __enter__(self) -> VideoWriter:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
