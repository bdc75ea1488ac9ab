"""Difficulty knobs of a generated FindingDory episode (recorded in every episode's manifest)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES

MIN_INTERACTIONS = 2  # FindingDory's days hold 2 to 11 pick-and-place interactions
MAX_INTERACTIONS = 11


@dataclass(frozen=True)
class FindingDoryKnobs:
    """What makes an episode harder or easier.

    ``interactions``: pick-and-place interactions in the day (2..11), give or take
    ``interactions_spread`` (each episode draws its own count uniformly from that range,
    clipped to 2..11, so days differ in rhythm as the public set's 2..11 do). ``steps``:
    frames in the day (one per robot step, 4000 like the paper; the clock's start, end and
    pace vary per day, see ``findingdory_day.day_clock``).
    ``distractors``: objects on receptacles the robot never touches. ``revisits``: extra visits
    to receptacles already interacted with (more valid frames, more look-alike moments).
    ``rooms``: how many rooms host the interactions (None: any room of the home). ``width`` x
    ``height``: the portrait head-camera frame (480 x 640 like the paper; smaller is faster).
    ``subsample``: frame budget of the subsampled video and its QA rows (96 like the public
    set). ``questions``: instructions per episode, allocated to categories by the public set's
    mix (val has ~59 per episode). ``per_template``: at most this many instructions per
    template. ``video_preset``: the x264 speed preset of the videos, and ``video_x264_params``
    single x264 options on top of it; they move bytes (file size), not results, and are
    recorded with the knobs so a suite's videos are all encoded alike. The default options
    suit a day's video, mostly still or turning: no B-frames and a diamond motion search at
    subpixel level 1 take ~30% less x264 time than veryfast's own for ~3-9% larger files
    (measured on a generated 240x320 day).
    """

    interactions: int = 7  # 7 +- 5 clipped: uniform over 2..11, as in the public set
    interactions_spread: int = 5
    steps: int = 4000
    distractors: int = 8  # homes lined with cabinets and chests spread objects thinner (6 before)
    revisits: int = 1
    rooms: int | None = None
    width: int = 480
    height: int = 640
    subsample: int = DEFAULT_FRAMES
    questions: int = 60
    per_template: int = 2
    fps: int = 10
    video_preset: str = "veryfast"  # video.writer.DEFAULT_PRESET (not imported: PyAV is heavy)
    video_x264_params: str = "bframes=0:me=dia:subme=1"

    def __post_init__(self) -> None:
        if not MIN_INTERACTIONS <= self.interactions <= MAX_INTERACTIONS:
            raise ValueError(
                f"interactions must be in {MIN_INTERACTIONS}..{MAX_INTERACTIONS}, "
                f"got {self.interactions}"
            )
        for name in ("steps", "subsample", "questions", "per_template", "fps"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be >= 1, got {getattr(self, name)}")
        for name in ("distractors", "revisits", "interactions_spread"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.rooms is not None and self.rooms < 1:
            raise ValueError(f"rooms must be >= 1 or None, got {self.rooms}")
        from recallbench.video.writer import PRESETS, check_x264_params

        if self.video_preset not in PRESETS:
            raise ValueError(f"video_preset must be one of {PRESETS}, got {self.video_preset!r}")
        check_x264_params(self.video_x264_params)
        if self.width < 16 or self.height < 16 or self.width % 2 or self.height % 2:
            raise ValueError(f"frame size must be even and >= 16, got {self.width}x{self.height}")

    def for_episode(self, rng: Any) -> FindingDoryKnobs:
        """The knobs of one episode: its own interaction count drawn from the spread."""
        lo = max(MIN_INTERACTIONS, self.interactions - self.interactions_spread)
        hi = min(MAX_INTERACTIONS, self.interactions + self.interactions_spread)
        return replace(self, interactions=int(rng.integers(lo, hi + 1)), interactions_spread=0)

    def longest_hold(self) -> int:
        """Frames a wait may hold one heading (``findingdory_look``): under a stride of the
        offered frames, so no two offered frames of it show the same view."""
        return max(1, (self.steps - 1) // max(1, self.subsample - 1) - 1)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)
