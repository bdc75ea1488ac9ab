"""Video package: real mp4 files written by VideoWriter, read back by VideoFrames (PyAV)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from recallbench.errors import InputError
from recallbench.generate.findingdory_knobs import FindingDoryKnobs
from recallbench.video import (
    VideoFrames,
    VideoWriter,
    count_frames,
    stamp_frame,
    subsample_indices,
)

W, H = 96, 64
BITS = 12
BLOCK = 8


def coded_frame(i: int) -> np.ndarray:
    """A frame whose index is written as 12 black/white 8x8 blocks along the bottom rows, which
    survives lossy H.264; the rest is a smooth colour ramp so frames differ everywhere."""
    frame = np.full((H, W, 3), 40, np.uint8)
    frame[: H - BLOCK, :, 1] = (i * 7) % 200
    for b in range(BITS):
        if (i >> b) & 1:
            frame[H - BLOCK :, b * BLOCK : (b + 1) * BLOCK] = 255
    return frame


def decode_code(frame: np.ndarray) -> int:
    rows = frame[-BLOCK + 2 : -2]
    value = 0
    for b in range(BITS):
        if rows[:, b * BLOCK + 2 : (b + 1) * BLOCK - 2].mean() > 128:
            value |= 1 << b
    return value


@pytest.fixture(scope="module")
def video(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("video") / "day.mp4"
    with VideoWriter(path, fps=10, width=W, height=H, gop=10) as writer:
        for i in range(300):
            writer.write(coded_frame(i))
    return path


def test_subsample_matches_findingdory_linspace() -> None:
    got = subsample_indices(4000, 96)
    assert got.tolist() == np.linspace(0, 3999, 96, dtype=int).tolist()
    assert got[0] == 0 and got[-1] == 3999 and len(got) == 96
    assert subsample_indices(50, 96).tolist() == list(range(50))
    assert subsample_indices(96, 96).tolist() == list(range(96))
    # truncation, not rounding: linspace(0, 9, 4) = 0, 3, 6, 9; linspace(0, 10, 4) -> 0, 3, 6, 10
    assert subsample_indices(11, 4).tolist() == [0, 3, 6, 10]
    with pytest.raises(ValueError):
        subsample_indices(10, 0)


def test_writer_reader_round_trip_keeps_frame_identity(video: Path) -> None:
    assert count_frames(video) == 300
    offered = subsample_indices(300, 24)
    source = VideoFrames(video, offered, stamp=False)
    assert len(source) == 24
    frames = source.frames()
    assert [decode_code(f) for f in frames] == offered.tolist()
    for f, i in zip(frames, offered, strict=True):
        assert f.shape == (H, W, 3) and f.dtype == np.uint8
        # lossy codec: pixels close to what was written, not identical
        assert np.abs(f.astype(int) - coded_frame(int(i)).astype(int)).mean() < 6


def test_positions_subset_order_and_duplicates(video: Path) -> None:
    source = VideoFrames(video, [5, 250, 5, 17], stamp=False)
    frames = source.frames([3, 1, 0, 2])
    assert [decode_code(f) for f in frames] == [17, 250, 5, 5]
    assert source.original_index(1) == 250


def test_frames_decoded_once_then_served_from_memory(video: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.mp4"
    copy.write_bytes(video.read_bytes())
    source = VideoFrames(copy, [0, 100, 299], stamp=False)
    first = source.frames()
    assert not first[0].flags.writeable  # shared frames cannot be altered by one caller
    copy.unlink()  # a second decode would now fail: the frames must come from the one pass
    again = source.frames([2, 0])
    assert np.array_equal(again[0], first[2]) and np.array_equal(again[1], first[0])


def test_stamp_writes_position_and_time_top_left_only(video: Path) -> None:
    plain = VideoFrames(video, [10, 20], stamp=False).frames()
    stamped = VideoFrames(video, [10, 20], times_of_day=["06:00", "09:41"]).frames()
    for a, b in zip(plain, stamped, strict=True):
        diff = np.abs(a.astype(int) - b.astype(int)).sum(axis=2) > 0
        ys, xs = np.nonzero(diff)
        assert len(ys) > 50, "stamp must be visible"
        assert ys.max() < H // 2 and xs.max() < W * 0.9  # confined to the top-left box
        assert decode_code(b) == decode_code(a)  # bottom of the frame untouched
    # different index / time -> different stamp pixels
    s0 = stamp_frame(plain[0], 0, "06:00")
    s1 = stamp_frame(plain[0], 7, "06:00")
    s2 = stamp_frame(plain[0], 0, "21:59")
    assert not np.array_equal(s0, s1) and not np.array_equal(s0, s2)
    assert np.array_equal(stamp_frame(plain[0], 3, None), stamp_frame(plain[0], 3, None))


def test_times_of_day_per_original_frame(video: Path) -> None:
    times = [f"{6 + i // 60:02d}:{i % 60:02d}" for i in range(300)]
    by_original = VideoFrames(video, [0, 299], times_of_day=times).frames()
    by_offered = VideoFrames(video, [0, 299], times_of_day=[times[0], times[299]]).frames()
    assert all(np.array_equal(a, b) for a, b in zip(by_original, by_offered, strict=True))
    with pytest.raises(InputError, match="times_of_day"):
        VideoFrames(video, [0, 299], times_of_day=["06:00"] * 5)


def test_resize_while_decoding(video: Path) -> None:
    (frame,) = VideoFrames(video, [42], stamp=False, size=(2 * W, 2 * H)).frames()
    assert frame.shape == (2 * H, 2 * W, 3)


def test_bad_inputs_name_the_file(video: Path, tmp_path: Path) -> None:
    with pytest.raises(InputError, match="missing.mp4"):
        VideoFrames(tmp_path / "missing.mp4", [0])
    with pytest.raises(InputError, match="missing.mp4"):
        count_frames(tmp_path / "missing.mp4")
    beyond = VideoFrames(video, [10, 300])
    with pytest.raises(InputError, match="offered"):
        beyond.frames()
    with pytest.raises(IndexError):
        VideoFrames(video, [1, 2]).frames([2])
    with pytest.raises(ValueError):
        VideoWriter(tmp_path / "odd.mp4", 10, 31, 32)
    with VideoWriter(tmp_path / "shape.mp4", 10, 32, 32) as writer, pytest.raises(ValueError):
        writer.write(np.zeros((16, 32, 3), np.uint8))


def test_count_frames_without_container_count(tmp_path: Path) -> None:
    # Matroska stores no frame count, so counting falls back to demuxed packets.
    path = tmp_path / "clip.mkv"
    with VideoWriter(path, fps=5, width=32, height=32) as writer:
        for i in range(37):
            writer.write(coded_frame(i)[:32, :32])
    assert count_frames(path) == 37


def test_seeking_decode_equals_one_sequential_pass(video: Path) -> None:
    offered = [3, 4, 40, 41, 150, 150, 151, 290, 299]
    sequential = VideoFrames(video, offered, stamp=False)
    sequential.seek = False
    seeking = VideoFrames(video, offered, stamp=False)
    a, b = sequential.frames(), seeking.frames()
    assert [decode_code(f) for f in b] == offered
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    # asking in pieces (later calls decode only what is missing) gives the same frames
    pieces = VideoFrames(video, offered, stamp=False)
    assert [decode_code(f) for f in pieces.frames([8, 0])] == [299, 3]
    assert [decode_code(f) for f in pieces.frames()] == offered


def test_seeking_needs_no_fallback_on_our_files(
    video: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Our writer's files have a constant rate and a frame count, so every offered frame is
    # found by seeking to its keyframe; the sequential fallback must not be needed.
    def no_fallback(*args: object, **kwargs: object) -> None:
        raise AssertionError("sequential fallback used")

    monkeypatch.setattr(VideoFrames, "_decode_sequential", no_fallback)
    offered = subsample_indices(300, 12)
    assert [decode_code(f) for f in VideoFrames(video, offered, stamp=False).frames()] == list(
        offered
    )


def test_repeat_is_byte_identical_to_writing_the_same_image(tmp_path: Path) -> None:
    frames = [coded_frame(i) for i in (0, 1, 1, 1, 2, 2)]
    with VideoWriter(tmp_path / "written.mp4", fps=10, width=W, height=H) as writer:
        for f in frames:
            writer.write(f)
    with VideoWriter(tmp_path / "repeated.mp4", fps=10, width=W, height=H) as writer:
        for n, f in enumerate(frames):
            if n and np.array_equal(f, frames[n - 1]):
                writer.repeat()
            else:
                writer.write(f)
        assert writer.frames_written == len(frames)
    assert (tmp_path / "repeated.mp4").read_bytes() == (tmp_path / "written.mp4").read_bytes()
    with (
        VideoWriter(tmp_path / "empty.mp4", fps=10, width=W, height=H) as writer,
        pytest.raises(ValueError, match="nothing written"),
    ):
        writer.repeat()


def test_preset_is_applied_and_checked(tmp_path: Path) -> None:
    sizes = {}
    for preset in ("ultrafast", "medium"):
        path = tmp_path / f"{preset}.mp4"
        with VideoWriter(path, fps=10, width=W, height=H, preset=preset) as writer:
            assert writer.preset == preset
            for i in range(40):
                writer.write(coded_frame(i))
        frames = VideoFrames(path, [0, 17, 39], stamp=False).frames()
        assert [decode_code(f) for f in frames] == [0, 17, 39]
        sizes[preset] = path.stat().st_size
    assert sizes["ultrafast"] > sizes["medium"]  # the fastest preset spends more bytes
    with pytest.raises(ValueError, match="preset"):
        VideoWriter(tmp_path / "bad.mp4", fps=10, width=W, height=H, preset="warp")


# Writes a video of 40 moving colour ramps (width, height and x264 params from argv) with
# VideoWriter, and prints the sha256 of its bytes.
_ENCODE = """
import hashlib, sys
import numpy as np
from recallbench.video import VideoWriter
path, w, h, params = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
yy, xx = np.mgrid[0:h, 0:w]
with VideoWriter(path, fps=20, width=w, height=h, x264_params=params) as writer:
    for t in range(40):
        ramp = [(xx * 4 + t * 3) % 256, (yy * 4 + t) % 256, ((xx + yy) * 2 + t * 5) % 256]
        writer.write(np.stack(ramp, -1).astype(np.uint8))
