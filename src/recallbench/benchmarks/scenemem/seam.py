"""SceneMem through the benchmark seam: its suites, its metric and how recorded tests score."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from recallbench.benchmarks.scenemem.spec import discover_scenarios
from recallbench.benchmarks.seam import Benchmark, Metric, Record, Row, ScoreInput, first_error

METRICS = (
    Metric("memory_success", "memory success",
           "approached the target fixture (base within the approach radius, 1.2 m by default) "
           "AND opened it (some listed joint |qpos| >= 0.5), at any step before max_steps; the "
           "SceneMem card's rule"),
)


def is_suite(path: Path) -> bool:
    return path.is_dir() and any(
        p.is_dir() and p.name.startswith("combo_") and (p / "eval_spec.json").is_file()
        for p in path.iterdir())


def score(given: ScoreInput) -> list[Row]:
    """One row per planned test: the card's memory success, sliced by fixture type and task. A
    test the runner planned but never recorded (``missing_tests``) fails unless ``subset``."""
    rows: list[Row] = [
        {
            "memory_success": 1.0 if r.get("memory") else 0.0,
            "fixture_type": r.get("fixture_type"),
            "task": r.get("task"),
            "category": r.get("category"),
            "failure": "error" if r.get("error") else r.get("failed"),
        }
        for r in given.records.values()
    ]
    if not given.subset:
        missing = given.runner_summary.get("missing_tests") or []
        rows += [{"memory_success": 0.0, "failure": "missing"} for _ in missing]
    return rows


def no_answer(record: Record) -> str | None:
    """A test that errored (the policy raised, or its env could not be built)."""
    return (first_error(record) or "error") if record.get("error") else None


def run_notes(records: Mapping[str, Record]) -> dict[str, Any]:
    steps = [r["steps"] for r in records.values()
             if r.get("memory") and r.get("steps") is not None]
    return {"mean_steps_to_success": round(sum(steps) / len(steps), 1) if steps else None}


def case_keys(scenarios: list[Path]) -> list[str]:
    return [p.name for p in scenarios]


def _load(path: Path) -> Any:
    return discover_scenarios(path)


BENCHMARK = Benchmark(
    name="scenemem",
    title="SceneMem",
    metrics=METRICS,
    slices={"fixture_type": "fixture type", "task": "task"},
    is_suite=is_suite,
    load_suite=_load,
    case_keys=case_keys,
    score=score,
    no_answer=no_answer,
    run_settings=("policy", "data_dir", "max_steps", "seed", "test_timeout"),
    run_notes=run_notes,
)
