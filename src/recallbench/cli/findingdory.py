"""`recallbench findingdory ...`: run an agent on a FindingDory suite, or score predictions.

Its flags are derived from FindingDory's declared options (``benchmarks.findingdory.options``);
the run itself is the FindingDory runner's (``run.findingdory_runner``), the one `recallbench run`
uses too. This module parses, checks before work, scores the folders and prints.

Heavy imports (PyAV, numpy-based scoring) happen inside the handlers so `--help` stays instant.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.cli.formats import add_format_option, as_data
from recallbench.cli.report import show_summary


def _build_agent(config: Any) -> Any:
    """The agent, built before any work: a bad name or argument is a one-line error."""
    from recallbench.agents.registry import NoMeaning, resolve
    from recallbench.cli.checks import construct_agent, valid_names
    from recallbench.errors import UsageError

    try:
        factory = resolve(config.agent, "findingdory")
    except NoMeaning as exc:
        raise UsageError("--agent", f"{exc}; see `recallbench list agents`") from None
    except (ValueError, ImportError) as exc:
        if ":" in config.agent:
            raise UsageError("--agent", str(exc)) from None
        raise UsageError("--agent", f"unknown agent {config.agent!r}: use one of "
                                    f"{', '.join(valid_names('findingdory'))}, module:Class or "
                                    "path/to/file.py:Class") from None
    return construct_agent(config.agent, factory, config.agent_arg, config.seed, "--agent-arg")


def _handle_run(args: argparse.Namespace) -> int:
    """Run with the agent's worker processes started first: their start overlaps this
    process's imports and the suite's loading."""
    from recallbench.cli.execution import prestarted
    from recallbench.run.findingdory_worker import ANSWER_HANDLER

    with prestarted(args, ANSWER_HANDLER, args.workers, args.limit):
        return _run(args)


def _run(args: argparse.Namespace) -> int:
    """Parse and check before work, then prepare -> run through the FindingDory runner (as
    `recallbench run` does for each agent), score the folders, print."""
    from rich.console import Console

    from recallbench.benchmarks.findingdory.options import OPTIONS
    from recallbench.benchmarks.registry import get_benchmark
    from recallbench.cli.checks import check_agent_server
    from recallbench.cli.errors import print_warning, run_exit_status
    from recallbench.cli.execution import execution_settings, shard_of
    from recallbench.cli.options import benchmark_flag, benchmark_values
    from recallbench.cli.outputs import check_output_folder
    from recallbench.errors import UsageError
    from recallbench.report.runs import score_run
    from recallbench.report.tables import fmt
    from recallbench.run.findingdory_runner import RUNNER, budget_dirs, budgets
    from recallbench.run.runner import Planned, RunContext

    missing = [f for f, v in (("--data", args.data), ("--agent", args.agent), ("--out", args.out))
               if not v]
    if missing:
        raise UsageError(", ".join(missing), "required")
    config = RUNNER.config(benchmark_values(args, OPTIONS))
    check_output_folder("--out", config.out)  # README.md, someone's folder: before any work
    execution = execution_settings(args, config.workers)  # a bad --executor/--address/--shard
    shard = shard_of(args)
    budgets(config)  # a bad --frames-sweep: before the suite loads
    flags = benchmark_flag(args, OPTIONS)  # messages name each flag as it was typed
    prepared = RUNNER.prepare(Path(config.data), config, flags)
    planned = Planned(config.agent, instance=_build_agent(config), kwargs=config.agent_arg)
    RUNNER.check_agents(prepared, [planned], flags)
    check_agent_server(config.agent, planned.instance)
    console = Console(stderr=as_data(args))
    ctx = RunContext(execution=execution, console=console, resume=config.resume,
                     overwrite=config.overwrite, shard=shard)
    warnings = RUNNER.run(prepared, planned, Path(config.out), ctx).warnings
    dirs = budget_dirs(config, Path(config.out))
    bench = get_benchmark("findingdory")
    metrics = bench.metric_names()
    summaries = {k: score_run(d, scoring=config.scoring, suite=prepared.suite)
                 for k, d in dirs.items()}
    if config.frames_sweep and as_data(args):
        from recallbench.report.formats import summary_records, write_records

        write_records([{"frames": k, **r} for k, s in summaries.items()
                       for r in summary_records(s, metrics, ())], args.format)
    elif config.frames_sweep:
        for k, summary in summaries.items():
            primary = summary["overall"][bench.primary]
            console.print(f"K={k}: {bench.labels()[bench.primary]} {fmt(primary)}")
    else:
        show_summary(args, summaries[config.frames], metrics, console, ("group", "category"))
    for warning in warnings:  # cases left for --resume (a server or input that may recover)
        print_warning(warning)
    status = max(run_exit_status(summaries[k], dirs[k]) for k in dirs)
    return max(status, 1 if warnings else 0)


def _handle_score(args: argparse.Namespace) -> int:
    """Predictions made elsewhere, scored by the report layer; this prints and writes."""
    from rich.console import Console

    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.benchmarks.registry import get_benchmark
    from recallbench.cli.checks import check_frames
    from recallbench.cli.errors import print_warning
    from recallbench.io import write_json_atomic
    from recallbench.report.findingdory_predictions import score_predictions
    from recallbench.report.runs import finite

    if args.out:
        from recallbench.cli.outputs import check_output_file, is_summary_file

        check_output_file("--out", args.out, replace=is_summary_file(Path(args.out)),
                          hint=" (it is not a summary this command wrote)")
    console = Console(stderr=as_data(args))
    suite = load_suite(args.score_data)
    check_frames(args.frames, suite.cases)
    summary = score_predictions(suite, args.predictions, frames=args.frames,
                                scoring=args.scoring, subset=args.subset)
    metrics = get_benchmark("findingdory").metric_names()
    show_summary(args, summary, metrics, console, ("group", "category"))
    if summary["missing"]:
        how = (
            "not scored (--subset)"
            if args.subset
            else "counted as failures (--subset scores only predicted cases)"
        )
        print_warning(f"{summary['missing']} of {len(suite.cases)} cases have no prediction: "
                      f"{how}")
    if args.out:
        write_json_atomic(args.out, finite(summary))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "findingdory",
        help="run a frame-selection agent on FindingDory QA (or `findingdory score`)",
        description="Run an agent over a FindingDory suite: records each answer, then scores.",
    )
    from recallbench.benchmarks.findingdory.options import OPTIONS
    from recallbench.cli.options import add_benchmark_options

    add_benchmark_options(parser, OPTIONS)  # every flag from the benchmark's declarations
    from recallbench.cli.execution import add_execution_options

    add_execution_options(parser)
    add_format_option(parser)
    # an interrupted run finishes with --resume (cli.resume_command), never --overwrite
    parser.set_defaults(func=_handle_run, resume_flag="--resume", fresh_flag="--overwrite")
    _register_score(parser)


def _register_score(parser: argparse.ArgumentParser) -> None:
    """``recallbench findingdory score``: predictions made elsewhere, scored here."""
    sub = parser.add_subparsers(dest="findingdory_command", metavar="{score}", title="subcommand")
    score = sub.add_parser("score", help="score predictions made elsewhere (JSONL)")
    score.add_argument("--data", dest="score_data", required=True)
    score.add_argument(
        "--predictions",
        required=True,
        help='JSONL of {"id", "frame_indices"} or {"id", "response"}',
    )
    score.add_argument(
        "--frames",
        type=int,
        default=DEFAULT_FRAMES,
        help=f"K the predictions' positions refer to (default {DEFAULT_FRAMES})",
    )
    score.add_argument("--scoring", choices=("published", "official"), default="published")
    score.add_argument(
        "--subset",
        action="store_true",
        help="score only the cases that have a prediction (default: a missing one fails)",
    )
    score.add_argument("--out", help="write the summary JSON here")
    add_format_option(score)
    score.set_defaults(func=_handle_score, resume_flag=None)
