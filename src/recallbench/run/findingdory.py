"""The FindingDory runner: ask an agent about every case, then (``--ll``) act its choices out.

Layout of a run directory: ``manifest.json`` (settings that move the numbers), ``runlog.jsonl``
(one run-log record per case: what the agent answered, never a score; the LL phase appends the
same record plus ``ll``, and later records win) and ``summary.json`` (written by
``recallbench.report.runs.score_run``). A frame-budget sweep writes one such directory per K
under ``RUN/K<k>/``. A crash loses at most the case in flight; ``resume`` finishes the rest.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from recallbench.agents.base import FrameAnswer, TransientError
from recallbench.agents.ll_policies import LowLevelPolicy
from recallbench.benchmarks.findingdory.data import QACase, Suite, resolve_video
from recallbench.benchmarks.findingdory.evaluate import (
    EpisodeCache,
    SourceCache,
    build_query,
    offered_for,
)
from recallbench.benchmarks.findingdory.ll import MAX_STEPS
from recallbench.benchmarks.findingdory.ll_rollout import LLPhase
from recallbench.benchmarks.findingdory.metrics import Scoring
from recallbench.errors import InputError
from recallbench.run.lock import run_folder_lock
from recallbench.run.manifest import build_manifest, read_manifest, write_manifest
from recallbench.run.runlog import RunLog, completed

RECORDS = "runlog.jsonl"


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
    with run_folder_lock(run_dir):
        left = _ask_agent(suite, agent, budget, log_path, limit, resume, videos_dir, progress)
    if left:
        raise TransientCases(left)
    return log_path


class TransientCases(Exception):
    """Some cases got no answer for reasons that may pass; the others are recorded."""

    def __init__(self, counts: dict[str, int]) -> None:
        self.counts = counts
        kinds = ", ".join(f"{n} {kind}" for kind, n in sorted(counts.items()))
        super().__init__(
            f"{sum(counts.values())} case(s) not answered ({kinds}); nothing was recorded for "
            "them: --resume asks again"
        )


def _ask_agent(
    suite: Suite,
    agent: Any,
    budget: int,
    log_path: Path,
    limit: int | None,
    resume: bool,
    videos_dir: Path | None,
    progress: Callable[[Iterable[QACase], int], Iterable[QACase]] | None,
) -> dict[str, int]:
    done = completed(log_path) if resume else {}
    left: dict[str, int] = {}
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
            except TransientError as exc:  # not an answer: left unrecorded for --resume
                left[exc.kind] = left.get(exc.kind, 0) + 1
                continue
            except InputError:  # the run cannot go on (e.g. the model server is unreachable)
                raise
            except Exception as exc:  # an agent failure fails this case only
                record.update(frame_indices=None, response=None, agent_error=repr(exc)[:2000])
            record["seconds"] = round(time.perf_counter() - t0, 6)
            log.append(record)
    return left


def agent_manifest(agent: Any) -> dict[str, Any] | None:
    """What the agent says moves its answers (model id, prompt hash, settings), or None."""
    describe = getattr(agent, "manifest", None)
    return describe() if callable(describe) else None


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


def run_ll(
    suite: Suite,
    run_dir: Path,
    policy: LowLevelPolicy,
    *,
    scoring: Scoring = "published",
    limit: int | None = None,
    max_steps: int = MAX_STEPS,
    progress: Callable[[Iterable[str], int], Iterable[str]] | None = None,
) -> Path:
    """Add an ``ll`` outcome to every recorded case that lacks one (episode by episode)."""
    phase = LLPhase(suite, policy, scoring=scoring, max_steps=max_steps)
    log_path = run_dir / RECORDS
    records = completed(log_path)
    cases = list(suite.cases[:limit] if limit else suite.cases)
    by_episode: dict[str, list[tuple[QACase, dict[str, Any]]]] = {}
    for case in cases:
        rec = records.get(case.id)
        if rec is not None and "ll" not in rec and case.subgoals is not None:
            by_episode.setdefault(case.ep_id, []).append((case, rec))
    try:
        with run_folder_lock(run_dir), RunLog(log_path) as log:
            eps = list(by_episode)
            for ep_id in progress(eps, len(eps)) if progress else eps:
                for rec in phase.run_episode(ep_id, by_episode[ep_id]):
                    log.append(rec)
    finally:
        phase.worlds.close()
    return log_path
