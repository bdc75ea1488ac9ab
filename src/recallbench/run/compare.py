"""Compare agents on a suite: run each through the benchmark's own runner, then one table per
benchmark with bootstrap 95% intervals.

A suite folder may hold a SceneMem suite (``combo_*`` scenario folders), a FindingDory suite
(``qa.json``, generated ``episodes/``), or both in ``scenemem/`` and ``findingdory/``
subfolders. Agent names are mapped per benchmark: ``oracle`` is the privileged SceneMem policy
there and the privileged frame chooser in FindingDory, ``blind`` is memoryless search in
SceneMem, ``text-memory`` is the hierarchical agent over subtask captions in SceneMem. A name
that means nothing for a benchmark is skipped with a note, never silently.

Layout of ``--out``::

    comparison.json                 every table, with intervals, n, notes, run folders
    <benchmark>/<agent>/            that agent's own run folder (runner's format, resumable)
    <benchmark>_comparison.png      bar chart with 95% error bars
    report.html                     self-contained: the tables and the PNGs embedded

Each agent's run folder is reused when present: an interrupted comparison resumes, and an agent
already run is not run again.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rich.console import Console

from recallbench.errors import InputError, UsageError
from recallbench.io import write_json_atomic
from recallbench.report.aggregate import metric_summary

BENCHMARKS = ("scenemem", "findingdory")
# What each agent name means in SceneMem (acting policies for `recallbench scenemem`).
SCENEMEM_POLICIES: dict[str, str] = {
    # The ceiling: the right fixture, opened and approached with the oracle's skills (plus a
    # straight standoff drive where ``approach`` finds no pose: hierarchical.open_fixture); the
    # generator verifies every probe with it.
    "oracle": "recallbench.agents.hierarchical:HierarchicalPrivileged",
    "privileged": "recallbench.agents.hierarchical:HierarchicalPrivileged",
    "do-nothing": "recallbench.agents.scenemem_baselines:DoNothingPolicy",
    "blind": "recallbench.agents.scenemem_baselines:MemorylessSearchPolicy",
    "memoryless": "recallbench.agents.scenemem_baselines:MemorylessSearchPolicy",
    "search": "recallbench.agents.scenemem_baselines:MemorylessSearchPolicy",
    "random": "recallbench.agents.hierarchical:HierarchicalRandom",
    "random-actions": "recallbench.agents.scenemem_baselines:RandomActionPolicy",
    "hierarchical": "recallbench.agents.hierarchical:HierarchicalSubtasks",
    "hierarchical-privileged": "recallbench.agents.hierarchical:HierarchicalPrivileged",
    "text-memory": "recallbench.agents.hierarchical:HierarchicalSubtasks",
    "text-memory-embedding": "recallbench.agents.hierarchical:HierarchicalSubtasksEmbedding",
    "vlm": "recallbench.agents.hierarchical:HierarchicalVLM",
}
# FindingDory frame-selection agents are looked up in the agent registry; these names are
# acting-only and have no frame-selection meaning.
ACTING_ONLY = {k for k in SCENEMEM_POLICIES if k not in ("oracle", "blind", "random", "vlm",
                                                          "text-memory")}
FINDINGDORY_METRICS = ("hl_sr", "hl_spl", "dtg_sr", "sc_sr")
FINDINGDORY_PRIMARY = "hl_sr"
SCENEMEM_METRICS = ("memory_success",)


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


@dataclass
class CompareOptions:
    workers: int = 1
    max_steps: int | None = None
    frames: int = 96
    limit: int | None = None
    seed: int = 0
    test_timeout: float | None = None
    agent_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the runners' own output (progress, per-run breakdowns) goes to <agent dir>/console.log
    quiet_runs: bool = False
    # an agent folder recorded with other settings is redone (else the plan refuses it)
    overwrite: bool = False
    # where cases run (recallbench.executor.ExecutorSettings); None: local processes
    execution: Any = None


@dataclass
class Planned:
    """One agent on one benchmark, decided before any work: run it (with ``instance`` already
    built, for frame selectors) or skip it with a note."""

    agent: str
    skip: str | None = None
    instance: Any = None


# ------------------------------------------------------------------------------ suites
def _is_scenemem(path: Path) -> bool:
    return path.is_dir() and any(
        p.is_dir() and p.name.startswith("combo_") and (p / "eval_spec.json").is_file()
        for p in path.iterdir()
    )


def _is_findingdory(path: Path) -> bool:
    return (path.is_dir() and (path / "qa.json").is_file()) or (
        path.is_file() and path.suffix in (".json", ".jsonl")
    )


def detect_suites(suite: str | Path) -> dict[str, Path]:
    """benchmark -> suite path found at ``suite`` (itself, or its scenemem/findingdory parts)."""
    root = Path(suite)
    if not root.exists():
        raise InputError(root, None, "suite not found")
    found: dict[str, Path] = {}
    for bench, test in (("scenemem", _is_scenemem), ("findingdory", _is_findingdory)):
        for candidate in (root, root / bench):
            if candidate.exists() and test(candidate):
                found[bench] = candidate
                break
    if not found:
        raise InputError(root, None, "no SceneMem scenarios (combo_*/eval_spec.json) and no "
                         "FindingDory qa.json here or in scenemem/ or findingdory/")
    return found


def safe_name(agent: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", agent).strip("_") or "agent"


# ------------------------------------------------------------------------------ scenemem
def scenemem_target(agent: str) -> str | None:
    """The ``module:Class`` an agent name runs as in SceneMem, or None if it has no meaning."""
    if agent in SCENEMEM_POLICIES:
        return SCENEMEM_POLICIES[agent]
    from recallbench.agents.registry import BUILTIN_AGENTS

    target = BUILTIN_AGENTS.get(agent)
    if target is None and ":" in agent:
        target = agent
    if target is None:
        return None
    from recallbench.benchmarks.scenemem.policy import load_policy_class

    try:
        load_policy_class(target)
    except (ValueError, ImportError):
        return None  # not an acting policy (e.g. a frame-selection agent)
    return target


def run_scenemem_agent(suite: Path, planned: Planned, out_dir: Path, opts: CompareOptions,
                       console: Console) -> AgentResult:
    from recallbench.run.runlog import completed
    from recallbench.run.scenemem import ScenememConfig, normalise, run_scenemem

    agent = planned.agent
    target = scenemem_target(agent)
    assert target is not None  # the plan checked it
    run_dir = out_dir / "run"
    config = normalise(ScenememConfig(
        data_dir=str(suite), policy=target, out=str(out_dir / "results.json"),
        max_steps=opts.max_steps, seed=opts.seed, test_timeout=opts.test_timeout))
    resume = (run_dir / "runlog.jsonl").exists()
    if resume:  # an earlier run of this agent: finish it, but only with the same settings
        from recallbench.run.scenemem import resume_config

        config = resume_config(run_dir, {"policy": target, "data_dir": str(suite),
                                         "max_steps": opts.max_steps, "seed": opts.seed})
    console.print(f"[bold]scenemem[/bold] {agent} ({target})" + (" resuming" if resume else ""))
    status = run_scenemem(config, run_dir, opts.workers, resume=resume, console=console,
                          execution=opts.execution)
    records = list(completed(run_dir / "runlog.jsonl").values())
    result = AgentResult(agent, target, "ok", run_dir=str(run_dir), n=len(records))
    if status != 0:
        result.note = "some scenarios failed to load or tests are missing (see the run folder)"
    if not records:  # nothing to score: not a 0% agent
        result.status = "failed"
        result.note = "no test ran: every scenario failed to load (see the run folder)"
        return result
    values = [1.0 if r.get("memory") else 0.0 for r in records]
    result.metrics["memory_success"] = metric_summary(values, seed=opts.seed)
    errors = [r for r in records if r.get("error")]
    if len(errors) == len(records):  # every test errored: a broken agent, not a 0% agent
        result.status, result.note = "failed", f"every test errored: {errors[0]['error']}"
    steps = [r["steps"] for r in records if r.get("memory") and r.get("steps") is not None]
    result.extra = {
        "errors": len(errors),
        "mean_steps_to_success": round(sum(steps) / len(steps), 1) if steps else None,
        "first_error": errors[0]["error"] if errors else None,
    }
    return result


# ------------------------------------------------------------------------------ findingdory
def findingdory_target(agent: str) -> Any | None:
    """The agent factory for FindingDory, or None when the name is acting-only."""
    if agent in ACTING_ONLY:
        return None
    from recallbench.agents.registry import resolve_agent

    factory = resolve_agent(agent)
    if isinstance(factory, type) and not callable(getattr(factory, "select_frames", None)):
        return None  # an acting policy class named directly
    return factory


def _on_cluster(opts: CompareOptions) -> bool:
    return opts.execution is not None and opts.execution.kind != "local"


def run_findingdory_agent(suite_path: Path, planned: Planned, out_dir: Path,
                          opts: CompareOptions, console: Console) -> AgentResult:
    from rich.progress import track

    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.report.runs import score_run
    from recallbench.run.findingdory import (
        DEFAULT_CASE_TIMEOUT,
        RECORDS,
        TransientCases,
        agent_manifest,
        run_cases,
        start_run,
    )
    from recallbench.run.findingdory_worker import AgentSpec

    agent, instance = planned.agent, planned.instance
    factory = type(instance)
    kwargs = opts.agent_args.get(agent, {})
    suite = load_suite(suite_path)
    n_cases = min(len(suite.cases), opts.limit) if opts.limit else len(suite.cases)
    start_run(out_dir, benchmark="findingdory", data=str(suite_path.resolve()),
              data_sha256=suite.sha256, videos=None, agent=agent, agent_kwargs=kwargs,
              agent_privileged=bool(getattr(instance, "privileged", False)),
              frames=opts.frames, seed=opts.seed, scoring="published", limit=opts.limit,
              cases=n_cases, agent_manifest=agent_manifest(instance),
              executor=(opts.execution.manifest() if _on_cluster(opts)
                        else {"kind": "local", "workers": 1, "address": None}))
    resume = (out_dir / RECORDS).exists()
    console.print(f"[bold]findingdory[/bold] {agent}" + (" resuming" if resume else ""))
    unanswered = None
    try:
        run_cases(suite, AgentSpec(agent, kwargs, opts.seed), budget=opts.frames,
                  run_dir=out_dir, limit=opts.limit, resume=resume,
                  privileged=bool(getattr(instance, "privileged", False)),
                  case_timeout=opts.test_timeout or DEFAULT_CASE_TIMEOUT,
                  # local: one worker, in order, as before; a cluster: its workers
                  execution=opts.execution if _on_cluster(opts) else None,
                  progress=lambda it, n: track(it, total=n, description=f"{agent} K={opts.frames}",
                                               console=console, transient=True))
    except TransientCases as exc:  # scored on what is recorded; rerunning finishes
        unanswered = str(exc)
    summary = score_run(out_dir, suite=suite, seed=opts.seed)
    overall = summary["overall"]
    result = AgentResult(agent, f"{factory.__module__}:{factory.__name__}",
                         "ok", run_dir=str(out_dir), n=int(overall["n"]))
    result.metrics = {m: overall[m] for m in FINDINGDORY_METRICS if m in overall}
    result.extra = {"failures": overall.get("failures", {})}
    if result.n == 0:
        result.status, result.note = "failed", "no case to score: the suite has no questions"
    elif summary["no_answer"] >= summary["cases_recorded"]:  # a broken agent, not 0%
        result.status, result.note = "failed", f"every case: {summary['warnings'][0]}"
    elif unanswered:
        result.note = unanswered
    return result


# ------------------------------------------------------------------------------ comparison
RUNNERS: dict[str, Callable[[Path, Planned, Path, CompareOptions, Console], AgentResult]] = {
    "scenemem": run_scenemem_agent,
    "findingdory": run_findingdory_agent,
}


def recorded_settings(bench: str, agent_dir: Path) -> dict[str, Any] | None:
    """The settings an agent folder was run with (None when it holds no run yet)."""
    run_dir = agent_dir / "run" if bench == "scenemem" else agent_dir
    path = run_dir / "manifest.json"
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {"manifest": "unreadable"}
    if bench == "scenemem":
        config = manifest.get("config") or {}
        return {k: config.get(k) for k in ("policy", "data_dir", "max_steps", "seed",
                                           "test_timeout")}
    return {k: manifest.get(k) for k in ("data_sha256", "agent", "agent_kwargs", "frames",
                                         "seed")}


def wanted_settings(bench: str, suite: Path, agent: str, opts: CompareOptions) -> dict[str, Any]:
    """What ``recorded_settings`` must equal for an agent folder to be resumed, not redone."""
    if bench == "scenemem":
        from recallbench.run.scenemem import ScenememConfig, normalise

        config = normalise(ScenememConfig(data_dir=str(suite), policy=scenemem_target(agent) or "",
                                          out="-"))
        return {"policy": config.policy, "data_dir": config.data_dir,
                "max_steps": opts.max_steps, "seed": opts.seed, "test_timeout": opts.test_timeout}
    from recallbench.benchmarks.findingdory.data import load_suite

    return {"data_sha256": load_suite(suite).sha256, "agent": agent,
            "agent_kwargs": opts.agent_args.get(agent, {}), "frames": opts.frames,
            "seed": opts.seed}


def stale_runs(suites: dict[str, Path], plan: dict[str, list[Planned]], out: Path,
               opts: CompareOptions) -> list[tuple[Path, str]]:
    """Agent folders under ``out`` recorded with other settings: (folder, what differs)."""
    stale = []
    for bench, planned in plan.items():
        for p in planned:
            if p.skip is not None:
                continue
            agent_dir = out / bench / safe_name(p.agent)
            recorded = recorded_settings(bench, agent_dir)
            if recorded is None:
                continue
            wanted = wanted_settings(bench, suites[bench], p.agent, opts)
            diff = [f"{k} {recorded.get(k)!r} -> {wanted.get(k)!r}" for k in wanted
                    if recorded.get(k) != wanted.get(k)]
            if "manifest" in recorded:
                diff = ["its manifest is unreadable"]
            if diff:
                stale.append((agent_dir, "; ".join(diff)))
    return stale


def clear_stale(suites: dict[str, Path], plan: dict[str, list[Planned]], out: Path,
                opts: CompareOptions) -> list[Path]:
    """Refuse (or with ``opts.overwrite`` remove) agent folders recorded with other settings.
    Runs before any work, so a refusal leaves everything as it was."""
    import shutil

    stale = stale_runs(suites, plan, out, opts)
    if stale and not opts.overwrite:
        folder, diff = stale[0]
        more = f" (and {len(stale) - 1} more)" if len(stale) > 1 else ""
        raise UsageError("--out", f"{folder} was run with other settings ({diff}){more}: "
                                  "pass --overwrite to redo it, or choose another --out")
    for folder, _ in stale:
        shutil.rmtree(folder)
    return [folder for folder, _ in stale]


def compare(suites: dict[str, Path], plan: dict[str, list[Planned]], out: str | Path,
            opts: CompareOptions | None = None, console: Console | None = None,
            suite: str | Path | None = None,
            warnings: list[str] | None = None) -> dict[str, Any]:
    """Run every planned agent on its benchmark's suite; write comparison.json, charts and
    report.html under ``out``; return the comparison. ``plan`` comes from the command line's
    checks (``recallbench.cli.checks.plan_agents``): names resolved, agents built. ``warnings``
    the caller already has (e.g. a suite that could not be generated) lead the report's."""
    opts = opts or CompareOptions()
    console = console or Console(stderr=True)
    out = Path(out)
    clear_stale(suites, plan, out, opts)
    out.mkdir(parents=True, exist_ok=True)
    comparison: dict[str, Any] = {
        "suite": str(Path(suite or next(iter(suites.values()))).resolve()),
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "options": {k: v for k, v in asdict(opts).items() if k != "agent_args"},
        "benchmarks": {},
    }
    for bench, path in suites.items():
        results = [asdict(_run_planned(bench, path, p, out, opts, console))
                   for p in plan.get(bench, [])]
        metrics = SCENEMEM_METRICS if bench == "scenemem" else FINDINGDORY_METRICS
        comparison["benchmarks"][bench] = {
            "suite": str(path.resolve()),
            "metrics": list(metrics),
            "primary": metrics[0],
            "agents": results,
        }
    comparison["warnings"] = [*(warnings or []), *comparison_warnings(comparison)]
    write_json_atomic(out / "comparison.json", comparison)
    from recallbench.report.compare import print_comparison, write_report

    print_comparison(comparison, console=console)
    from recallbench.report.viewer.site import try_build_viewer

    try_build_viewer(out, console)  # before the report, which adds the viewer's breakdowns
    write_report(comparison, out)
    return comparison


