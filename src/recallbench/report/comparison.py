"""A comparison from run folders: each agent's run scored through its benchmark's seam, one block
per benchmark, and the warnings (with counts) a reader must see. ``comparison.json`` holds it."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from recallbench.benchmarks.registry import get_benchmark
from recallbench.errors import InputError
from recallbench.io import write_json_atomic
from recallbench.report.runs import score_run
from recallbench.report.viewer.sources import RunRef, privileged_reason
from recallbench.run.compare import AgentRun
from recallbench.run.manifest import read_manifest
from recallbench.run.runlog import RUN_LOG, completed

COMPARISON = "comparison.json"


@dataclass
class AgentResult:
    """One agent on one benchmark: status ok / skipped / failed, its metrics with intervals."""

    agent: str
    target: str | None
    status: str
    note: str = ""
    run_dir: str | None = None
    n: int = 0
    metrics: dict[str, dict[str, Any]] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    # why its numbers are not a memory result (it reads ground truth), as the pages say; or None
    privileged: str | None = None


def score_agent(bench: str, run: AgentRun, out: Path, seed: int) -> AgentResult:
    """Score one agent's run folder; an agent with no answer at all is failed, not 0%."""
    result = AgentResult(run.agent, run.target, run.status, run.note)
    if run.status != "ok" or run.run_dir is None:
        return result
    run_dir = Path(run.run_dir)
    # relative to the comparison folder, so the folder can be moved whole
    result.run_dir = os.path.relpath(run_dir.resolve(), out.resolve())
    benchmark = get_benchmark(bench)
    result.privileged = privileged_reason(RunRef(bench, run.agent, run_dir, target=run.target,
                                                 manifest=read_manifest(run_dir)))
    summary = score_run(run_dir, seed=seed)
    overall = summary["overall"]
    result.n = int(overall["n"])
    names = benchmark.metric_names(benchmark.suite_of(read_manifest(run_dir)))
    result.metrics = {m: overall[m] for m in names if m in overall}
    result.extra = {"errors": summary["no_answer"], "failures": overall.get("failures", {}),
                    **benchmark.run_notes(completed(run_dir / RUN_LOG))}
    if summary["cases_recorded"] == 0:  # nothing ran (e.g. no scenario loaded): not 0%
        why = summary["warnings"][0] if summary["warnings"] else "the suite has no cases"
        result.status, result.note = "failed", f"no case ran: {why} (see the run folder)"
        result.metrics = {}
    elif summary["no_answer"] >= summary["cases_recorded"]:  # a broken agent, not 0%
        result.status, result.note = "failed", f"every case: {summary['warnings'][0]}"
    return result


def build_comparison(suite: str | Path, suites: Mapping[str, Path],
                     runs: Mapping[str, Sequence[AgentRun]], out: str | Path,
                     options: Mapping[str, Any], seed: int,
                     warnings: Sequence[str] = (),
                     benchmark_options: Mapping[str, Mapping[str, Any]] | None = None,
                     ) -> dict[str, Any]:
    """Score every run and write ``comparison.json`` under ``out``; ``warnings`` the caller
    already has (e.g. a suite that could not be generated) lead the comparison's own.
    ``benchmark_options``: each benchmark's option values (its runner's config), recorded in
    its block so a comparison says what each benchmark was run with."""
    out = Path(out)
    comparison: dict[str, Any] = {
        "suite": str(Path(suite).resolve()),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "options": dict(options),
        "benchmarks": {},
    }
    for bench, path in suites.items():
        metrics = get_benchmark(bench).metric_names(path)
        comparison["benchmarks"][bench] = {
            "suite": str(path.resolve()),
            "metrics": list(metrics),
            "primary": metrics[0],
            "options": dict((benchmark_options or {}).get(bench, {})),
            "agents": [asdict(score_agent(bench, r, out, seed)) for r in runs.get(bench, [])],
        }
    comparison["warnings"] = [*warnings, *comparison_warnings(comparison)]
    write_json_atomic(out / COMPARISON, comparison)
    return comparison


def comparison_warnings(comparison: Mapping[str, Any]) -> list[str]:
    """Partial failure, counted: agents that failed or were skipped, runs with errors."""
    warnings = []
    for bench, block in comparison["benchmarks"].items():
        agents = block["agents"]
        bad = [a for a in agents if a["status"] != "ok"]
        if bad:
            names = ", ".join(f"{a['agent']} ({a['status']})" for a in bad)
            warnings.append(f"{bench}: {len(bad)} of {len(agents)} agents gave no score: {names}")
        for a in agents:
            errors = (a.get("extra") or {}).get("errors")
            if a["status"] == "ok" and errors:
                warnings.append(f"{bench}: {a['agent']}: {errors} of {a['n']} tests errored")
            if a["status"] == "ok" and a.get("note"):
                warnings.append(f"{bench}: {a['agent']}: {a['note']}")
    return warnings


def scored_agents(comparison: Mapping[str, Any]) -> int:
    """How many (benchmark, agent) runs produced a score over at least one case."""
    return sum(1 for block in comparison["benchmarks"].values() for a in block["agents"]
               if a["status"] == "ok" and a["n"] > 0)


def load_comparison(out: str | Path) -> dict[str, Any]:
    path = Path(out) / COMPARISON
    if not path.is_file():
        raise InputError(path, None, "no comparison here")
    result: dict[str, Any] = json.loads(path.read_text())
    return result
