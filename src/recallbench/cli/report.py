"""`recallbench score RUN` (re-score recorded answers) and `recallbench report RUN` (tables)."""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from recallbench.cli.formats import add_format_option, as_data


def show_summary(args: argparse.Namespace, summary: dict[str, Any], metrics: Sequence[str],
                 console: Any, slices: Sequence[str]) -> None:
    """The summary's tables (``--format table``) or their rows as json/csv on stdout."""
    if as_data(args):
        from recallbench.report.formats import summary_records, write_records

        write_records(summary_records(summary, metrics, slices), args.format)
    else:
        from recallbench.report.tables import print_summary

        print_summary(summary, metrics, console=console, slices=slices)
    if summary.get("policy_simulator_access"):
        from recallbench.benchmarks.scenemem.observation_env import SIMULATOR_ACCESS_NOTE

        console.print(SIMULATOR_ACCESS_NOTE, highlight=False)  # wrapped at the width


def warn_unfinished(summary: dict[str, Any], run_dir: str | Path,
                    prog: str = "recallbench", empty_fails: bool = True) -> int:
    """Before any table: a run with planned cases unrecorded is unfinished, said with the counts
    and the command that finishes it (its own command line, resumed). Returns the exit status:
    1 when no case is recorded (nothing to score: said as an error, no table follows; a warning
    instead unless ``empty_fails``, e.g. a viewer that follows the run), else 0 (a partial run
    is a warning)."""
    from recallbench.cli.errors import print_error, print_warning

    recorded = int(summary.get("cases_recorded") or 0)
    missing = int(summary.get("unrecorded") or 0)
    planned = recorded + missing
    if recorded == 0:
        why = (f"an unfinished run: 0 of {planned} planned cases recorded; finish it with: "
               f"{finish_command(Path(run_dir))}") if missing else "a run with no case recorded"
        if not empty_fails:
            print_warning(f"{run_dir} is {why}")
            return 0
        print_error(f"{run_dir} is {why}", prog)
        return 1
    if missing:
        counted = "left out below (--subset)" if summary.get("subset") else \
            "counted as failures below unless --subset"
        print_warning(f"{run_dir} is an unfinished run: {recorded} of {planned} planned cases "
                      f"recorded, {missing} missing ({counted}); finish it with: "
                      f"{finish_command(Path(run_dir))}")
    return 0


def finish_command(run_dir: Path) -> str:
    """The command that finishes the run in ``run_dir``, built by its benchmark from the
    settings its manifest recorded (a resume must repeat them)."""
    import shlex

    from recallbench.benchmarks.registry import BENCHMARKS
    from recallbench.run.manifest import read_manifest

    try:
        m = read_manifest(run_dir)
    except (OSError, ValueError):
        m = {}
    bench = BENCHMARKS.get(str(m.get("benchmark")))
    if bench is None or bench.finish_command is None:  # say what a resume needs, generically
        return f"the command that made {run_dir}, with --resume"
    return shlex.join(bench.finish_command(m, Path(run_dir)))


def _handle_score(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.report.runs import score_run

    console = Console(stderr=as_data(args))
    scoring = "official" if args.official else args.scoring
    summary = score_run(args.run, scoring=scoring, subset=args.subset)
    slices = summary.get("slices", ["group", "category"])[:2]
    if warn_unfinished(summary, args.run, f"recallbench {args.command}"):
        return 1
    show_summary(args, summary, summary["metrics"], console, slices)
    console.print(f"scoring={summary['scoring']}; wrote {Path(args.run) / 'summary.json'}")
    return 0


def _handle_report(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.errors import InputError
    from recallbench.report.comparison import COMPARISON
    from recallbench.report.runs import SUMMARY

    console = Console(stderr=as_data(args))
    path = Path(args.run) / SUMMARY
    if not path.is_file() and (Path(args.run) / COMPARISON).is_file():
        return _report_comparison(args, console)
    if not path.is_file():
        run = Path(args.run)  # `score` can help only a run folder
        if not run.is_dir():
            raise InputError(run, None, "not a folder (a run folder or a comparison)"
                             if run.exists() else "not found")
        if not (run / "manifest.json").is_file():
            raise InputError(run, None, "neither a run folder (manifest.json) nor a comparison "
                                        "(comparison.json)")
        raise InputError(path, None, f"no summary; run `recallbench score {args.run}`")
    summary = json.loads(path.read_text())
    # written by a runner, not scored yet (older SceneMem runs), or before unrecorded cases
    # were counted: scored now
    if "metrics" not in summary or "unrecorded" not in summary:
        from recallbench.report.runs import score_run

        scoring = summary.get("scoring")  # as it was scored
        summary = score_run(args.run, subset=bool(summary.get("subset")),
                            scoring=scoring if scoring in ("published", "official") else None)
    slices = [s for s in summary.get("slices", ["group", "category", "template"])
              if s != "template" or args.by_template]
    if warn_unfinished(summary, args.run, f"recallbench {args.command}"):
        return 1
    show_summary(args, summary, summary["metrics"], console, slices)
    return 0


def _report_comparison(args: argparse.Namespace, console: Any) -> int:
    """A comparison folder (``recallbench run``): its tables from ``comparison.json``, exit 1
    when no agent got a score (as ``run`` does, docs/run.md)."""
    from recallbench.errors import print_problem
    from recallbench.report.compare import print_comparison
    from recallbench.report.comparison import load_comparison, scored_agents

    comparison = load_comparison(args.run)
    if as_data(args):
        from recallbench.report.formats import comparison_records, write_records

        write_records(comparison_records(comparison), args.format)
    else:
        print_comparison(comparison, console=console)
    for warning in comparison.get("warnings") or []:
        print_problem(warning, console=console)
    return 0 if scored_agents(comparison) else 1


def register(subparsers: argparse._SubParsersAction) -> None:
    score = subparsers.add_parser("score", help="re-score a run from its records (no agent)")
    score.add_argument("run", help="run directory")
    score.add_argument(
        "--scoring",
        choices=("published", "official"),
        default=None,
        help="default: the run's own setting",
    )
    score.add_argument("--official", action="store_true", help="same as --scoring official")
    score.add_argument(
        "--subset",
        action="store_true",
        help="score only recorded cases (default: a planned case without a record fails)",
    )
    add_format_option(score)
    score.set_defaults(func=_handle_score)
    report = subparsers.add_parser("report", help="print a scored run's or a comparison's tables")
    report.add_argument("run", help="run directory, or a comparison folder (recallbench run)")
    report.add_argument("--by-template", action="store_true", help="also the per-template table")
    add_format_option(report)
    report.set_defaults(func=_handle_report)
