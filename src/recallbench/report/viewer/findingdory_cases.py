"""FindingDory cases of one run folder, as the viewer shows them.

Each case gives an index row (what the case browser filters and searches) and a detail (what
its page draws): the question, the offered frames with the valid and the chosen ones marked,
thumbnails of each chosen frame beside the nearest valid one, the failure mode, the agent's
transcript (response, prompt hash, latency, tokens) and, with generated episodes, the robot's
recorded path with the chosen and valid frames' poses. Scores come from the benchmark's own
scorer (``score_records``), never recomputed here.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.data import QACase, Suite, load_suite, resolve_video
from recallbench.benchmarks.findingdory.evaluate import EpisodeCache, score_records
from recallbench.benchmarks.findingdory.scoring import resolve_positions
from recallbench.report.viewer.thumbs import Thumbnailer
from recallbench.run.manifest import read_manifest
from recallbench.run.runlog import completed

PATH_POINTS = 300  # the episode's path is thinned to this many poses for the map
TRANSCRIPT_KEYS = ("model", "prompt_sha256", "latency_s", "prompt_tokens", "completion_tokens",
                   "total_tokens", "attempts", "cache_hit", "failure_mode", "chain_of_thought",
                   "num_images")

_suites: dict[str, Suite] = {}


def cached_suite(path: str) -> Suite:
    """One load per suite file per process (a comparison's runs share it; --serve reloads)."""
    if path not in _suites:
        _suites[path] = load_suite(path)
    return _suites[path]


def _valid_frames(case: QACase) -> set[int]:
    return {int(f) for goal in case.answer for f in goal if int(f) >= 0}


def _nearest(frame: int, valid: set[int]) -> int | None:
    return min(valid, key=lambda v: (abs(v - frame), v)) if valid else None


def _map(episode: Any, offered: list[int], chosen: list[int], valid_offered: list[int]) -> dict:
    pose = episode.pose
    step = max(1, len(pose) // PATH_POINTS)
    path = [[round(float(x), 2), round(float(y), 2)] for x, y, _ in pose[::step]]

    def at(frames: list[int]) -> list[list[float]]:
        return [[round(float(pose[f][0]), 2), round(float(pose[f][1]), 2)]
                for f in frames if 0 <= f < len(pose)]

    return {"path": path, "chosen": at(chosen), "valid": at(valid_offered),
            "start": at([len(pose) - 1])}


def case_detail(case: QACase, record: dict[str, Any], scored: dict[str, Any], video: Path | None,
                episode: Any, thumbs: Thumbnailer) -> dict[str, Any]:
    offered = [int(f) for f in record.get("offered_frames") or []]
    in_answer_space = case.answer_frames is not None  # answers index positions, not frames
    valid = _valid_frames(case)
    positions, _ = resolve_positions(record)
    chosen = [p for p in positions or [] if isinstance(p, int)]

    def original(p: int) -> int | None:
        return offered[p] if 0 <= p < len(offered) else None

    valid_pos = [p for p, f in enumerate(offered) if (p if in_answer_space else f) in valid]
    pairs = []
    for p in chosen:
        frame = original(p)
        key = p if in_answer_space else frame
        near = _nearest(key, valid) if key is not None else None
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
        "strip": [thumbs.url(video, f) for f in offered] if video else None,
        "pairs": pairs, "video": str(video) if video else None,
        "failure": scored.get("failure"), "parse_error": scored.get("parse_error"),
        "metrics": {k: scored.get(k) for k in ("hl_sr", "dtg_sr", "sc_sr", "hl_spl", "ll_sr",
                                               "ll_spl", "exact_acc", "relaxed_acc")},
        "transcript": {
            "response": record.get("response"),
            "agent_error": record.get("agent_error"),
            "seconds": record.get("seconds"),
            **{k: info[k] for k in TRANSCRIPT_KEYS if k in info},
        },
        "ll": record.get("ll"), "ll_failure": scored.get("ll_failure"),
    }
    if episode is not None:
        detail["map"] = _map(episode, offered, [f for f in map(original, chosen) if f is not None],
                             [offered[p] for p in valid_pos])
    return detail


def run_cases(run_dir: Path, agent: str,
              thumbs: Thumbnailer) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(index row, detail) for every recorded case of a FindingDory run, in suite order."""
    manifest = read_manifest(run_dir)
    suite = cached_suite(str(manifest["data"]))
    scoring = manifest.get("scoring") or "published"
    from recallbench.run.findingdory import RECORDS

    records = completed(run_dir / RECORDS)
    scored = {r["id"]: r for r in score_records(suite, records, scoring=scoring)}
    episodes = EpisodeCache(suite)
    videos_dir = manifest.get("videos")
    for case in suite.cases:
        if case.id not in records:
            continue
        row = scored[case.id]
        video = resolve_video(suite, case, videos_dir)
        detail = case_detail(case, records[case.id], row, video, episodes.get(case.ep_id), thumbs)
        yield {
            "bench": "findingdory", "agent": agent, "id": case.id,
            "category": case.category, "group": case.group, "kind": case.template,
            "success": bool(row.get("hl_sr")), "failure": row.get("failure") or "",
            "text": case.question,
        }, detail
