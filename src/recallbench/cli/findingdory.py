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
    """Parse and check before work, run through the FindingDory runner, score, print."""
    from rich.console import Console

    from recallbench.benchmarks.findingdory.options import OPTIONS
    from recallbench.benchmarks.findingdory.scoring import METRICS
    from recallbench.cli.checks import check_agent_server
    from recallbench.cli.errors import print_warning, run_exit_status
    from recallbench.cli.execution import execution_settings, shard_of
    from recallbench.cli.options import benchmark_flag, benchmark_values
    from recallbench.cli.outputs import check_output_folder
    from recallbench.errors import UsageError
    from recallbench.report.runs import score_run
    from recallbench.report.tables import fmt
    from recallbench.run.findingdory_runner import RUNNER, budgets
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
    dirs, warnings = RUNNER.run_budgets(prepared, planned, Path(config.out), ctx)
    summaries = {k: score_run(d, scoring=config.scoring, suite=prepared.suite)
                 for k, d in dirs.items()}
    if config.frames_sweep and as_data(args):
        from recallbench.report.formats import summary_records, write_records

        write_records([{"frames": k, **r} for k, s in summaries.items()
                       for r in summary_records(s, METRICS, ())], args.format)
    elif config.frames_sweep:
        for k, summary in summaries.items():
            console.print(f"K={k}: HL-SR {fmt(summary['overall']['hl_sr'])}")
    else:
        show_summary(args, summaries[config.frames], METRICS, console, ("group", "category"))
    for warning in warnings:  # cases left for --resume (a server or input that may recover)
        print_warning(warning)
    status = max(run_exit_status(summaries[k], dirs[k]) for k in dirs)
    return max(status, 1 if warnings else 0)


def read_predictions(path: Path) -> dict[str, dict[str, Any]]:
    """JSONL of {"id", "frame_indices"} or {"id", "response"} (optionally "offered_frames")."""
    from recallbench.errors import InputError
    from recallbench.io import parse_json

    preds: dict[str, dict[str, Any]] = {}
    lines: dict[str, int] = {}
    if not path.is_file():
        raise InputError(path, None, "predictions file not found")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(path, f"byte {exc.start}", "not UTF-8 text (a binary file?)") from None
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        row = parse_json(line, path, f"line {n}")  # malformed, nested too deeply: one line
        if not isinstance(row, dict) or "id" not in row:
            raise InputError(path, f"line {n}: id", "missing")
        if "frame_indices" not in row and "response" not in row:
            raise InputError(path, f"line {n}", "needs frame_indices or response")
        fi = row.get("frame_indices")
        if fi is not None and not isinstance(fi, list):
            raise InputError(path, f"line {n}: frame_indices", "expected a list")
        offered = row.get("offered_frames")
        if offered is not None and not (isinstance(offered, list) and all(
            isinstance(i, int) and not isinstance(i, bool) and i >= 0 for i in offered
        )):
            raise InputError(
                path, f"line {n}: offered_frames", "expected a list of frame indices (ints >= 0)"
            )
        rid = str(row["id"])
        if rid in preds:  # keeping either silently would score an arbitrary one
            raise InputError(path, f"line {n}: id", f"duplicate id {rid!r} (line {lines[rid]})")
        preds[rid], lines[rid] = row, n
    return preds


def _handle_score(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.benchmarks.findingdory.data import load_suite, resolve_video
    from recallbench.benchmarks.findingdory.evaluate import (
        EpisodeCache,
        offered_for,
        score_records,
    )
    from recallbench.benchmarks.findingdory.scoring import METRICS, NA_REASONS
    from recallbench.cli.checks import check_frames
    from recallbench.cli.errors import print_warning
    from recallbench.errors import InputError
    from recallbench.io import write_json_atomic
    from recallbench.report.aggregate import summarize
    from recallbench.report.runs import _finite

    if args.out:
        from recallbench.cli.outputs import check_output_file, is_summary_file

        check_output_file("--out", args.out, replace=is_summary_file(Path(args.out)),
                          hint=" (it is not a summary this command wrote)")
    console = Console(stderr=as_data(args))
    suite = load_suite(args.score_data)
    check_frames(args.frames, suite.cases)
    preds = read_predictions(Path(args.predictions))
    if not preds:
        raise InputError(args.predictions, None, "no predictions in the file")
    unknown = sorted(set(preds) - {c.id for c in suite.cases})
    if unknown:
        raise InputError(args.predictions, "id", f"ids not in the data: {unknown[:5]}")
    episodes = EpisodeCache(suite)
    records = {}
    for case in suite.cases:
        if case.id not in preds:
            continue  # scored as a failure (missing) unless --subset
        p = preds[case.id]
        offered = p.get("offered_frames")
        if offered is None:
            video = resolve_video(suite, case, None)
            offered = offered_for(case, args.frames, video, episodes.get(case.ep_id))
        records[case.id] = {
            "key": case.id,
            "offered_frames": offered,
            "frame_indices": p.get("frame_indices"),
            "response": p.get("response"),
        }
    rows = score_records(suite, records, scoring=args.scoring, subset=args.subset)
    summary = summarize(rows, METRICS, na_reasons=NA_REASONS)
    missing = len(suite.cases) - len(records)
    summary.update(
        scoring=args.scoring,
        frames=args.frames,
        cases_total=len(suite.cases),
        cases_recorded=len(records),
        cases_scored=len(rows),
        missing=missing,
        subset=args.subset,
        predictions=str(args.predictions),
    )
    show_summary(args, summary, METRICS, console, ("group", "category"))
    if missing:
        how = (
            "not scored (--subset)"
            if args.subset
            else "counted as failures (--subset scores only predicted cases)"
        )
        print_warning(f"{missing} of {len(suite.cases)} cases have no prediction: {how}")
    if args.out:
        write_json_atomic(args.out, _finite(summary))
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
