"""LeRobot's streaming video encoder, as the export uses it: frames wait for the encoder instead
of being dropped, and each episode's image stats are computed the way LeRobot's ordinary
(PNG) path computes them, on a sample of the episode's frames.

LeRobot's streaming encoder computes its stats inside each camera's encoder thread over every
frame (``RunningQuantileStats`` on each): 9.6 s of a 1,500-frame day's ~25, and numbers that
differ from what the ordinary path (and this export before it streamed) writes to
``meta/stats.json``. Here the encoder threads skip that, and ``finish_episode`` hands
``save_episode`` the stats of LeRobot's own sample (``sample_indices``: ~177 of 1,000 frames,
``auto_downsample_height_width``, ``get_feature_stats`` over (frame, height, width)) of the frames
it was fed: what ``compute_episode_stats`` computes on the PNGs of the same frames.
"""

from __future__ import annotations

import functools
import queue
import threading
import weakref
from typing import Any

import numpy as np

# encoder threads whose per-frame stats are skipped (this module's encoders' threads only)
_SKIPPED: weakref.WeakSet[threading.Thread] = weakref.WeakSet()


@functools.cache
def _skip_stats_in_our_threads() -> None:
    """LeRobot's encoder thread takes its tracker class from ``compute_stats`` when it starts:
    put there a subclass that does nothing in the threads this module started and is LeRobot's
    own everywhere else (``get_feature_stats`` uses it too)."""
    from lerobot.datasets import compute_stats

    base = compute_stats.RunningQuantileStats

    class PerThreadStats(base):  # type: ignore[misc, valid-type]
        def update(self, batch: np.ndarray) -> None:
            if threading.current_thread() not in _SKIPPED:
                super().update(batch)

        def get_statistics(self) -> dict[str, np.ndarray]:
            if threading.current_thread() in _SKIPPED:
                return {}  # replaced by finish_episode
            return dict(super().get_statistics())

    compute_stats.RunningQuantileStats = PerThreadStats


def sampled_stats(frames: list[np.ndarray]) -> dict[str, np.ndarray]:
    """Stats of the episode's (sampled, downsampled, CHW uint8) frames as the encoder thread
    reports them (per channel, 0..255): ``save_episode`` scales them to [0, 1] and (C, 1, 1)."""
    from lerobot.datasets.compute_stats import get_feature_stats

    return dict(get_feature_stats(np.stack(frames), axis=(0, 2, 3), keepdims=False))


@functools.cache
def encoder_class() -> type:
    from lerobot.datasets.compute_stats import auto_downsample_height_width, sample_indices
    from lerobot.datasets.video_utils import StreamingVideoEncoder

    _skip_stats_in_our_threads()

    class ExportEncoder(StreamingVideoEncoder):  # type: ignore[misc]
        """``expect(n)`` before an episode's frames keeps only LeRobot's sample of them;
        without it (a rollout of unknown length) every frame is kept and sampled at the end."""

        _length: int | None = None

        def expect(self, n: int) -> None:
            self._length = n

        def start_episode(self, video_keys: list[str], temp_dir: Any) -> None:
            super().start_episode(video_keys, temp_dir)
            _SKIPPED.update(self._threads.values())
            keep = sample_indices(self._length) if self._length else None
            self._keep = None if keep is None else set(keep)
            self._fed = dict.fromkeys(video_keys, 0)
            self._sample: dict[str, list[np.ndarray]] = {k: [] for k in video_keys}

        def feed_frame(self, video_key: str, image: np.ndarray) -> None:
            i = self._fed[video_key]
            self._fed[video_key] = i + 1
            if self._keep is None or i in self._keep:
                small = auto_downsample_height_width(image.transpose(2, 0, 1))
                self._sample[video_key].append(np.ascontiguousarray(small, dtype=np.uint8))
            frames = self._frame_queues[video_key]
            # LeRobot's drops the frame after 0.1 s (made for live capture, where the robot
            # cannot wait), which in an export would leave a video shorter than its rows
            while self._threads[video_key].is_alive():
                try:
                    frames.put(image.copy(), timeout=1.0)
                    return
                except queue.Full:
                    continue
            super().feed_frame(video_key, image)  # raises with the encoder thread's error

        def finish_episode(self) -> dict[str, tuple[Any, dict[str, Any] | None]]:
            results = dict(super().finish_episode())
            for key, (path, _) in results.items():
                sample = self._sample[key]
                if self._keep is None:
                    sample = [sample[i] for i in sample_indices(len(sample))]
                results[key] = (path, sampled_stats(sample) if sample else None)
            self._length = None
            return results

        def cancel_episode(self) -> None:
            super().cancel_episode()
            self._length = None

    return ExportEncoder
