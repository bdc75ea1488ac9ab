"""SceneMem through the benchmark seam: its suites, its metric and how recorded tests score."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from recallbench.benchmarks.options import resume_keys
from recallbench.benchmarks.scenemem.metrics import METRIC_NAMES, METRICS, case_values
from recallbench.benchmarks.scenemem.openings import primary_metric
from recallbench.benchmarks.scenemem.options import COMMAND, GENERATOR, OPTIONS
from recallbench.benchmarks.scenemem.results import test_key
from recallbench.benchmarks.scenemem.spec import discover_scenarios, parse_eval_spec
from recallbench.benchmarks.seam import Benchmark, Record, Row, ScoreInput, first_error
from recallbench.errors import InputError


def is_suite(path: Path) -> bool:
    return path.is_dir() and any(
        p.is_dir() and p.name.startswith("combo_") and (p / "eval_spec.json").is_file()
        for p in path.iterdir())


_TEXT = ("category", "task", "fixture_type", "failed", "scenario", "test_id")
_FLAGS = ("memory", "first_open_success")
_COUNTS = ("steps", "max_steps", "fixtures_opened_before_success", "seed")
_OBJECTS = ("policy_info", "trace", "fixture")


def clean_record(record: Record) -> dict[str, Any]:
    """A run-log record with every field the scorer and viewer read of the type they expect; a
    hand-edited or planted value of another type becomes None (the test then scores as failed
    or n/a), never an error of the whole run. A non-text ``error`` still marks an error."""
    out = dict(record)
    for key in _TEXT:
        if key in out and not isinstance(out[key], str):
            out[key] = None
    for key in _FLAGS:
        if key in out and not isinstance(out[key], bool):
            out[key] = None
    for key in _COUNTS:
        value = out.get(key)
        if key in out and not (type(value) is int and 0 <= value < 2**53):
            out[key] = None
    for key in _OBJECTS:
        if key in out and not isinstance(out[key], dict):
            out[key] = None
    if out.get("error") is not None and not isinstance(out["error"], str):
        out["error"] = "malformed record: error is not text"
    if "opened" in out and not (isinstance(out["opened"], list)
                                and all(isinstance(o, str) for o in out["opened"])):
        out["opened"] = None
    return out


def score(given: ScoreInput) -> list[Row]:
    """One row per planned test: the card's memory success and recallbench's strict
    ``first_open_success`` (n/a for records older than it), sliced by fixture type and task. A
    test the run planned but never recorded (``missing_tests``) fails unless ``subset``."""
    rows: list[Row] = [
        {
            **case_values(r),
            "fixtures_opened_before_success": r.get("fixtures_opened_before_success"),
            "fixture_type": r.get("fixture_type"),
            "task": r.get("task"),
            "category": r.get("category"),
            "failure": "error" if r.get("error") else r.get("failed"),
        }
        for r in map(clean_record, given.records.values())
    ]
    if not given.subset:
        rows += [{**dict.fromkeys(METRIC_NAMES, 0.0), "failure": "missing"}
                 for _ in missing_tests(given)]
    return rows


def missing_tests(given: ScoreInput) -> list[str]:
    """The planned tests without a record. A run that finished listed them in its summary
    (``missing_tests``); one stopped before (Ctrl-C, a kill) did not: then they are the tests of
    the scenarios its manifest planned, read from the suite's ``eval_spec.json`` files."""
    listed = given.runner_summary.get("missing_tests")
    if isinstance(listed, list):
        planned = [key for key in listed if isinstance(key, str)]
    else:
        planned = _planned_tests(given.manifest)
    return [key for key in planned if key not in given.records]


def _planned_tests(manifest: Mapping[str, Any]) -> list[str]:
    data_dir = Path((manifest.get("config") or {}).get("data_dir") or ".")
    keys: list[str] = []
    for name in manifest.get("scenarios") or []:
        if not isinstance(name, str) or Path(name).name != name or name in ("", ".", ".."):
            continue  # a scenario is a folder of the suite, never a path out of it
        try:
            spec = parse_eval_spec(data_dir / name / "eval_spec.json")
        except (InputError, OSError):  # the suite moved or changed: its tests cannot be counted
            continue
        keys += [test_key(name, test.test_id) for test in spec.tests]
    return keys


def no_answer(record: Record) -> str | None:
    """A test that errored (the policy raised, or its env could not be built)."""
    return (first_error(record) or "error") if record.get("error") else None


def run_notes(records: Mapping[str, Record]) -> dict[str, Any]:
    steps = [r["steps"] for r in map(clean_record, records.values())
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
    run_settings=resume_keys(OPTIONS),
    run_notes=run_notes,
    suite_of=lambda manifest: Path((manifest.get("config") or {}).get("data_dir") or "."),
    suite_primary=primary_metric,
    figures={"fixtures_opened_before_success":
             "other fixtures opened before success (successful tests only)"},
    auditor="recallbench.audit.scenemem",
    case_reader="recallbench.report.viewer.scenemem_cases:run_cases",
    generator=GENERATOR,
    command=COMMAND,
    viewer_slices={"category": "object category", "group": "task", "kind": "fixture type"},
    suite_files="combo_*/eval_spec.json",
    viewer_page="rollout",
    finish_command=lambda manifest, run_dir: ["recallbench", "scenemem", "--resume",
                                              "--run-dir", str(run_dir)],
    runner="recallbench.run.scenemem_runner:RUNNER",
    options=OPTIONS,
)
