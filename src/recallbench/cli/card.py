"""``recallbench <benchmark>`` for a benchmark that declares no command of its own shape: one
agent on one suite, prepare -> run through the benchmark's runner (as each agent of
``recallbench run``), then its summary. Its flags are ``--suite``, ``--agent``, ``--agent-arg``,
``--out``, the execution options and the benchmark's declared options.

A plugin names it in its declaration: ``command="<its module>:register"`` with
``register = card_command("<name>", "<help>")`` in that module. Imports nothing heavy.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path
from typing import Any

Register = Callable[[argparse._SubParsersAction], None]


def card_command(bench: str, help: str) -> Register:  # noqa: A002 - argparse's word
    """The ``register(subparsers)`` adding ``recallbench <bench>``."""

    def register(sub: argparse._SubParsersAction) -> None:
        from recallbench.benchmarks.registry import get_benchmark
        from recallbench.cli.execution import add_execution_options
        from recallbench.cli.formats import add_format_option
        from recallbench.cli.options import add_benchmark_options

        options = get_benchmark(bench).options
        p = sub.add_parser(bench, help=help, description=f"Run one agent on a {bench} suite: "
                           "records each case in --out, then scores.")
        p.add_argument("--suite", required=True, help="the suite folder or file")
        p.add_argument("--agent", required=True, help="agent name or module:Class")
        p.add_argument("--agent-arg", action="append", default=[], metavar="KEY=VALUE",
                       help="constructor argument for the agent (JSON value), repeatable")
        p.add_argument("--out", required=True, help="run directory")
        add_benchmark_options(p, options)  # every other flag from the benchmark's declarations
        add_execution_options(p, shard=not any(o.name == "shard" for o in options))
        add_format_option(p)
        p.set_defaults(func=_handle, card_benchmark=bench)

    return register


def _planned(bench: str, args: argparse.Namespace, seed: int, build: bool) -> Any:
    """The agent, resolved (and built when its runner wants it built) before any work."""
    from recallbench.agents.registry import agent_kind, meaning, resolve
    from recallbench.cli.checks import construct_agent, parse_key_values, valid_names
    from recallbench.errors import UsageError
    from recallbench.run.runner import Planned

    target = meaning(args.agent, bench)
    if target is None:
        names = valid_names(bench)
        raise UsageError("--agent", f"unknown agent {args.agent!r} for {bench}: use "
                                    + (f"one of {', '.join(names)}, or " if names else "")
                                    + "module:Class")
    agent_kind(target)  # a kind that is none: one error, now
    kwargs = parse_key_values("--agent-arg", args.agent_arg)
    planned = Planned(args.agent, target=target, kwargs=kwargs)
    if build:
        planned.instance = construct_agent(args.agent, resolve(args.agent, bench), kwargs, seed,
                                           "--agent-arg")
    return planned


def _handle(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.benchmarks.registry import get_benchmark
    from recallbench.cli.errors import print_warning, run_exit_status
    from recallbench.cli.execution import execution_settings
    from recallbench.cli.formats import as_data
    from recallbench.cli.options import benchmark_flag, benchmark_values
    from recallbench.cli.outputs import check_output_folder
    from recallbench.cli.report import show_summary
    from recallbench.report.runs import score_run
    from recallbench.run.runner import RunContext, runner_for

    bench = get_benchmark(args.card_benchmark)
    runner = runner_for(bench.name)
    config = runner.config(benchmark_values(args, bench.options))
    flags = benchmark_flag(args, bench.options)  # messages name each flag as it was typed
    check_output_folder("--out", args.out)
    execution = execution_settings(args, getattr(config, "workers", None))
    prepared = runner.prepare(Path(args.suite), config, flags)
    planned = _planned(bench.name, args, getattr(config, "seed", 0), runner.builds_agents)
    runner.check_agents(prepared, [planned], flags)
    console = Console(stderr=as_data(args))
    result = runner.run(prepared, planned, Path(args.out), RunContext(execution=execution,
                                                                       console=console))
    run_dir = Path(result.run_dir or args.out)
    summary = score_run(run_dir)
    show_summary(args, summary, bench.metric_names(), console, tuple(bench.slices))
    for warning in result.warnings:  # cases left for a rerun (a server that may recover)
        print_warning(warning)
    return max(result.exit_status, run_exit_status(summary, run_dir), 1 if result.warnings
               else 0)
