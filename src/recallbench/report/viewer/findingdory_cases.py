"""FindingDory cases of one run folder, as the viewer shows them.

Each case gives an index row (what the case browser filters and searches) and a detail (what
its page draws): the question, the offered frames with the valid and the chosen ones marked,
thumbnails of each chosen frame beside the nearest valid one, the failure mode, the agent's
transcript (response, prompt hash, latency, tokens) and, with generated episodes, the robot's
recorded path with the chosen and valid frames' poses. Scores come from the benchmark's own
scorer (``score_records``), never recomputed here.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.data import QACase, Suite, load_suite, resolve_video
from recallbench.benchmarks.findingdory.evaluate import MALFORMED, EpisodeCache, score_records
from recallbench.benchmarks.findingdory.metrics import FindingDoryMetric
from recallbench.benchmarks.findingdory.scoring import resolve_positions
from recallbench.benchmarks.registry import get_benchmark
from recallbench.report.viewer.sheets import episode_sheets
from recallbench.report.viewer.thumbs import Thumbnailer
from recallbench.run.manifest import read_manifest
from recallbench.run.runlog import RUN_LOG, completed

PATH_POINTS = 300  # the episode's path is thinned to this many poses for the map
TRANSCRIPT_KEYS = ("model", "prompt_sha256", "latency_s", "prompt_tokens", "completion_tokens",
                   "total_tokens", "attempts", "cache_hit", "failure_mode", "chain_of_thought",
                   "num_images")

# The answered positions a case page draws (with their thumbnail pairs and poses): an answer
# holds at most MAX_FRAME_INDICES since recording caps it, but an older or edited record may
# hold any number, and each drawn position costs the build time and the page's size.
SHOWN_CHOSEN = 100

_suites: dict[str, Suite] = {}


def cached_suite(path: str) -> Suite:
    """One load per suite file per process (a comparison's runs share it; --serve reloads)."""
    if path not in _suites:
        _suites[path] = load_suite(path)
    return _suites[path]


def _valid_frames(case: QACase) -> set[int]:
    return {int(f) for goal in case.answer for f in goal if int(f) >= 0}


def _nearest(frame: int, valid: list[int]) -> int | None:
    """The valid frame closest to ``frame`` (the earlier one on a tie); ``valid`` is sorted."""
    if not valid:
        return None
    i = bisect.bisect_left(valid, frame)
    near = [v for v in valid[max(0, i - 1):i + 1]]
    return min(near, key=lambda v: (abs(v - frame), v))


def episode_path(episode: Any) -> list[list[float]]:
    """The robot's recorded path in the video, thinned for the map (one per episode)."""
    pose = episode.pose
    step = max(1, len(pose) // PATH_POINTS)
    return [[round(float(x), 2), round(float(y), 2)] for x, y, _ in pose[::step]]


def _map(episode: Any, chosen: list[int], valid_offered: list[int]) -> dict:
    pose = episode.pose

    def at(frames: list[int]) -> list[list[float]]:
        return [[round(float(pose[f][0]), 2), round(float(pose[f][1]), 2)]
                for f in frames if 0 <= f < len(pose)]

    return {"chosen": at(chosen), "valid": at(valid_offered), "start": at([len(pose) - 1])}


def path_name(suite_key: str, ep_id: str) -> str:
    """The data file holding an episode's path (file-name safe, unique per suite)."""
    return f"path-{suite_key}-" + re.sub(r"[^A-Za-z0-9_.-]+", "_", ep_id)


def case_detail(case: QACase, record: dict[str, Any], scored: dict[str, Any], video: Path | None,
                episode: Any, thumbs: Thumbnailer, suite_key: str,
                metrics: Sequence[str]) -> dict[str, Any]:
    offered = [int(f) for f in record.get("offered_frames") or []]
    in_answer_space = case.answer_frames is not None  # answers index positions, not frames
    valid = _valid_frames(case)
    valid_sorted = sorted(valid)
    positions, _ = resolve_positions(record)
    answered = [p for p in positions or [] if isinstance(p, int)]
    chosen = answered[:SHOWN_CHOSEN]  # a record from before the cap may hold a million

    def original(p: int) -> int | None:
        return offered[p] if 0 <= p < len(offered) else None

    valid_pos = [p for p, f in enumerate(offered) if (p if in_answer_space else f) in valid]
    pairs = []
    for p in chosen:
        frame = original(p)
        key = p if in_answer_space else frame
        near = _nearest(key, valid_sorted) if key is not None else None
        near_frame = (original(near) if in_answer_space else near) if near is not None else None
        pairs.append({
            "position": p, "frame": frame, "valid": key in valid,
            "thumb": thumbs.url(video, frame) if frame is not None else None,
            "nearest": near_frame,
            "nearest_thumb": thumbs.url(video, near_frame) if near_frame is not None else None,
        })
    info = record.get("info") or {}
    detail: dict[str, Any] = {
        "question": case.question, "template": case.template, "ordered": case.ordered,
        "answer": [list(g)[:50] for g in case.answer], "answer_frames": case.answer_frames,
        "offered": offered, "valid_positions": valid_pos, "chosen": chosen,
        "chosen_total": len(answered),
        "strip": thumbs.want(video, offered),  # thumbnail folder: strip + f"{frame}.jpg"
        "pairs": pairs, "video": str(video) if video else None,
        "failure": scored.get("failure"), "parse_error": scored.get("parse_error"),
        "metrics": {k: scored.get(k) for k in metrics},
        "transcript": {
            "response": record.get("response"),
            "agent_error": record.get("agent_error"),
            "seconds": record.get("seconds"),
            **{k: info[k] for k in TRANSCRIPT_KEYS if k in info},
        },
        "ll": record.get("ll"), "ll_failure": scored.get("ll_failure"),
    }
    if episode is not None:
        detail["map"] = _map(episode, [f for f in map(original, chosen) if f is not None],
                             [offered[p] for p in valid_pos])
        detail["map"]["path"] = path_name(suite_key, case.ep_id)  # one file per episode
    return detail


def _malformed_detail(case: QACase, scored: dict[str, Any], exc: Exception,
                      metrics: Sequence[str]) -> dict[str, Any]:
    return {
        "question": case.question, "template": case.template, "ordered": case.ordered,
        "answer": [list(g)[:50] for g in case.answer], "answer_frames": case.answer_frames,
        "offered": [], "valid_positions": [], "chosen": [], "strip": None, "pairs": [],
        "video": None, "failure": "response_error",
        "parse_error": f"malformed record: {type(exc).__name__}",
        "metrics": {k: scored.get(k) for k in metrics},
        "transcript": {}, "ll": None, "ll_failure": scored.get("ll_failure"),
    }


def run_cases(run_dir: Path, agent: str, thumbs: Thumbnailer,
              shared: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(index row, detail) for every recorded case of a FindingDory run, in suite order;
    ``shared`` receives the data several cases point to (each episode's path, once)."""
    manifest = read_manifest(run_dir)
    suite = cached_suite(str(manifest["data"]))
    scoring = manifest.get("scoring") or "published"
    records = completed(run_dir / RUN_LOG)
    declared = get_benchmark(manifest.get("benchmark"), run_dir / "manifest.json").metrics
    metrics = [m.name for m in declared]
    scored = {r["id"]: r for r in score_records(
        suite, records, scoring=scoring,  # type: ignore[arg-type]
        metrics=[m for m in declared if isinstance(m, FindingDoryMetric)])}
    episodes = EpisodeCache(suite)
    videos_dir = manifest.get("videos")
    suite_key = hashlib.sha1(str(suite.path).encode()).hexdigest()[:8]
    frames = sorted({c.num_frames for c in suite.cases if c.num_frames})
    shared.setdefault("_facts", {})["findingdory"] = {
        "questions": len(suite.cases), "episodes": len({c.ep_id for c in suite.cases}),
        "frames per video": f"{frames[0]}-{frames[-1]}" if frames else "unknown",
        "offered frames K": manifest.get("frames"), "scoring": scoring,
        "generated (annotated)": suite.generated}
    for case in suite.cases:
        if case.id not in records:
            continue
        row = scored[case.id]
        video = resolve_video(suite, case, videos_dir)
        episode = episodes.get(case.ep_id)
        name = path_name(suite_key, case.ep_id)
        if episode is not None and name not in shared:
            shared[name] = episode_path(episode)
        try:
            detail = case_detail(case, records[case.id], row, video, episode, thumbs,
                                 suite_key, metrics)
        except MALFORMED as exc:  # a hand-edited or planted record: this case's page says so
            row = {**row, "failure": "response_error"}
            detail = _malformed_detail(case, row, exc, metrics)
        detail["sheets"] = episode_sheets(suite, case.ep_id, thumbs)  # the day's contact sheets
        yield {
            "bench": "findingdory", "agent": agent, "id": case.id,
            "category": case.category, "group": case.group, "kind": case.template,
            "success": bool(row.get("hl_sr")), "failure": row.get("failure") or "",
            "text": case.question,
        }, detail
