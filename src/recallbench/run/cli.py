"""``recallbench run`` (compare agents on a suite) and ``recallbench demo`` (the README's main
job: generate small default suites, compare the baselines and a memory agent, write a report).

Imports nothing heavy at module level so ``recallbench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any


def parse_agent_args(pairs: list[str]) -> dict[str, dict[str, Any]]:
    """``AGENT.KEY=VALUE`` pairs -> {agent: {key: value}}; values are JSON when they parse."""
    out: dict[str, dict[str, Any]] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        agent, dot, key = name.rpartition(".")
        if not sep or not dot or not agent or not key:
            raise ValueError(f"--agent-arg expects AGENT.KEY=VALUE, got {pair!r}")
        try:
            parsed: Any = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        out.setdefault(agent, {})[key] = parsed
    return out


def _split(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def _handle_run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.errors import InputError
    from recallbench.run.compare import CompareOptions, compare

    console = Console(stderr=True)
    by_bench = {b: _split(v) for b, v in (("scenemem", args.scenemem_agents),
                                          ("findingdory", args.findingdory_agents)) if v}
    agents = _split(args.agents)
    if not agents and not by_bench:
        console.print("[red]error[/red] --agents (or --scenemem-agents/--findingdory-agents) "
                      "is required")
        return 2
    try:
        opts = CompareOptions(
            workers=args.workers or os.cpu_count() or 1, max_steps=args.max_steps,
            frames=args.frames, limit=args.limit, seed=args.seed,
            test_timeout=args.test_timeout, agent_args=parse_agent_args(args.agent_arg),
            quiet_runs=args.quiet)
        compare(args.suite, agents, args.out, opts, console=console,
                agents_by_benchmark=by_bench or None)
    except (InputError, ValueError) as exc:
        console.print(f"[red]error[/red] {exc}", highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        console.print(f"[red]interrupted[/red]: run the same command again to finish {args.out}")
        return 130
    console.print(f"report: {Path(args.out) / 'report.html'}")
    return 0


def _handle_demo(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.errors import InputError
    from recallbench.run.demo import run_demo

    console = Console(stderr=True)
    try:
        report = run_demo(Path(args.out), workers=args.workers or os.cpu_count() or 1,
                          console=console)
    except InputError as exc:
        console.print(f"[red]error[/red] {exc}", highlight=False, soft_wrap=True)
        return 2
    except KeyboardInterrupt:
        console.print(f"[red]interrupted[/red]: `recallbench demo --out {args.out}` resumes")
        return 130
    print(f"report: {report}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser(
        "run",
        help="compare agents on a suite (one table per benchmark, with 95%% intervals)",
        description=(
            "Run each agent through the benchmark runners on the SceneMem and/or FindingDory "
            "suite found in --suite, then write comparison.json, a PNG chart per benchmark and "
            "report.html to --out. Rerunning the command resumes unfinished agents."
        ),
    )
    run.add_argument("--suite", required=True,
                     help="suite folder (combo_* scenarios, qa.json, or scenemem/ + findingdory/)")
    run.add_argument("--agents", default="",
                     help="comma-separated agent names for every benchmark, e.g. "
                          "oracle,blind,random,text-memory")
    run.add_argument("--scenemem-agents", default=None, help="override the list for SceneMem")
    run.add_argument("--findingdory-agents", default=None,
                     help="override the list for FindingDory")
    run.add_argument("--out", required=True, help="comparison folder")
    run.add_argument("--agent-arg", action="append", default=[], metavar="AGENT.KEY=VALUE",
                     help="constructor argument of a FindingDory agent (JSON value), repeatable")
    run.add_argument("--workers", type=int, default=None,
                     help="SceneMem worker processes (default: one per core)")
    run.add_argument("--max-steps", type=int, default=None,
                     help="SceneMem steps per test (default: the spec's, else 1500)")
    run.add_argument("--test-timeout", type=float, default=None,
                     help="wall-clock s per SceneMem test / FindingDory case (default 3600 / 900)")
    run.add_argument("--frames", type=int, default=96, help="FindingDory frame budget K")
    run.add_argument("--limit", type=int, default=None, help="FindingDory: first N cases only")
    run.add_argument("--seed", type=int, default=0)
    run.add_argument("--quiet", action="store_true",
                     help="one line per agent; the runners' output goes to its console.log")
    run.set_defaults(func=_handle_run)

    demo = subparsers.add_parser(
        "demo",
        help="generate small suites, compare baselines and memory agents, write a report",
        description=(
            "The main job: generates the small default SceneMem and FindingDory suites in "
            "OUT/suites (once; reused afterwards), then runs `recallbench run` with the "
            "baselines and an offline memory agent and prints where the report is."
        ),
    )
    demo.add_argument("--out", default="runs/demo", help="demo folder (default runs/demo)")
    demo.add_argument("--workers", type=int, default=None, help="default: one per core")
    demo.set_defaults(func=_handle_demo)
