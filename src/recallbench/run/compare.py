"""Run several agents on a suite, each through its benchmark's own runner, into one folder.

Execution only: which agents run where was decided by the command line's plan
(``recallbench.cli.checks.plan_agents``), and the scores, tables and report come from
``recallbench.report.compare`` reading the run folders this writes.

Layout of ``--out``::

    <benchmark>/<agent>/            that agent's own run folder (runner's format, resumable)

Each agent's run folder is reused when present: an interrupted comparison resumes, and an agent
already run is not run again; a folder recorded with other settings is refused (or, with
``overwrite``, redone) before any work.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from recallbench.benchmarks.findingdory.protocol import DEFAULT_FRAMES
from recallbench.benchmarks.registry import get_benchmark
from recallbench.errors import InputError, UsageError
from recallbench.executor.session import keep_workers
from recallbench.run.limits import DEFAULT_CASE_TIMEOUT
from recallbench.run.lock import clear_run_folder
from recallbench.run.runlog import RUN_LOG


@dataclass
class AgentRun:
    """One agent on one benchmark: status ok / skipped / failed, and where its run lives."""

    agent: str
    target: str | None
    status: str
    note: str = ""
    run_dir: str | None = None
    seconds: float = 0.0


@dataclass
class CompareOptions:
    workers: int = 1
    max_steps: int | None = None
    frames: int = DEFAULT_FRAMES
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
    target: str | None = None  # the module:Class it runs as (recallbench.agents.registry)


def safe_name(agent: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", agent).strip("_") or "agent"


# ------------------------------------------------------------------------------ runners
def run_scenemem_agent(suite: Path, planned: Planned, out_dir: Path, opts: CompareOptions,
                       console: Console) -> AgentRun:
    from recallbench.agents.vla import policy_kind
    from recallbench.run.scenemem import ScenememConfig, normalise, run_scenemem

    agent, target = planned.agent, planned.target
    assert target is not None  # the plan resolved it
    run_dir = out_dir / "run"
    config = normalise(ScenememConfig(
        data_dir=str(suite), policy=target, out=str(out_dir / "results.json"),
        max_steps=opts.max_steps, seed=opts.seed, test_timeout=opts.test_timeout,
        # a served or lerobot: policy's --agent-arg NAME.KEY=VALUE are its --policy-arg
        policy_args=dict(opts.agent_args.get(agent, {})) if policy_kind(target) != "card"
        else {}))
    resume = (run_dir / RUN_LOG).exists()
    if resume:  # an earlier run of this agent: finish it, but only with the same settings
        from recallbench.run.scenemem import resume_config

        config = resume_config(run_dir, {"policy": target, "data_dir": str(suite),
                                         "max_steps": opts.max_steps, "seed": opts.seed})
    console.print(f"[bold]scenemem[/bold] {agent} ({target})" + (" resuming" if resume else ""))
    status = run_scenemem(config, run_dir, opts.workers, resume=resume, console=console,
                          execution=opts.execution)
    result = AgentRun(agent, target, "ok", run_dir=str(run_dir))
    if status != 0:
        result.note = "some scenarios failed to load or tests are missing (see the run folder)"
    return result


def _on_cluster(opts: CompareOptions) -> bool:
    return opts.execution is not None and opts.execution.kind != "local"


def run_findingdory_agent(suite_path: Path, planned: Planned, out_dir: Path,
                          opts: CompareOptions, console: Console) -> AgentRun:
    from rich.progress import track

    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.run.findingdory import (
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
    resume = (out_dir / RUN_LOG).exists()
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
    return AgentRun(agent, f"{factory.__module__}:{factory.__name__}", "ok",
                    note=unanswered or "", run_dir=str(out_dir))


# ------------------------------------------------------------------------------ comparison
def recorded_settings(bench: str, agent_dir: Path) -> dict[str, Any] | None:
    """The settings an agent folder was run with (None when it holds no run yet)."""
    path = run_dir_of(bench, agent_dir) / "manifest.json"
    if not path.is_file():
        return None
    try:
        manifest = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return {"manifest": "unreadable"}
    where = RUNNERS[bench].settings_in
    settings = (manifest.get(where) or {}) if where else manifest
    return {k: settings.get(k) for k in get_benchmark(bench).run_settings}


def scenemem_settings(suite: Path, planned: Planned, opts: CompareOptions) -> dict[str, Any]:
    """What a SceneMem agent folder's recorded settings must equal to be resumed, not redone."""
    from recallbench.run.scenemem import ScenememConfig, normalise

    config = normalise(ScenememConfig(data_dir=str(suite), policy=planned.target or "", out="-"))
    return {"policy": config.policy, "data_dir": config.data_dir, "max_steps": opts.max_steps,
            "seed": opts.seed, "test_timeout": opts.test_timeout}


