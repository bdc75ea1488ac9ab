"""Score a recorded run from its records (never re-running the agent) and write summary.json.

The manifest names the benchmark; its seam turns records into per-instance scores, and the
aggregation here is benchmark-agnostic.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from recallbench.benchmarks.registry import get_benchmark
from recallbench.benchmarks.seam import Benchmark, ScoreInput
from recallbench.errors import InputError
from recallbench.io import write_json_atomic
from recallbench.report.aggregate import metric_summary, summarize
from recallbench.run.manifest import read_manifest
from recallbench.run.runlog import RUN_LOG, completed

SUMMARY = "summary.json"


def finite(value: Any) -> Any:
    """``value`` with every inf/nan as None: JSON has no inf/nan, an undefined number is null."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [finite(v) for v in value]
    return value


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


def run_seed(manifest: dict[str, Any]) -> int:
    """The run's seed, which is also the bootstrap seed: every re-score gives the same CIs."""
    if "bootstrap_seed" in manifest:
        return int(manifest["bootstrap_seed"])
    seed = manifest.get("seed", (manifest.get("config") or {}).get("seed", 0))  # older runs
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
    (``missing`` in the summary); ``subset`` scores only the recorded ones (``unrecorded``
    counts them either way). What the runner already put in summary.json (e.g. SceneMem's
    scenario errors and per-group counts) is kept; the scores are added to it."""
    run_dir = Path(run_dir)
    manifest, bench = _open_run(run_dir)
    scoring = scoring or manifest.get("scoring") or "published"
    # in key order: scores (the bootstrap draws) and warnings must not depend on which case
    # finished first, i.e. on the workers or the executor
    records = dict(sorted(completed(run_dir / RUN_LOG).items()))
    summary = _runner_summary(run_dir)
    given = ScoreInput(manifest, records, summary, scoring, suite, subset, bench.metrics)
    rows = bench.score(given)
    # planned cases without a record, whatever --subset: an unfinished run says so first
    unrecorded = _missing(bench.score(replace(given, subset=False)) if subset else rows)
    metrics = bench.metric_names(bench.suite_of(manifest))
    seed = run_seed(manifest) if seed is None else seed
    _add_scores(summary, bench, rows, metrics, seed)
    summary.update(_run_facts(manifest, bench, scoring, rows, unrecorded, subset, metrics, seed))
    failed = [(key, cause) for key, record in records.items()
              if (cause := bench.no_answer(record)) is not None]
    summary["no_answer"] = len(failed)
    summary["warnings"] = run_warnings(summary, failed)
    write_json_atomic(run_dir / SUMMARY, finite(summary))
    return summary


def _open_run(run_dir: Path) -> tuple[dict[str, Any], Benchmark]:
    """The run's manifest and the benchmark it names; InputError if ``run_dir`` is no run."""
    if not (run_dir / "manifest.json").is_file():
        raise InputError(run_dir / "manifest.json", None, "not a run directory (no manifest)")
    manifest = read_manifest(run_dir)
    bench = get_benchmark(manifest.get("benchmark"), run_dir / "manifest.json")
    return manifest, bench


def _add_scores(summary: dict[str, Any], bench: Benchmark, rows: list[dict[str, Any]],
                metrics: tuple[str, ...], seed: int) -> None:
    """Put the bootstrapped scores and the benchmark's count figures into ``summary``."""
    scores = summarize(rows, metrics, na_reasons=bench.na_reasons, seed=seed,
                       slices=tuple(bench.slices))
    for key, value in scores.items():  # each group keeps the runner's counts beside its scores
        if isinstance(value, dict) and isinstance(summary.get(key), dict) and key != "overall":
            value = {g: {**summary[key].get(g, {}), **block} for g, block in value.items()}
        summary[key] = value
    for name, what in bench.figures.items():  # counts, not rates: never a % column
        summary[name] = {**metric_summary([r.get(name) for r in rows], reason=what, seed=seed),
                         "what": what}


def _run_facts(manifest: dict[str, Any], bench: Benchmark, scoring: str,
               rows: list[dict[str, Any]], unrecorded: int, subset: bool,
               metrics: tuple[str, ...], seed: int) -> dict[str, Any]:
    """What was scored, how and on how many cases: the summary's fields beside the scores."""
    return dict(
        benchmark=bench.name,
        scoring=scoring,
        agent=manifest.get("agent") or (manifest.get("config") or {}).get("policy"),
        # SceneMem: a card-interface policy run without --observation-only saw the simulator
        policy_simulator_access=manifest.get("policy_simulator_access"),
        frames=manifest.get("frames"),
        cases_total=manifest.get("cases"),
        cases_scored=len(rows),
        cases_recorded=sum(r.get("failure") != "missing" for r in rows),
        missing=_missing(rows),
        unrecorded=unrecorded,
        subset=subset,
        metrics=list(metrics),
        slices=list(bench.slices),
        bootstrap_seed=seed,
    )


def _missing(rows: list[dict[str, Any]]) -> int:
    return sum(r.get("failure") == "missing" for r in rows)


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