with open(path, "rb") as f:
    print(hashlib.sha256(f.read()).hexdigest())
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="MALLOC_PERTURB_ is glibc's")
@pytest.mark.parametrize(("width", "height", "params"),
                         [(64, 64, ""), (240, 320, FindingDoryKnobs().video_x264_params)])
def test_the_bytes_do_not_depend_on_what_the_heap_held(
    tmp_path: Path, width: int, height: int, params: str
) -> None:
    """x264's AVX-512 macroblock-tree kernel read memory it never wrote at widths off a
    multiple of 128 px (so a video of a suite changed between two runs under load); glibc's
    MALLOC_PERTURB_ fills the heap blocks handed out with a byte of its choice, so a fresh
    process per fill stands for other allocation histories. On the writer before the fix this
    fails every time on a CPU with AVX-512 (both cases here), and cannot fail without it."""
    digests = set()
    for fill in ("0", "1", "77", "200"):
        env = {**os.environ, "MALLOC_PERTURB_": fill}
        proc = subprocess.run(
            [sys.executable, "-c", _ENCODE, str(tmp_path / f"{fill}.mp4"), str(width),
             str(height), params],
            env=env, capture_output=True, text=True, timeout=120, check=True,
        )
        digests.add(proc.stdout.strip())
    assert len(digests) == 1


