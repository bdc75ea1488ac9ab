"""``recallbench scenemem``: the card's eval_runner command line, crash-safe and parallel.

Its flags are spellings of SceneMem's declared options (``benchmarks.scenemem.options``); the
run goes through SceneMem's runner (``run.scenemem_runner``), prepare then run, as each agent of
``recallbench run`` does.

Imports nothing heavy at module level so ``recallbench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from recallbench.benchmarks.scenemem.options import ScenememConfig
    from recallbench.run.runner import Flags


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "scenemem",
        help="run a SceneMem evaluation (the dataset card's eval_runner, crash-safe)",
        description=(
            "Evaluate a policy on SceneMem scenarios. Writes the card's results.json to --out "
            "and a run folder (manifest, per-test log, breakdowns) that --resume can finish."
        ),
    )
    from recallbench.benchmarks.scenemem.options import OPTIONS
    from recallbench.cli.options import add_benchmark_options

    add_benchmark_options(p, OPTIONS)  # every flag from the benchmark's declarations
    from recallbench.cli.execution import add_execution_options

    add_execution_options(p)
    from recallbench.cli.formats import add_format_option

    add_format_option(p)
    p.set_defaults(func=_handle)


def _handle(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.benchmarks.scenemem.options import OPTIONS
    from recallbench.cli.execution import execution_settings, shard_of
    from recallbench.cli.options import benchmark_flag, benchmark_values
    from recallbench.errors import InputError, UsageError
    from recallbench.run.runner import Planned, RunContext
    from recallbench.run.scenemem_runner import RUNNER

    config = RUNNER.config(benchmark_values(args, OPTIONS))  # numbers checked here
    execution = execution_settings(args, config.workers)
    shard = shard_of(args)  # a bad --shard: before work
    config = replace(config, shard=str(shard) if shard else None)
    if config.resume and config.overwrite:
        raise UsageError("--overwrite", "--resume finishes a run, --overwrite starts it again: "
                                        "pass one")
    flags = benchmark_flag(args, OPTIONS)  # messages name each flag as it was typed
    config = _resumed(config, flags) if config.resume else _new_run(config)
    out, run_dir = RUNNER.paths(config, Path("."))
    try:
        # --filter and --env-factory as `run` checks them, named as typed
        prepared = RUNNER.prepare(Path(str(config.data_dir)), config, flags)
        if not config.resume:
            check_new_outputs(out, run_dir, "--run-dir" if config.run_dir else "--out",
                              overwrite=bool(config.overwrite))
        result = RUNNER.run(prepared, Planned(str(config.policy), target=config.policy),
                            run_dir, RunContext(execution=execution, console=Console(stderr=True),
                                                resume=bool(config.resume),
                                                overwrite=bool(config.overwrite)))
    except (InputError, UsageError):
        raise  # a data dir, run folder or flag at fault: each names its own file or flag
    except (ValueError, ImportError) as exc:  # a bad --policy (or --env_factory) reference
        message = str(exc)  # the loaders name their flag; a bare import error is --policy's
        raise UsageError("" if message.startswith("--") else "--policy", message) from None
    except RuntimeError as exc:  # workers cannot start; the run log is intact for --resume
        raise InputError(run_dir, None, f"{exc}; finish with: recallbench scenemem --resume "
                                        f"--run-dir {run_dir}") from None
    except KeyboardInterrupt:
        from recallbench.cli.errors import print_error

        print_error(f"interrupted; finish with: recallbench scenemem --resume --run-dir {run_dir}")
        return 130
    return _overall(run_dir, result.exit_status, args.format)


def _overall(run_dir: Path, status: int, fmt_: str = "table") -> int:
    """The overall success rate with its interval; warnings with counts; exit 1 when every test
    errored (status 1 already when a scenario failed to load or tests are missing)."""
    from recallbench.cli.errors import run_exit_status
    from recallbench.report.runs import score_run
    from recallbench.report.tables import fmt

    summary = score_run(run_dir)
    overall = summary["overall"]
    if fmt_ != "table":  # the rows on stdout; the runner's tables went to stderr
        from recallbench.report.formats import summary_records, write_records

        write_records(summary_records(summary, summary["metrics"],
                                      summary.get("slices", ())), fmt_)
    print(f"memory success: {fmt(overall['memory_success'], digits=1)} % of {overall['n']} "
          "tests (95% bootstrap interval)", file=sys.stdout if fmt_ == "table" else sys.stderr)
    return max(status, run_exit_status(summary, run_dir))


def _resumed(given: ScenememConfig, flags: Flags) -> ScenememConfig:
    """The recorded run's config; options given again must agree with it."""
    from recallbench.errors import UsageError
    from recallbench.run.scenemem_config import default_run_dir, policy_target
    from recallbench.run.scenemem_runner import RUNNER

    if not (given.run_dir or given.out):
        raise UsageError("--resume", "needs the run: --run-dir RUN_DIR (or the run's --out)")
    run_dir = Path(given.run_dir) if given.run_dir else default_run_dir(str(given.out))
    if given.policy:  # compared as the module:Class it runs as
        given = replace(given, policy=policy_target(given.policy))
    return RUNNER.resumed(given, run_dir, flags)


def _new_run(config: ScenememConfig) -> ScenememConfig:
    """The options given, the --policy as the ``module:Class`` it runs as."""
    from recallbench.errors import UsageError
    from recallbench.run.scenemem_config import policy_target

    missing = [f"--{n.replace('_', '-')}" for n in ("data_dir", "policy", "out")
               if not getattr(config, n)]
    if missing:
        raise UsageError(", ".join(missing), "required (or --resume --run-dir RUN_DIR)")
    return replace(config, policy=policy_target(str(config.policy)))


def check_new_outputs(out: Path, run_dir: Path, run_flag: str, overwrite: bool) -> None:
    """Before any work: --out is a new file, or the results.json of the run in ``run_dir``
    (replaced only with --overwrite); ``run_dir`` is new, or a run folder (restarted only with
    --overwrite). README.md, a folder, someone else's file: refused, nothing written."""
    from recallbench.cli.outputs import check_output_file, check_output_folder
    from recallbench.errors import UsageError
    from recallbench.run.manifest import read_manifest
    from recallbench.run.runlog import RUN_LOG

    check_output_folder(run_flag, run_dir)
    holds_run = (run_dir / "manifest.json").is_file() or (run_dir / RUN_LOG).is_file()
    if holds_run and not overwrite:
        raise UsageError(run_flag, f"{run_dir} already holds a run: pass --resume to finish it, "
                                   "--overwrite to start it again, or choose another --out")
    made_here = False
    if holds_run:
        try:
            made_here = read_manifest(run_dir)["config"]["out"] == str(out.resolve())
        except (OSError, ValueError, KeyError, TypeError):
            made_here = False
    hint = (" (pass --overwrite to start its run again)" if made_here
            else " (no recallbench run wrote it)")
    check_output_file("--out", out, replace=made_here and overwrite, hint=hint)
