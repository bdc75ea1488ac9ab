"""``recallbench run``: compare agents on a suite (``recallbench demo``, ``cli.demo``, runs the
same machinery on suites it generates).

It checks everything before work (``cli.checks``): agent names, agent arguments, the frame
budget, run folders recorded with other settings. It exits 1 when nothing was scored, and prints
partial failure as warnings with counts (also in comparison.json and report.html).
Imports nothing heavy at module level so ``recallbench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from recallbench.cli.checks import (
    check_agent_server,
    check_positive,
    plan_agents,
    split_names,
)
from recallbench.cli.errors import Parser, print_warning
from recallbench.cli.execution import add_execution_options, execution_settings
from recallbench.cli.formats import add_format_option
from recallbench.cli.options import add_run_options
from recallbench.errors import UsageError


def parse_agent_args(pairs: list[str]) -> dict[str, dict[str, Any]]:
    """``AGENT.KEY=VALUE`` pairs -> {agent: {key: value}}; values are JSON when they parse."""
    from recallbench.cli.checks import parse_key_values

    out: dict[str, dict[str, Any]] = {}
    for name, value in parse_key_values("--agent-arg", pairs).items():
        agent, dot, key = name.rpartition(".")
        if not dot or not agent or not key:
            raise UsageError("--agent-arg", f"expected AGENT.KEY=VALUE, got {name!r}")
        out.setdefault(agent, {})[key] = value
    return out


def finish_comparison(comparison: dict[str, Any], out: Path, need_every_benchmark: bool,
                      fmt: str = "table") -> int:
    """Exit status: 1 when nothing (or, for the demo, some benchmark) was scored."""
    from recallbench.cli.errors import print_error
    from recallbench.report.comparison import scored_agents

    for warning in comparison["warnings"]:
        print_warning(warning)
    empty = [b for b, block in comparison["benchmarks"].items()
             if not any(a["status"] == "ok" and a["n"] > 0 for a in block["agents"])]
    # where the pages are: stdout for a person, stderr when stdout carries --format rows
    stream = sys.stdout if fmt == "table" else sys.stderr
    print(f"report: {out / 'report.html'}", file=stream)
    if (out / "viewer" / "index.html").is_file():
        print(f"viewer: {out / 'viewer' / 'index.html'}", file=stream)
    if scored_agents(comparison) == 0:
        print_error("no agent produced a score (see the warnings above)")
        return 1
    if need_every_benchmark and empty:
        print_error(f"no score on {', '.join(empty)} (see the warnings above)")
        return 1
    return 0


def compare(prepared: dict[str, Any], plan: dict[str, list[Any]], out: str | Path,
            opts: Any, console: Any, suite: str | Path,
            warnings: list[str] | None = None, fmt: str = "table") -> dict[str, Any]:
    """Run every planned agent (each benchmark's runner, through the run layer), score the run
    folders into comparison.json (with each benchmark's options), print the tables, build the
    case viewer, then the charts and report.html (report layer)."""
    from recallbench.run.lock import run_folder_lock

    # one writer per comparison folder, held until report.html: a second `run` on it is one line
    # before any work; the lock file an interrupted run left is stale (its flock died with it)
    # and marks the folder as recallbench's, so the printed command resumes it
    with run_folder_lock(out, then="run the same command again"):
        return _compare(prepared, plan, Path(out), opts, console, suite, warnings, fmt)


def _compare(prepared: dict[str, Any], plan: dict[str, list[Any]], out: Path, opts: Any,
             console: Any, suite: str | Path, warnings: list[str] | None,
             fmt: str) -> dict[str, Any]:
    from dataclasses import asdict

    from recallbench.report.compare import print_comparison
    from recallbench.report.comparison import build_comparison
    from recallbench.report.html import write_report
    from recallbench.report.viewer.site import try_build_viewer
    from recallbench.run.compare import run_agents
    from recallbench.run.runner import runner_for

    runs = run_agents(prepared, plan, out, opts, console)
    options = {k: v for k, v in asdict(opts).items() if k != "agent_args"}
    suites = {bench: ready.suite_path for bench, ready in prepared.items()}
    configs = {bench: {**runner_for(bench).run_options(ready.config),
                       **({"seed": ready.config.seed} if hasattr(ready.config, "seed") else {})}
               for bench, ready in prepared.items()}
    comparison = build_comparison(suite, suites, runs, out, options, opts.seed, warnings or [],
                                  benchmark_options=configs)
    if opts.quiet_runs:  # the runners' own output went to each agent's console.log
        for bench, block in comparison["benchmarks"].items():
            for run, a in zip(runs[bench], block["agents"], strict=True):
                if a["status"] == "ok":
                    value = (a["metrics"].get(block["primary"]) or {}).get("value")
                    shown = "n/a" if value is None else f"{100 * value:.1f}%"
                    console.print(f"{bench}: {a['agent']} done: {shown} of n={a['n']} "
                                  f"({run.seconds:.0f} s)", highlight=False)
    if fmt == "table":
        print_comparison(comparison, console=console)
    else:  # the rows on stdout, for scripts; everything else stays on stderr
        from recallbench.report.formats import comparison_records, write_records

        write_records(comparison_records(comparison), fmt)
    try_build_viewer(out, console)  # before the report, which adds the viewer's breakdowns
    write_report(comparison, out)
    return comparison


def prepare_runs(suites: dict[str, Path], values: dict[str, dict[str, Any]],
                 agents: list[str], by_bench: dict[str, list[str]],
                 agent_args: dict[str, dict[str, Any]], seed: int,
                 flags: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
    """Before any work, per benchmark found: its runner's config from the option ``values``,
    the suite checked, the agents planned (and built where the runner wants them built) and
    checked against the suite. Returns (prepared suites, plan)."""
    from recallbench.run.runner import kebab_flags, runner_for

    runners = {bench: runner_for(bench) for bench in suites}
    flags = flags or {}
    prepared = {}
    for bench, path in suites.items():
        runner = runners[bench]
        given = dict(values.get(bench, {}))
        if any(o.name == "seed" for o in runner.options):  # --seed: the run seed of each
            given["seed"] = seed
        prepared[bench] = runner.prepare(path, runner.config(given),
                                         flags.get(bench, kebab_flags))
    plan = plan_agents(suites, agents, by_bench, agent_args, seed,
                       build=[b for b, r in runners.items() if r.builds_agents])
    for bench, runner in runners.items():
        runner.check_agents(prepared[bench], plan[bench], flags.get(bench, kebab_flags))
    for planned_list in plan.values():
        for planned in planned_list:
            if planned.instance is not None:
                check_agent_server(planned.agent, planned.instance, prefix=f"{planned.agent}.")
    return prepared, plan


def _handle_run(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.benchmarks.registry import declared_options, detect_suites
    from recallbench.cli.options import check_options_apply, run_flag, run_values
    from recallbench.run.compare import CompareOptions

    declared = declared_options()
    by_bench = {b: split_names(getattr(args, f"{b}_agents", None)) for b in declared
                if getattr(args, f"{b}_agents", None)}
    agents = split_names(args.agents)
    if not agents and not by_bench:
        raise UsageError("--agents", "required (or --<benchmark>-agents, e.g. "
                                     "--findingdory-agents)")
    check_positive("--workers", args.workers)
    from recallbench.cli.outputs import check_output_folder
    from recallbench.run.compare import holds_agent_runs

    # README.md, someone's folder: refused before any work; what an interrupted run left resumes
    check_output_folder("--out", args.out, made_by=holds_agent_runs)
    execution = execution_settings(args, args.workers)
    suites = detect_suites(args.suite)
    for bench in by_bench:
        if bench not in suites:
            raise UsageError(f"--{bench}-agents", f"no {bench} suite in {args.suite}")
    check_options_apply(args, declared, set(suites), f"the suite {args.suite}")
    values = {b: run_values(args, b, options) for b, options in declared.items()}
    agent_args = parse_agent_args(args.agent_arg)
    flags = {b: run_flag(b, options, args) for b, options in declared.items()}
    prepared, plan = prepare_runs(suites, values, agents, by_bench, agent_args, args.seed, flags)
    opts = CompareOptions(
        workers=args.workers or os.cpu_count() or 1, seed=args.seed, agent_args=agent_args,
        quiet_runs=args.quiet, overwrite=args.overwrite, execution=execution)
    console = Console(stderr=True)
    comparison = compare(prepared, plan, args.out, opts, console=console, suite=args.suite,
                         fmt=args.format)
    return finish_comparison(comparison, Path(args.out), need_every_benchmark=False,
                             fmt=args.format)


class _RunParser(Parser):
    """`recallbench run`'s parser: each registered benchmark's --<benchmark>-agents and
    options (its declarations, built-ins and entry points) join it on first use."""

    _benchmarks_added = False
    _declared: dict[str, Any] = {}

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        if not self._benchmarks_added:
            from recallbench.benchmarks.registry import declared_options

            self._benchmarks_added = True
            # the declarations only: no seam loads; --help lists the built-ins' without
            # scanning the installed distributions for plugin benchmarks (a run accepts theirs)
            asked_help = any(a in ("-h", "--help") for a in (args or []))
            declared = declared_options(plugins=not asked_help)
            for name in declared:
                self.add_argument(f"--{name}-agents", default=None,
                                  help=f"override the list for {name}")
            add_run_options(self, list(declared.items()))
            self._declared = declared
        parsed, extras = super().parse_known_args(args, namespace)
        from recallbench.cli.options import not_on_run

        why = not_on_run(extras, self._declared.items())
        if why:  # (else argparse's "unrecognized arguments", from the top parser)
            self.error(why)
        return parsed, extras


def register(subparsers: argparse._SubParsersAction) -> None:
    run = subparsers.add_parser(
        "run",
        help="compare agents on a suite (one table per benchmark, with 95%% intervals)",
        description=(
            "Run each agent through the benchmark runners on the SceneMem and/or FindingDory "
            "suite found in --suite, then write comparison.json, a PNG chart per benchmark and "
            "report.html to --out. Rerunning the command resumes unfinished agents; an agent "
            "folder recorded with other settings is refused unless --overwrite."
        ),
        epilog=(
            "Benchmark options, one grammar: every option a benchmark declares is "
            "--<benchmark>-<option> here and --<option> on `recallbench <benchmark>`, with the "
            "same values and defaults (e.g. --findingdory-ll --findingdory-scoring official = "
            "`recallbench findingdory --ll --scoring official`). A flag takes no value; a "
            "KEY=VALUE option repeats. --frames, --limit, --max-steps and --test-timeout are "
            "shared spellings of the options listed beside them. comparison.json records each "
            "benchmark's options. A benchmark registered by a plugin (entry point group "
            "recallbench.benchmarks) takes its --<benchmark>-<option> flags the same way; this "
            "help lists the built-ins'."
        ),
    )
    run.add_argument("--suite", required=True,
                     help="suite folder (combo_* scenarios, qa.json, or scenemem/ + findingdory/)")
    run.add_argument("--agents", default="",
                     help="comma-separated agent names for every benchmark, e.g. "
                          "oracle,blind,random,recency")
    run.add_argument("--out", required=True, help="comparison folder")
    run.add_argument("--overwrite", action="store_true",
                     help="redo agent runs in --out that were recorded with other settings")
    run.add_argument("--agent-arg", action="append", default=[], metavar="AGENT.KEY=VALUE",
                     help="constructor argument of a FindingDory agent (JSON value), repeatable;"
                          " e.g. vlm.model=NAME, text-memory.captioner=module:Class")
    run.add_argument("--workers", type=int, default=None,
                     help="worker processes (default: one per core; FindingDory asks one "
                          "agent at a time locally)")
    from recallbench.benchmarks.options import seed

    run.add_argument("--seed", type=seed, default=0)
    run.add_argument("--quiet", action="store_true",
                     help="one line per agent; the runners' output goes to its console.log")
    add_execution_options(run, shard=False)
    add_format_option(run)
    # every benchmark's options (--<benchmark>-NAME, cli.options), added when `run` parses:
    # `recallbench --help` reads no declaration and scans no entry point
    run.__class__ = _RunParser
    run.set_defaults(func=_handle_run)