def test_x264_runs_without_avx512_only_where_its_kernel_misreads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from recallbench.video import writer
    from recallbench.video.writer import X264_CPU_AVX512, repeatable_x264_params

    avx512, avx2 = 0x11F3FF, 0x11F3FF & ~X264_CPU_AVX512  # x264_cpu_detect on a Xeon
    assert repeatable_x264_params(64, "", avx512) == f"asm={avx2}"
    assert repeatable_x264_params(50, "", avx512) == f"asm={avx2}"  # 4 macroblocks, 1 partial
    assert repeatable_x264_params(240, "bframes=0", avx512) == f"asm={avx2}:bframes=0"
    assert repeatable_x264_params(480, "asm=0", avx512) == f"asm={avx2}:asm=0"  # caller's wins
    assert repeatable_x264_params(256, "", avx512) == ""  # SceneMem's views: bytes as before
    assert repeatable_x264_params(384, "bframes=0", avx512) == "bframes=0"
    assert repeatable_x264_params(64, "bframes=0", avx2) == "bframes=0"  # no such kernel
    # where libx264's CPU detection cannot be reached: no macroblock tree on x86, where the
    # kernel exists
    monkeypatch.setattr(writer.platform, "machine", lambda: "x86_64")
    assert repeatable_x264_params(64, "bframes=0", None) == "mbtree=0:bframes=0"
    assert repeatable_x264_params(256, "", None) == ""
    monkeypatch.setattr(writer.platform, "machine", lambda: "arm64")
    assert repeatable_x264_params(64, "", None) == ""
    if sys.platform.startswith("linux"):  # found in /proc/self/maps
        assert isinstance(writer.x264_cpu_flags(), int)
