"""Run a frame-selection agent over a FindingDory suite, and score runs from their records.

Layout of a run directory: ``manifest.json`` (settings that move the numbers), ``records.jsonl``
(one run-log record per case: what the agent answered, never a score) and ``summary.json``
(written by ``recallbench.report.runs.score_run``). A frame-budget sweep writes one such
directory per K under ``RUN/K<k>/``.
"""

from __future__ import annotations

import json
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from recallbench.agents.base import FrameAnswer, FrameQuery
from recallbench.benchmarks.findingdory.annotations import EpisodeAnnotations, load_episode
from recallbench.benchmarks.findingdory.data import QACase, Suite, resolve_video
from recallbench.benchmarks.findingdory.metrics import Scoring
from recallbench.benchmarks.findingdory.scoring import score_case
from recallbench.errors import InputError
from recallbench.run.manifest import build_manifest, read_manifest, write_manifest
from recallbench.run.runlog import RunLog, completed
from recallbench.video.sampling import subsample_indices

RECORDS = "records.jsonl"


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


def _answer_record(answer: Any) -> dict[str, Any]:
    if not isinstance(answer, FrameAnswer):
        raise TypeError(f"agent returned {type(answer).__name__}, expected FrameAnswer")
    fi = answer.frame_indices
    if fi is not None:
        fi = list(fi)
        if not all(isinstance(i, int) and not isinstance(i, bool) for i in fi):
            # Keep what was said, but as a response for the parser to reject (never coerce).
            return {"frame_indices": None, "response": repr(fi), "info": answer.info}
    response = answer.response if isinstance(answer.response, str) else None
    return {"frame_indices": fi, "response": response, "info": _loggable(answer.info)}


def _loggable(info: Any) -> dict[str, Any]:
    # The run log is strict JSON (no NaN); an agent's odd info must not crash the whole run.
    try:
        json.dumps(info, allow_nan=False, default=lambda v: v.tolist())
        return dict(info)
    except (TypeError, ValueError, AttributeError):
        return {"unloggable_info": repr(info)[:2000]}


def run_cases(
    suite: Suite,
    agent: Any,
    *,
    budget: int,
    run_dir: Path,
    limit: int | None = None,
    resume: bool = False,
    videos_dir: Path | None = None,
    progress: Callable[[Iterable[QACase], int], Iterable[QACase]] | None = None,
) -> Path:
    """Ask the agent about every case not yet recorded; append one record per case."""
    log_path = run_dir / RECORDS
    if log_path.exists() and not resume:
        raise InputError(log_path, None, "run already has records; pass --resume to finish it")
    done = completed(log_path) if resume else {}
    cases = list(suite.cases[:limit] if limit else suite.cases)
    todo = [c for c in cases if c.id not in done]
    episodes = EpisodeCache(suite)
    privileged = bool(getattr(agent, "privileged", False))
    sources = SourceCache()
    with RunLog(log_path) as log:
        iterator = progress(todo, len(todo)) if progress else todo
        for case in iterator:
            episode = episodes.get(case.ep_id)
            video = resolve_video(suite, case, videos_dir)
            offered = offered_for(case, budget, video, episode)
            query = build_query(case, offered, episode, video, privileged)
            frames = sources.get(video, offered, query.times_of_day) if video else None
            record: dict[str, Any] = {"key": case.id, "offered_frames": offered}
            t0 = time.perf_counter()
            try:
                record.update(_answer_record(agent.select_frames(query, frames)))
            except Exception as exc:  # an agent failure fails this case only
                record.update(frame_indices=None, response=None, agent_error=repr(exc)[:2000])
            record["seconds"] = round(time.perf_counter() - t0, 6)
            log.append(record)
    return log_path


def score_records(
    suite: Suite, records: dict[str, dict[str, Any]], *, scoring: Scoring = "published"
) -> list[dict[str, Any]]:
    """Per-instance scores for every case that has a record (suite order)."""
    episodes = EpisodeCache(suite)
    return [
        score_case(case, records[case.id], scoring=scoring, episode=episodes.get(case.ep_id))
        for case in suite.cases
        if case.id in records
    ]


def start_run(run_dir: Path, **settings: Any) -> dict[str, Any]:
    """Write the manifest (or check it matches on resume)."""
    manifest_path = run_dir / "manifest.json"
    if manifest_path.exists():
        old = read_manifest(run_dir)
        for key in ("data_sha256", "agent", "frames", "seed"):
            if key in settings and old.get(key) != settings[key]:
                raise InputError(
                    manifest_path,
                    key,
                    f"resume with {settings[key]!r} but run has {old.get(key)!r}",
                )
        return old
    manifest = build_manifest(**settings)
    write_manifest(run_dir, manifest)
    return manifest
