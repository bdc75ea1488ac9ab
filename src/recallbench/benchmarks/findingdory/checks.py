"""Checks of a FindingDory run's inputs before any work, each a ``UsageError`` naming the flag
(as the calling command spells it): the frame budget against the suite, the videos an agent
watches. Light: the command line imports it for every command."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from recallbench.errors import UsageError


def check_frames(frames: int, cases: Iterable[Any], flag: str = "--frames") -> None:
    """K must be >= 1, and equal to the subsampled space of suites whose answers live there
    (the public FindingDory file: K = 96)."""
    if frames < 1:
        raise UsageError(flag, f"must be >= 1, got {frames}")
    cases = list(cases)
    spaces = {c.answer_frames for c in cases if getattr(c, "answer_frames", None) is not None}
    lengths = [c.num_frames for c in cases if getattr(c, "num_frames", None)]
    if not spaces and lengths and len(lengths) == len(cases) and frames > max(lengths):
        # every frame of every video is offered: the run would record a budget nobody had
        raise UsageError(flag, f"{frames} frames, more than any video of this suite has (the "
                               f"longest: {max(lengths)}): use {flag} {max(lengths)} or less")
    bad = sorted(k for k in spaces if k != frames)
    if bad:
        raise UsageError(flag, f"this suite's answers index the {bad[0]}-frame subsampled video "
                               f"and it has no full-video answers: use {flag} {bad[0]}")


def check_videos(agent_name: str, agent: Any, suite: Any, cases: Any,
                 videos_dir: Any = None, flag: str = "--videos") -> None:
    """An agent that watches the videos (``watches_video``) needs every case's video on disk;
    without them each case would fail, one by one, after the run started."""
    if not getattr(agent, "watches_video", False):
        return
    from recallbench.benchmarks.findingdory.data import resolve_video

    cases = list(cases)
    missing = [c for c in cases if resolve_video(suite, c, videos_dir) is None]
    if missing:
        where = videos_dir or suite.root
        raise UsageError(flag, f"agent {agent_name!r} watches the videos, but "
                               f"{len(missing)} of {len(cases)} are not found (first: "
                               f"{missing[0].video!r} under {where}): pass {flag} DIR")
