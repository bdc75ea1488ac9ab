"""``recallbench scenemem``: the card's eval_runner command line, crash-safe and parallel.

Imports nothing heavy at module level so ``recallbench --help`` stays instant.
"""

from __future__ import annotations

import argparse
from pathlib import Path


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
    p.add_argument("--policy", help="module:Class or path/to/file.py:Class")
    p.add_argument("--out", help="results.json path (the card's schema)")
    p.add_argument("--filter", default=None, help="only scenarios whose folder name has this")
    p.add_argument(
        "--max_steps", type=int, default=None, help="steps per test (default: spec, else 1500)"
    )
    p.add_argument(
        "--workers", type=int, default=None, help="worker processes (default: one per core)"
    )
    p.add_argument("--test_timeout", type=float, default=None, help="wall-clock limit per test, s")
    p.add_argument("--run_dir", default=None, help="run folder (default: <out stem>_run/)")
    p.add_argument("--resume", metavar="RUN_DIR", default=None, help="finish an earlier run")
    p.add_argument("--seed", type=int, default=None, help="run seed (default 0)")
    p.add_argument("--approach_dist", type=float, default=None, help="default 1.2 (m)")
    p.add_argument("--open_qpos", type=float, default=None, help="default 0.5 (rad or m)")
    p.add_argument(
        "--no-camera-obs",
        "--no_camera_obs",
        dest="camera_obs",
        action="store_const",
        const=False,
        default=None,
        help="robosuite: no camera observations and no offscreen renderer (the card has both "
        "on); for policies that read no images, ~10x faster steps",
    )
    p.add_argument(
        "--env_factory",
        "--env-factory",
        default=None,
        help="module:function (or file.py:function) that builds each scenario's env; a suite "
        "itself may only name a factory registered under recallbench.env_factories",
    )
    p.add_argument(
        "--trust_suite",
        "--trust-suite",
        action="store_true",
        default=None,
        help="let the scenarios' model files reference files outside their folders",
    )
    from recallbench.cli.execution import add_execution_options

    add_execution_options(p)
    p.set_defaults(func=_handle)


def _handle(args: argparse.Namespace) -> int:
    from rich.console import Console

    from recallbench.benchmarks.scenemem.success import Thresholds
    from recallbench.cli.checks import check_positive
    from recallbench.cli.execution import execution_settings, shard_of
    from recallbench.errors import InputError, UsageError
    from recallbench.run.scenemem import (
        ScenememConfig,
        default_run_dir,
        normalise,
        resume_config,
        run_scenemem,
    )

    for flag, value in (("--workers", args.workers), ("--max_steps", args.max_steps),
                        ("--test_timeout", args.test_timeout),
                        ("--approach_dist", args.approach_dist), ("--open_qpos", args.open_qpos)):
        check_positive(flag, value)
    console = Console(stderr=True)
    execution = execution_settings(args, args.workers)
    shard = shard_of(args)
    thresholds = {"approach_dist": args.approach_dist, "open_qpos": args.open_qpos}
    if args.resume:
        run_dir = Path(args.resume)
        given = {
            "data_dir": args.data_dir,
            "policy": args.policy,
            "out": args.out,
            "filter": args.filter,
            "max_steps": args.max_steps,
            "seed": args.seed,
            "test_timeout": args.test_timeout,
            "camera_obs": args.camera_obs,
            "env_factory": args.env_factory,
            "trust_suite": args.trust_suite,
            "shard": str(shard) if shard else None,
        }
        config = resume_config(run_dir, given)
        for name, value in thresholds.items():
            if value is not None and config.thresholds.get(name) != value:
                raise InputError(
                    run_dir / "manifest.json",
                    f"config.thresholds.{name}",
                    f"the run used {config.thresholds.get(name)}; --{name} {value} differs",
                )
    else:
        missing = [f"--{n}" for n in ("data_dir", "policy", "out") if not getattr(args, n)]
        if missing:
            raise UsageError(", ".join(missing), "required (or --resume RUN_DIR)")
        defaults = Thresholds()
        config = normalise(
            ScenememConfig(
                data_dir=args.data_dir,
                policy=args.policy,
                out=args.out,
                filter=args.filter,
                max_steps=args.max_steps,
                seed=_or(args.seed, 0),
                test_timeout=args.test_timeout,
                camera_obs=args.camera_obs is not False,
                env_factory=args.env_factory,
                trust_suite=bool(args.trust_suite),
                shard=str(shard) if shard else None,
                thresholds={
                    "approach_dist": _or(args.approach_dist, defaults.approach_dist),
                    "open_qpos": _or(args.open_qpos, defaults.open_qpos),
                    "restore_dist": defaults.restore_dist,
                },
            )
        )
        run_dir = Path(args.run_dir) if args.run_dir else default_run_dir(config.out)
    try:
        status = run_scenemem(config, run_dir, execution.workers, resume=bool(args.resume),
                              console=console, execution=execution)
    except (ValueError, ImportError) as exc:  # a bad --policy (or --env_factory) reference
        message = str(exc)  # the loaders name their flag; a bare import error is --policy's
        raise UsageError("" if message.startswith("--") else "--policy", message) from None
    except RuntimeError as exc:  # workers cannot start; the run log is intact for --resume
        raise InputError(run_dir, None, f"{exc}; finish with: recallbench scenemem --resume "
                                        f"{run_dir}") from None
    except KeyboardInterrupt:
        from recallbench.cli.errors import print_error

        print_error(f"interrupted; finish with: recallbench scenemem --resume {run_dir}")
        return 130
    return _overall(run_dir, status)


def _overall(run_dir: Path, status: int) -> int:
    """The overall success rate with its interval; warnings with counts; exit 1 when every test
    errored (status 1 already when a scenario failed to load or tests are missing)."""
    from recallbench.cli.errors import run_exit_status
    from recallbench.report.runs import score_run
    from recallbench.report.tables import fmt

    summary = score_run(run_dir)
    overall = summary["overall"]
    print(f"memory success: {fmt(overall['memory_success'], digits=1)} % of {overall['n']} "
          "tests (95% bootstrap interval)")
    return max(status, run_exit_status(summary, run_dir))


def _or(value: float | None, default: float) -> float:
    return default if value is None else value
