"""``recallbench scenemem``: the card's eval_runner command line, crash-safe and parallel.

Imports nothing heavy at module level so ``recallbench --help`` stays instant.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from recallbench.benchmarks.scenemem.defaults import DEFAULT_MAX_STEPS


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "scenemem",
        help="run a SceneMem evaluation (the dataset card's eval_runner, crash-safe)",
        description=(
            "Evaluate a policy on SceneMem scenarios. Writes the card's results.json to --out "
            "and a run folder (manifest, per-test log, breakdowns) that --resume can finish."
        ),
    )
    p.add_argument("--data_dir", help="folder holding combo_* scenario folders")
    p.add_argument("--policy", help="module:Class, path/to/file.py:Class, an agent name "
                                    "(`recallbench list agents`), openpi://HOST:PORT (a policy "
                                    "served with openpi's protocol, e.g. by `recallbench "
                                    "serve-policy`; ws://HOST:PORT: the same, observations "
                                    "sent raw) or lerobot:FOLDER (a LeRobot checkpoint); "
                                    "docs/vla.md")
    p.add_argument("--policy-arg", action="append", default=[], metavar="KEY=VALUE",
                   help="served policies: obs_map=FILE|raw, replan_steps=N (default 5), "
                   "memory=frames|paths|none, memory_frames=K (8), memory_size=PX (224); "
                   "lerobot: device=cpu|cuda, obs_map=FILE (repeatable; docs/vla.md)")
    p.add_argument("--observation-only", action="store_const", const=True, default=None,
                   help="the policy's env offers observations, action_dim and action_spec "
                   "only (always so for served and lerobot: policies); without it a "
                   "card-interface policy gets the live simulator, and the run says so")
    p.add_argument("--out", help="results.json path (the card's schema)")
    p.add_argument("--filter", default=None, help="only scenarios whose folder name has this")
    p.add_argument(
        "--max-steps", type=int, default=None,
        help=f"steps per test (default: spec, else {DEFAULT_MAX_STEPS})",
    )
    p.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: one per core)"
    )
    p.add_argument("--test_timeout", type=float, default=None, help="wall-clock limit per test, s")
    p.add_argument("--run_dir", default=None, help="run folder (default: <out stem>_run/)")
    p.add_argument("--resume", action="store_true",
                   help="finish the run in --run-dir (default: beside --out)")
    p.add_argument("--overwrite", action="store_true",
                   help="start the run in --run-dir again, replacing its --out results.json")
    p.add_argument("--seed", type=int, default=None, help="run seed (default 0)")
    p.add_argument("--approach_dist", type=float, default=None, help="default 1.2 (m)")
    p.add_argument("--open_qpos", type=float, default=None, help="default 0.5 (rad or m)")
    p.add_argument(
        "--no-camera-obs",
        dest="camera_obs",
        action="store_const",
        const=False,
        default=None,
        help="robosuite: no camera observations and no offscreen renderer (the card has both "
        "on); for policies that read no images, ~10x faster steps",
    )
    p.add_argument(
        "--env-factory",
        default=None,
        help="module:function (or file.py:function) that builds each scenario's env; a suite "
        "itself may only name a factory registered under recallbench.env_factories",
    )
    p.add_argument(
        "--trust-suite",
        action="store_true",
        default=None,
        help="let the scenarios' model files reference files outside their folders",
    )
    from recallbench.cli.execution import add_execution_options

    add_execution_options(p)
    from recallbench.cli.formats import add_format_option

    add_format_option(p)
    p.set_defaults(func=_handle)


def _handle(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.cli.checks import check_positive
    from recallbench.cli.execution import execution_settings, shard_of
    from recallbench.errors import InputError, UsageError
    from recallbench.run.scenemem import run_scenemem

    for flag, value in (("--workers", args.workers), ("--max-steps", args.max_steps),
                        ("--test-timeout", args.test_timeout),
                        ("--approach-dist", args.approach_dist), ("--open-qpos", args.open_qpos)):
        check_positive(flag, value)
    console = Console(stderr=True)
    execution = execution_settings(args, args.workers)
    shard_of(args)  # a bad --shard: before work
    if args.resume and args.overwrite:
        raise UsageError("--overwrite", "--resume finishes a run, --overwrite starts it again: "
                                        "pass one")
    config, run_dir = _resumed(args) if args.resume else _new_run(args)
    try:
        status = run_scenemem(config, run_dir, execution.workers, resume=bool(args.resume),
                              console=console, execution=execution,
                              overwrite=bool(args.overwrite))
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


def _or(value: float | None, default: float) -> float:
    return default if value is None else value


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


def _resumed(args: argparse.Namespace) -> tuple[Any, Path]:
    """The recorded run's config; flags given again must agree with it."""
    from recallbench.errors import InputError, UsageError
    from recallbench.run.scenemem import default_run_dir, resume_config

    if not (args.run_dir or args.out):
        raise UsageError("--resume", "needs the run: --run-dir RUN_DIR (or the run's --out)")
    run_dir = Path(args.run_dir) if args.run_dir else default_run_dir(args.out)
    given = {name: getattr(args, name) for name in (
        "data_dir", "policy", "out", "filter", "max_steps", "seed", "test_timeout",
        "camera_obs", "env_factory", "trust_suite", "observation_only")}
    given["shard"] = _shard(args)
    config = resume_config(run_dir, given)
    for name in ("approach_dist", "open_qpos"):
        value = getattr(args, name)
        if value is not None and config.thresholds.get(name) != value:
            raise InputError(run_dir / "manifest.json", f"config.thresholds.{name}",
                             f"the run used {config.thresholds.get(name)}; "
                             f"--{name.replace('_', '-')} {value} differs")
    return config, run_dir


def _new_run(args: argparse.Namespace) -> tuple[Any, Path]:
    from recallbench.benchmarks.scenemem.success import Thresholds
    from recallbench.cli.checks import parse_key_values
    from recallbench.errors import UsageError
    from recallbench.run.scenemem import ScenememConfig, default_run_dir, normalise

    missing = [f"--{n.replace('_', '-')}" for n in ("data_dir", "policy", "out")
               if not getattr(args, n)]
    if missing:
        raise UsageError(", ".join(missing), "required (or --resume --run-dir RUN_DIR)")
    defaults = Thresholds()
    config = normalise(ScenememConfig(
        data_dir=args.data_dir,
        policy=_policy_target(args.policy),
        policy_args=parse_key_values("--policy-arg", args.policy_arg),
        observation_only=bool(args.observation_only),
        out=args.out,
        filter=args.filter,
        max_steps=args.max_steps,
        seed=0 if args.seed is None else args.seed,
        test_timeout=args.test_timeout,
        camera_obs=args.camera_obs is not False,
        env_factory=args.env_factory,
        trust_suite=bool(args.trust_suite),
        shard=_shard(args),
        thresholds={
            "approach_dist": _or(args.approach_dist, defaults.approach_dist),
            "open_qpos": _or(args.open_qpos, defaults.open_qpos),
            "restore_dist": defaults.restore_dist,
        },
    ))
    run_dir = Path(args.run_dir) if args.run_dir else default_run_dir(config.out)
    check_new_outputs(Path(args.out), run_dir, "--run-dir" if args.run_dir else "--out",
                      overwrite=bool(args.overwrite))
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
