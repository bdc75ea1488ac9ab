"""Score a recorded run from its records (never re-running the agent) and write summary.json.

The manifest names the benchmark; its adapter turns records into per-instance scores, and the
aggregation here is benchmark-agnostic.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from recallbench.errors import InputError
from recallbench.io import write_json_atomic
from recallbench.report.aggregate import summarize
from recallbench.run.manifest import read_manifest
from recallbench.run.runlog import completed

SUMMARY = "summary.json"


def _finite(value: Any) -> Any:
    # JSON has no inf/nan; an undefined number is written as null.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def findingdory_rows(
    run_dir: Path, manifest: dict[str, Any], scoring: str, suite: Any = None, subset: bool = False
) -> tuple[list[dict[str, Any]], tuple[str, ...], dict[str, str]]:
    """Rows for the run's planned cases (the first ``cases`` of the suite, as ``--limit`` ran
    them); a planned case without a record is a failure unless ``subset``."""
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.findingdory.evaluate import score_records
    from recallbench.benchmarks.findingdory.scoring import METRICS, NA_REASONS
    from recallbench.run.findingdory import RECORDS

    if suite is None:
        suite = load_suite(manifest["data"])
        if manifest.get("data_sha256") and suite.sha256 != manifest["data_sha256"]:
            raise InputError(manifest["data"], None, "data changed since the run (sha256 differs)")
    planned = manifest.get("cases")
    cases = suite.cases[:planned] if isinstance(planned, int) else suite.cases
    if manifest.get("shard"):  # a shard's cases are its part of the first ``limit``
        from recallbench.run.findingdory import planned_cases
        from recallbench.run.shards import parse_shard

        cases = planned_cases(suite, manifest.get("limit"), parse_shard(manifest["shard"]))
    records = completed(run_dir / RECORDS)
    rows = score_records(suite, records, scoring=scoring, cases=cases, subset=subset)  # type: ignore[arg-type]
    return rows, METRICS, NA_REASONS


def scenemem_rows(
    run_dir: Path, manifest: dict[str, Any], scoring: str, suite: Any = None,
    subset: bool = False,
) -> tuple[list[dict[str, Any]], tuple[str, ...], dict[str, str]]:
    """One row per planned test: the card's memory success, sliced by fixture type and task. A
    test the runner planned but never recorded (``missing_tests``) fails unless ``subset``."""
    rows = [
        {
            "memory_success": 1.0 if r.get("memory") else 0.0,
            "fixture_type": r.get("fixture_type"),
            "task": r.get("task"),
            "category": r.get("category"),
            "failure": "error" if r.get("error") else r.get("failed"),
        }
        # in key order: the bootstrap (and so summary.json) must not depend on which test
        # finished first, i.e. on the workers or the executor
        for _, r in sorted(completed(run_dir / "runlog.jsonl").items())
    ]
    if not subset:
        missing = _runner_summary(run_dir).get("missing_tests") or []
        rows += [{"memory_success": 0.0, "failure": "missing"} for _ in missing]
    return rows, ("memory_success",), {}


def no_answer(benchmark: str, records: Any) -> list[tuple[str, str]]:
    """(key, cause) of each recorded case where the agent produced nothing at all: it raised, its
    input failed or its worker died (FindingDory: no frame indices and no response; SceneMem: a
    test that errored). A wrong or unparsable answer is not among them."""
    out = []
    for record in records:
        info = record.get("info") if isinstance(record.get("info"), dict) else {}
        cause = next((f"{k}: {str(v)[:300]}" for k, v in (*record.items(), *info.items())
                      if k.endswith("error") and v), None)
        if benchmark == "findingdory":
            if record.get("frame_indices") is None and record.get("response") is None:
                out.append((record["key"], cause or "no answer recorded"))
        elif record.get("error"):
            out.append((record["key"], cause or "error"))
    return out


def run_warnings(summary: dict[str, Any], failed: list[tuple[str, str]]) -> list[str]:
    """Partial failure, counted, for the console, summary.json and the report."""
    warnings = []
    recorded = summary["cases_recorded"]
    if failed:
        warnings.append(f"{len(failed)} of {recorded} recorded cases produced no answer "
                        f"(first: {failed[0][0]}: {failed[0][1]})")
    if summary.get("missing"):
        warnings.append(f"{summary['missing']} of {summary['cases_scored']} planned cases have no "
                        "record and count as failures (--subset scores only recorded ones)")
    errors = summary.get("scenario_errors") or {}
    if errors:
        warnings.append(f"{len(errors)} scenario(s) could not be loaded: {', '.join(errors)}")
    return warnings


SCORERS = {"findingdory": findingdory_rows, "scenemem": scenemem_rows}
SLICES = {"findingdory": ("group", "category", "template"),
          "scenemem": ("fixture_type", "task")}


def run_seed(manifest: dict[str, Any]) -> int:
    """The run's seed, which is also the bootstrap seed: every re-score gives the same CIs."""
    seed = manifest.get("seed", (manifest.get("config") or {}).get("seed", 0))
    return int(seed or 0)


