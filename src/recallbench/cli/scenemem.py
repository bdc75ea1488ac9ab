"""``recallbench scenemem``: the card's eval_runner command line, crash-safe and parallel.

Its flags are derived from SceneMem's declared options (``benchmarks.scenemem.options``); a new
run's config is built by SceneMem's runner (``run.scenemem_runner``), as ``recallbench run`` does.

Imports nothing heavy at module level so ``recallbench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any


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
    from recallbench.cli.options import benchmark_values
    from recallbench.errors import InputError, UsageError
    from recallbench.run.runner import RunContext
    from recallbench.run.scenemem_runner import RUNNER

    options = RUNNER.config(benchmark_values(args, OPTIONS))  # numbers checked here
    console = Console(stderr=True)
    execution = execution_settings(args, options.workers)
    shard_of(args)  # a bad --shard: before work
    if options.resume and options.overwrite:
        raise UsageError("--overwrite", "--resume finishes a run, --overwrite starts it again: "
                                        "pass one")
    config, run_dir = (_resumed(options, args) if options.resume
                       else _new_run(options, args))
    try:
        status = RUNNER.run_card(config, run_dir, RunContext(
            execution=execution, console=console, resume=bool(options.resume),
            overwrite=bool(options.overwrite)))
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
    return _overall(run_dir, status, args.format)


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


def _policy_target(spec: str) -> str:
    """The ``module:Class`` a --policy runs as: a reference as given (the card's form), or what
    a registered name means on SceneMem."""
    from recallbench.agents.registry import NoMeaning, target, valid_names
    from recallbench.errors import UsageError
    from recallbench.loader import is_reference

    if is_reference(spec):
        return spec
    try:
        return target(spec, "scenemem")
    except NoMeaning as exc:
        raise UsageError("--policy", str(exc)) from None
    except ValueError:
        raise UsageError("--policy", f"unknown policy {spec!r}: use module:Class, "
                                     f"path/to/file.py:Class or one of "
                                     f"{', '.join(valid_names('scenemem'))}") from None


def _resumed(options: Any, args: argparse.Namespace) -> tuple[Any, Path]:
    """The recorded run's config; flags given again must agree with it."""
    from recallbench.errors import InputError, UsageError
    from recallbench.run.scenemem import default_run_dir, resume_config

    if not (options.run_dir or options.out):
        raise UsageError("--resume", "needs the run: --run-dir RUN_DIR (or the run's --out)")
    run_dir = Path(options.run_dir) if options.run_dir else default_run_dir(options.out)
    given = {name: getattr(options, name) for name in (
        "data_dir", "policy", "out", "filter", "max_steps", "seed", "test_timeout",
        "camera_obs", "env_factory", "trust_suite", "trust_policy", "observation_only")}
    given["shard"] = _shard(args)
    config = resume_config(run_dir, given)
    for name in ("approach_dist", "open_qpos"):
        value = getattr(options, name)
        if value is not None and config.thresholds.get(name) != value:
            raise InputError(run_dir / "manifest.json", f"config.thresholds.{name}",
                             f"the run used {config.thresholds.get(name)}; "
                             f"--{name.replace('_', '-')} {value} differs")
    return config, run_dir


def _new_run(options: Any, args: argparse.Namespace) -> tuple[Any, Path]:
    from recallbench.benchmarks.scenemem.options import OPTIONS
    from recallbench.cli.options import benchmark_flag
    from recallbench.errors import UsageError
    from recallbench.run.scenemem import default_run_dir
    from recallbench.run.scenemem_runner import RUNNER, card_config

    missing = [f"--{n.replace('_', '-')}" for n in ("data_dir", "policy", "out")
               if not getattr(options, n)]
    if missing:
        raise UsageError(", ".join(missing), "required (or --resume --run-dir RUN_DIR)")
    config = card_config(options, data_dir=options.data_dir,
                         policy=_policy_target(options.policy), out=options.out,
                         policy_args=options.policy_arg, shard=_shard(args))
    # --filter and --env-factory as `run` checks them, named as typed
    RUNNER.prepare(Path(options.data_dir), options, benchmark_flag(args, OPTIONS))
    run_dir = Path(options.run_dir) if options.run_dir else default_run_dir(config.out)
    check_new_outputs(Path(options.out), run_dir,
                      "--run-dir" if options.run_dir else "--out",
                      overwrite=bool(options.overwrite))
    return config, run_dir


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


def _shard(args: argparse.Namespace) -> str | None:
    from recallbench.cli.execution import shard_of

    shard = shard_of(args)
    return str(shard) if shard else None
