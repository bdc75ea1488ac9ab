"""SceneMem tests of one run folder, as the viewer shows them.

A test's page shows the instruction, the three camera videos as strips of frames at the
subtask boundaries (``videos/subtasks.json``; the frame where the probed object was placed is
added and marked), the outcome and failure reason, and, from the rollout's per-step trace (run
format addition ``trace`` version 1, ``benchmarks.scenemem.trace``), a top-down map of the
trajectory with the target fixture and the fixture the agent chose, and distance and |qpos| over
time against the thresholds. Older runs have no trace: their pages show the recorded minimum
distance and maximum |qpos| only.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from recallbench.benchmarks.scenemem.defaults import DEFAULT_MAX_STEPS
from recallbench.benchmarks.scenemem.metrics import case_values
from recallbench.benchmarks.scenemem.openings import primary_metric
from recallbench.benchmarks.scenemem.seam import clean_record
from recallbench.benchmarks.scenemem.spec import VIDEO_NAMES, Scenario, load_scenario
from recallbench.report.viewer.thumbs import Thumbnailer
from recallbench.run.manifest import read_manifest
from recallbench.run.runlog import RUN_LOG, completed

MAX_STRIP = 12  # frames per camera strip


def _subtasks(scenario: Scenario) -> dict[str, Any]:
    path = scenario.root / "videos" / "subtasks.json"
    try:
        data = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {}
    return data if isinstance(data, dict) else {"tasks": data}


def _strip_frames(subtasks: dict[str, Any], placed: int | None) -> list[dict[str, Any]]:
    """Boundary frames (each subtask's start, the last one's end) plus the placement frame."""
    marks: dict[int, dict[str, Any]] = {}
    for task in subtasks.get("tasks") or []:
        if not isinstance(task, dict) or not isinstance(task.get("start_frame"), int):
            continue
        marks.setdefault(task["start_frame"], {"frame": task["start_frame"],
                                               "label": f"start of {task.get('index', '?')}: "
                                                        f"{task.get('instruction', '')}"})
        end = task.get("end_frame")
        if isinstance(end, int) and end > 0:
            marks.setdefault(end - 1, {"frame": end - 1, "label": f"end of {task.get('index')}"})
    if placed is not None:
        marks[placed] = {"frame": placed, "label": "target placed", "placed": True}
    frames = sorted(marks.values(), key=lambda m: m["frame"])
    if len(frames) > MAX_STRIP:  # keep the placement, thin the rest evenly
        step = len(frames) / MAX_STRIP
        keep = {int(i * step) for i in range(MAX_STRIP)}
        frames = [m for i, m in enumerate(frames) if i in keep or m.get("placed")]
    return frames


def _placed_frame(test: Any, subtasks: dict[str, Any]) -> int | None:
    extra = test.model_extra or {}
    if isinstance(extra.get("placed_frame"), int):
        return extra["placed_frame"]
    for task in subtasks.get("tasks") or []:
        if isinstance(task, dict) and task.get("object") == test.object and \
                isinstance(task.get("placed_frame"), int):
            return task["placed_frame"]
    return None


class ScenarioCache:
    """Scenario folders and their camera strips, built once per scenario for every test."""

    def __init__(self, thumbs: Thumbnailer) -> None:
        self.thumbs = thumbs
        self._scenarios: dict[str, Scenario | None] = {}
        self._subtasks: dict[str, dict[str, Any]] = {}

    def scenario(self, root: Path) -> Scenario | None:
        key = str(root)
        if key not in self._scenarios:
            try:
                self._scenarios[key] = load_scenario(root)
                self._subtasks[key] = _subtasks(self._scenarios[key])  # type: ignore[arg-type]
            except Exception:  # moved or broken since the run: the page shows the record only
                self._scenarios[key] = None
        return self._scenarios[key]

    def _even_frames(self, video: Path) -> list[dict[str, Any]]:
        from recallbench.video.reader import count_frames

        try:
            n = count_frames(video)
        except Exception:
            return []
        picks = sorted({round(i * (n - 1) / (MAX_STRIP // 2 - 1)) for i in range(MAX_STRIP // 2)})
        return [{"frame": f, "label": f"frame {f} (no subtask boundaries recorded)"}
                for f in picks if n > 0]

    def strips(self, scenario: Scenario, test: Any) -> list[dict[str, Any]]:
        subtasks = self._subtasks.get(str(scenario.root), {})
        frames = _strip_frames(subtasks, _placed_frame(test, subtasks))
        videos = [scenario.root / "videos" / name for name in VIDEO_NAMES]
        if not frames:  # no subtask segments recorded: evenly spaced frames instead
            frames = self._even_frames(videos[0])
        return [{"camera": v.stem, "frames": [
            {**m, "thumb": self.thumbs.url(v, m["frame"])} for m in frames]} for v in videos]


def test_detail(record: dict[str, Any], scenario: Scenario | None, cache: ScenarioCache,
                thresholds: dict[str, Any]) -> dict[str, Any]:
    detail: dict[str, Any] = {
        key: record.get(key) for key in ("task", "fixture", "fixture_type", "steps", "max_steps",
                                         "min_distance", "max_abs_qpos", "failed", "error",
                                         "restore_distance", "policy_info", "seed", "wall_time")
    }
    detail["thresholds"] = thresholds
    detail["metrics"] = case_values(record)
    detail["trace"] = record.get("trace")  # absent in runs recorded before trace version 1
    detail["chosen_fixture"] = (record.get("policy_info") or {}).get("fixture")
    if scenario is not None:
        try:
            test = scenario.test(record["test_id"])
        except KeyError:
            return detail
        detail["instruction"] = test.instruction
        detail["object"] = test.object
        detail["strips"] = cache.strips(scenario, test)
    return detail


def run_cases(run_dir: Path, agent: str, thumbs: Thumbnailer,
              shared: dict[str, Any]) -> Iterator[tuple[dict[str, Any], dict[str, Any]]]:
    """(index row, detail) for every recorded test of a SceneMem run, in key order."""
    manifest = read_manifest(run_dir)
    config = manifest.get("config") or {}
    data_dir = Path(config.get("data_dir") or ".")
    thresholds = config.get("thresholds") or {}
    cache = ScenarioCache(thumbs)
    records = completed(run_dir / RUN_LOG)
    primary = primary_metric(data_dir)  # a generated suite names recallbench's strict metric
    shared.setdefault("_facts", {})["scenemem"] = {
        "scenarios": len(manifest.get("scenarios") or []),
        "max steps": config.get("max_steps") or f"per test (spec), else {DEFAULT_MAX_STEPS}",
        "thresholds": thresholds, "robocasa": manifest.get("robocasa_imported")}
    for key in sorted(records):
        record = clean_record(records[key])  # a value of the wrong type shows as n/a
        scenario = cache.scenario(data_dir / str(record.get("scenario")))
        detail = test_detail(record, scenario, cache, thresholds)
        detail["primary"] = primary
        failure = "error" if record.get("error") else (record.get("failed") or "")
        yield {
            "bench": "scenemem", "agent": agent, "id": key,
            "category": record.get("category") or "", "group": record.get("task") or "",
            "kind": record.get("fixture_type") or "", "success": bool(record.get("memory")),
            "failure": failure, "text": detail.get("instruction") or "",
        }, detail