def score_run(
    run_dir: str | Path,
    *,
    scoring: str | None = None,
    suite: Any = None,
    seed: int | None = None,
    subset: bool = False,
) -> dict[str, Any]:
    """Re-score a run; ``scoring`` overrides the manifest's (e.g. "official"). The bootstrap
    seed is the run's own unless given. Planned cases without a record count as failures
    (``missing`` in the summary); ``subset`` scores only the recorded ones. What the runner
    already put in summary.json (e.g. SceneMem's scenario errors and per-group counts) is kept;
    the scores are added to it."""
    run_dir = Path(run_dir)
    if not (run_dir / "manifest.json").is_file():
        raise InputError(run_dir / "manifest.json", None, "not a run directory (no manifest)")
    manifest = read_manifest(run_dir)
    benchmark = manifest.get("benchmark")
    if benchmark not in SCORERS:
        raise InputError(run_dir / "manifest.json", "benchmark", f"no scorer for {benchmark!r}")
    scoring = scoring or manifest.get("scoring") or "published"
    rows, metrics, reasons = SCORERS[benchmark](run_dir, manifest, scoring, suite, subset)
    seed = run_seed(manifest) if seed is None else seed
    scores = summarize(rows, metrics, na_reasons=reasons, seed=seed, slices=SLICES[benchmark])
    summary = _runner_summary(run_dir)
    for key, value in scores.items():  # each group keeps the runner's counts beside its scores
        if isinstance(value, dict) and isinstance(summary.get(key), dict) and key != "overall":
            value = {g: {**summary[key].get(g, {}), **block} for g, block in value.items()}
        summary[key] = value
    summary.update(
        benchmark=benchmark,
        scoring=scoring,
        agent=manifest.get("agent") or (manifest.get("config") or {}).get("policy"),
        frames=manifest.get("frames"),
        cases_total=manifest.get("cases"),
        cases_scored=len(rows),
        cases_recorded=sum(r.get("failure") != "missing" for r in rows),
        missing=sum(r.get("failure") == "missing" for r in rows),
        subset=subset,
        metrics=list(metrics),
        slices=list(SLICES[benchmark]),
        bootstrap_seed=seed,
    )
    records = dict(sorted(completed(run_dir / "runlog.jsonl").items()))  # not finishing order
    failed = no_answer(benchmark, records.values())
    summary["no_answer"] = len(failed)
    summary["warnings"] = run_warnings(summary, failed)
    write_json_atomic(run_dir / SUMMARY, _finite(summary))
    return summary


def _runner_summary(run_dir: Path) -> dict[str, Any]:
    import json

    path = run_dir / SUMMARY
    if not path.is_file():
        return {}
    try:
        old = json.loads(path.read_text())
    except (OSError, ValueError):
        return {}
    return old if isinstance(old, dict) else {}
