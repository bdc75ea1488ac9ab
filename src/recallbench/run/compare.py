"""Run several agents on a suite, each through its benchmark's runner (``run.runner``), into one
folder.

Execution only: which agents run where was decided by the command line's plan
(``recallbench.cli.checks.plan_agents``), and the scores, tables and report come from
``recallbench.report.compare`` reading the run folders this writes.

Layout of ``--out``::

    <benchmark>/<agent>/            that agent's own run folder (runner's format, resumable)

Each agent's run folder is reused when present: an interrupted comparison resumes, and an agent
already run is not run again; a folder recorded with other settings is refused (or, with
``overwrite``, redone) before any work. ``holds_agent_runs`` recognises a folder an interrupted
comparison left (only agent folders, no comparison.json yet), so the command it printed resumes it.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from recallbench.errors import InputError, UsageError, print_problem
from recallbench.executor import ExecutorSettings
from recallbench.executor.session import keep_workers
from recallbench.run.lock import LOCK_NAME, clear_run_folder
from recallbench.run.runlog import RUN_LOG
from recallbench.run.runner import AgentRun, Planned, Prepared, RunContext, runner_for

__all__ = ["AgentRun", "CompareOptions", "Planned", "run_agents", "safe_name"]


@dataclass
class CompareOptions:
    workers: int = 1
    seed: int = 0
    agent_args: dict[str, dict[str, Any]] = field(default_factory=dict)
    # the runners' own output (progress, per-run breakdowns) goes to <agent dir>/console.log
    quiet_runs: bool = False
    # an agent folder recorded with other settings is redone (else the plan refuses it)
    overwrite: bool = False
    # where cases run (recallbench.executor.ExecutorSettings); None: local processes
    execution: Any = None


def safe_name(agent: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", agent).strip("_") or "agent"


# What a runner leaves in an agent's run folder from its first moment: the lock, then the
# manifest and the log.
RUN_FILES = (LOCK_NAME, "manifest.json", RUN_LOG)


def holds_agent_runs(out: Path) -> bool:
    """Whether ``out`` holds only what ``run_agents`` writes: ``<benchmark>/<agent>/`` folders
    of registered benchmarks, each empty, or holding only console.log, or holding its runner's
    run folder (``RUN_FILES``, in it or in a per-budget subfolder). What an interrupted
    comparison leaves; a folder with anything else is not ours."""
    from recallbench.benchmarks.registry import BENCHMARKS

    entries = list(out.iterdir())
    if not entries or not all(e.is_dir() and not e.is_symlink() and e.name in BENCHMARKS
                              for e in entries):
        return False
    for bench_dir in entries:
        runner = runner_for(bench_dir.name)
        for agent_dir in bench_dir.iterdir():
            if agent_dir.is_symlink() or not agent_dir.is_dir():
                return False
            if {e.name for e in agent_dir.iterdir()} <= {"console.log"}:
                continue  # made (--quiet opened its log), interrupted before its runner wrote
            run_dir = runner.run_dir(agent_dir)
            if not any(_holds_run(d) for d in (run_dir, *_subfolders(run_dir))):
                return False
    return True


def _holds_run(folder: Path) -> bool:
    return any((folder / name).is_file() for name in RUN_FILES)


def _subfolders(folder: Path) -> list[Path]:
    return [e for e in folder.iterdir() if e.is_dir()] if folder.is_dir() else []


def run_dir_of(bench: str, agent_dir: Path) -> Path:
    return runner_for(bench).run_dir(agent_dir)


def recorded_settings(bench: str, agent_dir: Path) -> dict[str, Any] | None:
    """The settings an agent folder was run with (None when it holds no run yet)."""
    return runner_for(bench).recorded_settings(agent_dir)


def stale_runs(prepared: Mapping[str, Prepared], plan: dict[str, list[Planned]], out: Path,
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
            wanted = runner_for(bench).settings(prepared[bench], p)
            diff = [f"{k} {recorded.get(k)!r} -> {wanted.get(k)!r}" for k in recorded
                    if k != "manifest" and recorded.get(k) != wanted.get(k)]
            if "manifest" in recorded:
                diff = ["its manifest is unreadable"]
            if diff:
                stale.append((agent_dir, "; ".join(diff)))
    return stale


def clear_stale(prepared: Mapping[str, Prepared], plan: dict[str, list[Planned]], out: Path,
                opts: CompareOptions) -> list[Path]:
    """Refuse (or with ``opts.overwrite`` remove) agent folders recorded with other settings.
    Runs before any work, so a refusal leaves everything as it was."""
    stale = stale_runs(prepared, plan, out, opts)
    if stale and not opts.overwrite:
        folder, diff = stale[0]
        more = f" (and {len(stale) - 1} more)" if len(stale) > 1 else ""
        raise UsageError("--out", f"{folder} was run with other settings ({diff}){more}: "
                                  "pass --overwrite to redo it, or choose another --out")
    for folder, _ in stale:
        clear_run_folder(folder)  # refused while another process writes it
    return [folder for folder, _ in stale]


def run_agents(prepared: Mapping[str, Prepared], plan: dict[str, list[Planned]],
               out: str | Path, opts: CompareOptions | None = None,
               console: Console | None = None) -> dict[str, list[AgentRun]]:
    """Run every planned agent on its benchmark's (prepared) suite through the benchmark's
    runner, each into ``out/<bench>/<agent>/``."""
    opts = opts or CompareOptions()
    console = console or Console(stderr=True)
    out = Path(out)
    clear_stale(prepared, plan, out, opts)
    out.mkdir(parents=True, exist_ok=True)
    with keep_workers():  # Ray actors start once for the whole run, stopped at its end
        return {bench: [_run_planned(bench, ready, p, out, opts, console)
                        for p in plan.get(bench, [])]
                for bench, ready in prepared.items()}


def _context(bench: str, opts: CompareOptions, console: Console) -> RunContext:
    execution = opts.execution or ExecutorSettings("local", opts.workers)
    return RunContext(execution=runner_for(bench).execution(execution), console=console,
                      progress_console=console, transient=True)


def _run_planned(bench: str, prepared: Prepared, planned: Planned, out: Path,
                 opts: CompareOptions, console: Console) -> AgentRun:
    agent = planned.agent
    if planned.skip is not None:
        print_problem(f"{bench}: {agent} skipped: {planned.skip}", console=console)
        return AgentRun(agent, None, "skipped", planned.skip)
    agent_dir = out / bench / safe_name(agent)
    agent_dir.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        if opts.quiet_runs:
            console.print(f"{bench}: {agent} ...", highlight=False)
            with open(agent_dir / "console.log", "a", encoding="utf-8") as log:
                sub = Console(file=log, width=120, force_terminal=False)
                result = runner_for(bench).run(prepared, planned, agent_dir,
                                               _context(bench, opts, sub))
        else:
            result = runner_for(bench).run(prepared, planned, agent_dir,
                                           _context(bench, opts, console))
    except InputError as exc:
        result = AgentRun(agent, None, "failed", str(exc))
    except Exception as exc:  # one agent's breakdown must not lose the others' results
        result = AgentRun(agent, None, "failed", f"{type(exc).__name__}: {exc}")
    result.seconds = time.perf_counter() - t0
    if result.status != "ok":
        print_problem(f"{bench}: {agent} {result.status}: {result.note}", console=console)
    return result