def findingdory_settings(suite: Path, planned: Planned, opts: CompareOptions) -> dict[str, Any]:
    """What a FindingDory agent folder's recorded settings must equal to be resumed."""
    from recallbench.benchmarks.findingdory.data import load_suite

    return {"data_sha256": load_suite(suite).sha256, "agent": planned.agent,
            "agent_kwargs": opts.agent_args.get(planned.agent, {}), "frames": opts.frames,
            "seed": opts.seed}


@dataclass(frozen=True)
class Runner:
    """How one benchmark's agents run: the function, and where its manifest keeps settings."""

    run: Callable[[Path, Planned, Path, CompareOptions, Console], AgentRun]
    # the settings its recorded manifest must hold for an agent folder to be resumed
    settings: Callable[[Path, Planned, CompareOptions], dict[str, Any]]
    run_subdir: str = ""  # the run folder inside the agent's folder
    settings_in: str = ""  # the manifest key holding the run settings ("" = top level)


# Registered per benchmark (a new benchmark adds its runner here).
RUNNERS: dict[str, Runner] = {
    "scenemem": Runner(run_scenemem_agent, scenemem_settings, run_subdir="run",
                       settings_in="config"),
    "findingdory": Runner(run_findingdory_agent, findingdory_settings),
}


def run_dir_of(bench: str, agent_dir: Path) -> Path:
    sub = RUNNERS[bench].run_subdir
    return agent_dir / sub if sub else agent_dir


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
            wanted = RUNNERS[bench].settings(suites[bench], p, opts)
            diff = [f"{k} {recorded.get(k)!r} -> {wanted.get(k)!r}" for k in recorded
                    if k != "manifest" and recorded.get(k) != wanted.get(k)]
            if "manifest" in recorded:
                diff = ["its manifest is unreadable"]
            if diff:
                stale.append((agent_dir, "; ".join(diff)))
    return stale


def clear_stale(suites: dict[str, Path], plan: dict[str, list[Planned]], out: Path,
                opts: CompareOptions) -> list[Path]:
    """Refuse (or with ``opts.overwrite`` remove) agent folders recorded with other settings.
    Runs before any work, so a refusal leaves everything as it was."""
    stale = stale_runs(suites, plan, out, opts)
    if stale and not opts.overwrite:
        folder, diff = stale[0]
        more = f" (and {len(stale) - 1} more)" if len(stale) > 1 else ""
        raise UsageError("--out", f"{folder} was run with other settings ({diff}){more}: "
                                  "pass --overwrite to redo it, or choose another --out")
    for folder, _ in stale:
        clear_run_folder(folder)  # refused while another process writes it
    return [folder for folder, _ in stale]


def run_agents(suites: dict[str, Path], plan: dict[str, list[Planned]], out: str | Path,
               opts: CompareOptions | None = None,
               console: Console | None = None) -> dict[str, list[AgentRun]]:
    """Run every planned agent on its benchmark's suite, each into ``out/<bench>/<agent>/``."""
    opts = opts or CompareOptions()
    console = console or Console(stderr=True)
    out = Path(out)
    clear_stale(suites, plan, out, opts)
    out.mkdir(parents=True, exist_ok=True)
    with keep_workers():  # Ray actors start once for the whole run, stopped at its end
        return {bench: [_run_planned(bench, path, p, out, opts, console)
                        for p in plan.get(bench, [])]
                for bench, path in suites.items()}


def _run_planned(bench: str, path: Path, planned: Planned, out: Path, opts: CompareOptions,
                 console: Console) -> AgentRun:
    agent = planned.agent
    if planned.skip is not None:
        console.print(f"[yellow]{bench}: {agent} skipped[/yellow]: {planned.skip}")
        return AgentRun(agent, None, "skipped", planned.skip)
    agent_dir = out / bench / safe_name(agent)
    agent_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        if opts.quiet_runs:
            console.print(f"{bench}: {agent} ...", highlight=False)
            with open(agent_dir / "console.log", "a", encoding="utf-8") as log:
                sub = Console(file=log, width=120, force_terminal=False)
                result = RUNNERS[bench].run(path, planned, agent_dir, opts, sub)
        else:
            result = RUNNERS[bench].run(path, planned, agent_dir, opts, console)
    except InputError as exc:
        result = AgentRun(agent, None, "failed", str(exc))
    except Exception as exc:  # one agent's breakdown must not lose the others' results
        result = AgentRun(agent, None, "failed", f"{type(exc).__name__}: {exc}")
    result.seconds = time.perf_counter() - t0
    if result.status != "ok":
        console.print(f"[yellow]{bench}: {agent} {result.status}[/yellow]: {result.note}",
                      highlight=False)
    return result
