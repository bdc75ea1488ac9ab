"""``recallbench export SUITE --format findingdory-sft|lerobot --out DIR``: training data from a
generated suite, refused when a day overlaps an evaluation suite named by ``--exclude``."""

from __future__ import annotations

import argparse
import os

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES


def register(subparsers: argparse._SubParsersAction) -> None:
    from recallbench.cli.execution import add_execution_options
    from recallbench.cli.options import positive_int

    p = subparsers.add_parser(
        "export",
        help="training data from a generated suite: FindingDory SFT rows or a LeRobot dataset",
        description="Export a generated suite as a dataset a trainer reads (datasets / LeRobot), "
        "day by day in parallel, resumable, shardable; refused when a day is also in an "
        "evaluation suite named by --exclude (docs/export.md).",
    )
    p.add_argument("suite", help="a generated suite folder (recallbench generate)")
    p.add_argument("--format", required=True, choices=("findingdory-sft", "lerobot"),
                   help="findingdory-sft: HF datasets rows; lerobot: a LeRobotDataset v3")
    p.add_argument("--out", required=True,
                   help="dataset folder: new, empty or an earlier export (reruns resume it); "
                   "never the suite, inside it or around it")
    p.add_argument("--exclude", action="append", default=[], metavar="SUITE",
                   help="an evaluation suite (or export) no exported day may overlap "
                   "(repeatable)")
    p.add_argument("--frames", type=int, default=None,
                   help=f"findingdory-sft: frames of each video (default {DEFAULT_FRAMES})")
    p.add_argument("--full-length", action="store_true",
                   help="findingdory-sft: every frame of the day instead of --frames")
    p.add_argument("--val-fraction", type=float, default=None,
                   help="findingdory-sft: share of days in the validation split (default "
                   "0.05; at least one day when the suite has two; 0: no validation split)")
    p.add_argument("--no-probes", action="store_true",
                   help="lerobot (SceneMem): the days only, without the oracle's probe episodes")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="worker processes (default: one per core)")
    p.add_argument("--repo-id", default=None,
                   help="lerobot: the dataset's repo id (default: recallbench/<out folder>)")
    add_execution_options(p)
    p.set_defaults(func=_handle)


def options_of(args: argparse.Namespace) -> dict:
    """The format's options (recorded in export.json; a rerun must ask for the same)."""
    from recallbench.errors import UsageError

    if args.format == "findingdory-sft":
        for flag, value in (("--no-probes", args.no_probes), ("--repo-id", args.repo_id)):
            if value:
                raise UsageError(flag, "only with --format lerobot")
        if args.full_length and args.frames is not None:
            raise UsageError("--frames", "not with --full-length")
        frames = DEFAULT_FRAMES if args.frames is None else args.frames
        if frames < 1:
            raise UsageError("--frames", f"must be >= 1, got {frames}")
        from recallbench.export.findingdory_sft import DEFAULT_VAL_FRACTION, sampler_loss

        loss = None if args.full_length else sampler_loss(frames)
        if loss:  # the frames the export offers are the frames the trainer must see
            raise UsageError("--frames", f"{frames}: {loss}")
        val = DEFAULT_VAL_FRACTION if args.val_fraction is None else args.val_fraction
        if not 0.0 <= val < 1.0:
            raise UsageError("--val-fraction", f"must be in [0, 1), got {val}")
        return {"frames": frames, "full_length": bool(args.full_length), "val_fraction": val}
    for flag, value in (("--frames", args.frames), ("--full-length", args.full_length),
                        ("--val-fraction", args.val_fraction is not None)):
        if value:
            raise UsageError(flag, "only with --format findingdory-sft")
    from pathlib import Path

    return {"probes": not args.no_probes,
            "repo_id": args.repo_id or f"recallbench/{Path(args.out).resolve().name}"}


def _handle(args: argparse.Namespace) -> int:
    from recallbench.cli.execution import execution_settings, shard_of
    from recallbench.export.outdir import check_out
    from recallbench.export.runner import run_export

    # never into or around a suite it reads; a new or empty folder, or an export (export.json)
    # that resumes: anything else is refused before work
    check_out(args.suite, args.out, args.exclude)
    options = options_of(args)
    return run_export(args.format, args.suite, args.out, options, exclude=args.exclude,
                      execution=execution_settings(args, args.workers or os.cpu_count() or 1),
                      shard=shard_of(args))