def _run_planned(bench: str, path: Path, planned: Planned, out: Path, opts: CompareOptions,
                 console: Console) -> AgentResult:
    agent = planned.agent
    if planned.skip is not None:
        console.print(f"[yellow]{bench}: {agent} skipped[/yellow]: {planned.skip}")
        return AgentResult(agent, None, "skipped", planned.skip)
    agent_dir = out / bench / safe_name(agent)
    agent_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        if opts.quiet_runs:
            console.print(f"{bench}: {agent} ...", highlight=False)
            with open(agent_dir / "console.log", "a", encoding="utf-8") as log:
                sub = Console(file=log, width=120, force_terminal=False)
                result = RUNNERS[bench](path, planned, agent_dir, opts, sub)
        else:
            result = RUNNERS[bench](path, planned, agent_dir, opts, console)
    except InputError as exc:
        result = AgentResult(agent, None, "failed", str(exc))
    except Exception as exc:  # one agent's breakdown must not lose the others' results
        result = AgentResult(agent, None, "failed", f"{type(exc).__name__}: {exc}")
    if result.run_dir:  # relative to the comparison folder, so the folder can be moved whole
        result.run_dir = os.path.relpath(Path(result.run_dir).resolve(), out.resolve())
    if result.status != "ok":
        console.print(f"[yellow]{bench}: {agent} {result.status}[/yellow]: {result.note}",
                      highlight=False)
    elif opts.quiet_runs:
        primary = next(iter(result.metrics.values()), {})
        value = primary.get("value")
        shown = "n/a" if value is None else f"{100 * value:.1f}%"
        console.print(f"{bench}: {agent} done: {shown} of n={result.n} "
                      f"({time.perf_counter() - t0:.0f} s)", highlight=False)
    return result


def comparison_warnings(comparison: dict[str, Any]) -> list[str]:
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


def scored_agents(comparison: dict[str, Any]) -> int:
    """How many (benchmark, agent) runs produced a score over at least one case."""
    return sum(1 for block in comparison["benchmarks"].values() for a in block["agents"]
               if a["status"] == "ok" and a["n"] > 0)


def load_comparison(out: str | Path) -> dict[str, Any]:
    path = Path(out) / "comparison.json"
    if not path.is_file():
        raise InputError(path, None, "no comparison here")
    return json.loads(path.read_text())
