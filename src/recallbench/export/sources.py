"""What an export reads of a suite, held to the rules the runs hold a suite to: every file of a
day is a regular file inside the suite (a symlink out of it, a FIFO or a device is refused), and
every video is within the resolution cap (``video.reader.check_resolution``), checked from its
header before any work and again when it is decoded (the file may change in between).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import av
import numpy as np

from recallbench.errors import InputError
from recallbench.video.reader import VideoTooLarge, check_resolution

SUITE_FILES = ("suite.json", "qa.json")  # read beside the days


def day_folder(suite: Path, day: str) -> Path:
    """A day's folder: a FindingDory episode's (``episodes/<day>``) or a SceneMem scenario's."""
    episode = suite / "episodes" / day
    return episode if episode.is_dir() else suite / day


def _inside(path: Path, root: Path) -> Path:
    real = path.resolve()
    if not real.is_relative_to(root):
        raise InputError(path, None, "resolves outside the suite folder (a symlink?): an export "
                         "reads only the suite's own files")
    return real


def check_file(path: Path, root: Path) -> None:
    """``path`` is a regular file inside ``root`` (the resolved suite folder)."""
    real = _inside(path, root)
    try:
        mode = os.stat(real).st_mode
    except OSError:
        raise InputError(path, None, "file is missing (a dangling symlink?)") from None
    if not stat.S_ISREG(mode):
        raise InputError(path, None, "is not a regular file")


def check_video_header(path: Path) -> None:
    """The resolution cap, from the header alone; a file PyAV cannot open is left to the day
    that decodes it (its error, counted), not refused here."""
    try:
        with av.open(str(path)) as container:
            if container.streams.video:
                check_resolution(path, container.streams.video[0])
    except VideoTooLarge as exc:
        raise InputError(path, None, str(exc).removeprefix(f"{path}: ")) from None
    except (av.FFmpegError, OSError, ValueError, EOFError):
        return


def check_day(suite: Path, day: str) -> None:
    """Every file and folder under the day's folder (symlinked folders followed, each once)
    stays inside the suite; files are regular; videos are within the cap."""
    root = suite.resolve()
    seen: set[Path] = set()
    stack = [day_folder(suite, day)]
    while stack:
        folder = stack.pop()
        real = _inside(folder, root)
        if real in seen:
            continue
        seen.add(real)
        for entry in sorted(os.scandir(folder), key=lambda e: e.name):
            path = Path(entry.path)
            if entry.is_dir():  # follows a symlink: its target is checked like any folder
                stack.append(path)
                continue
            check_file(path, root)
            if path.suffix == ".mp4":
                check_video_header(path)


def check_suite_files(suite: Path, days: list[str]) -> None:
    """Before any work: the suite's own files and every day's, as ``check_day``."""
    root = suite.resolve()
    for name in SUITE_FILES:
        if (suite / name).exists() or (suite / name).is_symlink():
            check_file(suite / name, root)
    for day in days:
        check_day(suite, day)


def frames(path: Path) -> Iterator[np.ndarray]:
    """A video's frames as RGB arrays, one at a time, once its header passed the cap."""
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        check_resolution(path, stream)  # the file may have changed since the check before work
        for frame in container.decode(stream):
            yield frame.to_ndarray(format="rgb24")
