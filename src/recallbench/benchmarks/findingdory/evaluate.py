"""What a FindingDory agent is asked, and scoring recorded answers.

The offered frames under a budget, the ``FrameQuery`` an agent sees, and per-instance scores of
run-log records. Executing a run (the loop over cases, the run log, the manifest) is the
runner's job: ``recallbench.run.findingdory``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.annotations import EpisodeAnnotations, load_episode
from recallbench.benchmarks.findingdory.data import QACase, Suite
from recallbench.benchmarks.findingdory.metrics import (
    METRICS,
    CaseFacts,
    FindingDoryMetric,
    Scoring,
)
from recallbench.benchmarks.findingdory.protocol import FrameQuery
from recallbench.benchmarks.findingdory.scoring import missing_row, score_case
from recallbench.errors import InputError
from recallbench.video.sampling import subsample_indices


class EpisodeCache:
    """Generated episodes' annotations, loaded once per episode."""

    def __init__(self, suite: Suite) -> None:
        self.suite = suite
        self._cache: dict[str, EpisodeAnnotations | None] = {}

    def get(self, ep_id: str) -> EpisodeAnnotations | None:
        if ep_id not in self._cache:
            d = self.suite.episode_dir(ep_id)
            self._cache[ep_id] = load_episode(d) if self.suite.generated and d.is_dir() else None
        return self._cache[ep_id]


class SourceCache:
    """The last few episodes' frame sources: an episode's ~60 questions share one video, so its
    offered frames are decoded once, not once per question. Bounded to keep memory at a few K
    frames."""

    def __init__(self, size: int = 2) -> None:
        self.size = size
        self._items: OrderedDict[tuple, Any] = OrderedDict()

    def get(self, video: Path, offered: list[int], times: tuple[str, ...] | None) -> Any:
        from recallbench.video.reader import VideoFrames

        key = (str(video), tuple(offered), times)
        if key in self._items:
            self._items.move_to_end(key)
            return self._items[key]
        source = VideoFrames(video, offered, times_of_day=times)
        self._items[key] = source
        while len(self._items) > self.size:
            self._items.popitem(last=False)
        return source


def offered_for(
    case: QACase, budget: int, video: Path | None, episode: EpisodeAnnotations | None
) -> list[int]:
    """Original-frame indices offered under budget K (linspace subsampling).

    Answers written in a K-frame subsampled space (the public file: 96) can only be scored with
    that same K, whether or not the full video is present: refused up front, not after the run.
    """
    if case.answer_frames is not None and budget != case.answer_frames:
        raise InputError(
            "--frames",
            None,
            f"case {case.id}: answers index the {case.answer_frames}-frame subsampled video and "
            f"this suite has no full-video answers; only --frames {case.answer_frames} can be "
            "scored",
        )
    if episode is not None:
        n = episode.num_frames
    elif case.num_frames is not None:
        n = case.num_frames
    elif video is not None:
        from recallbench.video.reader import count_frames

        n = count_frames(video)
    elif case.answer_frames is not None:
        return list(range(budget))  # no video: only the answer's own subsampled space exists
    else:
        raise InputError("--data", f"row {case.id}: video", "no video and no frame count")
    return subsample_indices(n, budget).tolist()


def build_query(
    case: QACase,
    offered: list[int],
    episode: EpisodeAnnotations | None,
    video: Path | None,
    privileged: bool,
) -> FrameQuery:
    times = tuple(episode.times[i] for i in offered) if episode is not None else None
    priv: dict[str, Any] | None = None
    if privileged:
        priv = {"answer": [list(s) for s in case.answer], "answer_frames": case.answer_frames}
        if episode is not None and episode.interactions is not None:
            priv["interactions"] = [list(i) for i in episode.interactions]
    return FrameQuery(
        case_id=case.id,
        instruction=case.question,
        video_path=str(video) if video else None,
        offered_frames=tuple(offered),
        times_of_day=times,
        num_targets=case.num_targets,
        category=case.category,
        template=case.template,
        privileged=priv,
    )


def score_records(
    suite: Suite,
    records: dict[str, dict[str, Any]],
    *,
    scoring: Scoring = "published",
    cases: list[QACase] | None = None,
    subset: bool = False,
    metrics: Sequence[FindingDoryMetric] = METRICS,
) -> list[dict[str, Any]]:
    """Per-instance scores over ``cases`` (default: the whole suite), in suite order.

    A case without a record counts as a failure (failure mode ``missing``), as the official
    pipeline runs every episode; ``subset=True`` scores only the cases that have a record.
    ``metrics`` (the benchmark's declared ones) adds each metric that brings its own code.
    """
    episodes = EpisodeCache(suite)
    with_ll = any("ll" in r for r in records.values())
    coded = [m for m in metrics if m.value is not None]
    rows = []
    for case in suite.cases if cases is None else cases:
        episode = episodes.get(case.ep_id)
        record = records.get(case.id)
        if record is not None:
            row = _score_or_fail(case, record, scoring, episode)
        elif not subset:
            row = missing_row(case, episode=episode, with_ll=with_ll, scoring=scoring)
        else:
            continue
        for metric in coded:
            assert metric.value is not None
            row[metric.name] = metric.value(CaseFacts(case, record, row, episode, scoring))
        rows.append(row)
    return rows


# What a record of the wrong shape (a string where a list belongs, a huge or nested value) raises
# while scoring: that case fails as a response_error, the run is still scored.
MALFORMED = (TypeError, ValueError, KeyError, IndexError, AttributeError, OverflowError,
              RecursionError)


def _score_or_fail(
    case: QACase, record: dict[str, Any], scoring: Scoring, episode: EpisodeAnnotations | None
) -> dict[str, Any]:
    try:
        return score_case(case, record, scoring=scoring, episode=episode)
    except InputError:  # a ValueError too, but the user's (e.g. a frame budget val cannot score)
        raise
    except MALFORMED as exc:
        row = missing_row(case, episode=episode, with_ll="ll" in record)
        row["failure"] = "response_error"
        row["parse_error"] = f"malformed record: {type(exc).__name__}"
        return row
