"""``recallbench merge SHARD_DIR... --out DIR``: join shard run folders into one run folder.

The logic is ``recallbench.run.merge``; this module parses, prints and sets the exit status.
"""

from __future__ import annotations

import argparse


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "merge",
        help="join shard run folders (--shard i/N) into the unsharded run's folder",
        description=(
            "Join the run folders of all N shards of one run (scenemem or findingdory "
            "--shard i/N) into --out: the union of their run logs, results.json (SceneMem) and "
            "summary.json, equal to what the unsharded run writes. Shards whose settings, "
            "versions or suite differ, a shard given twice and a missing shard are refused."
        ),
    )
    p.add_argument("shard_dirs", nargs="+", metavar="SHARD_DIR", help="a shard's run folder")
    p.add_argument("--out", required=True, help="the merged run folder (must not hold a run)")
    p.set_defaults(func=_handle)


def _handle(args: argparse.Namespace) -> int:
    from recallbench.cli.errors import run_exit_status
    from recallbench.cli.outputs import check_output_folder
    from recallbench.report.runs import score_run
    from recallbench.run.merge import merge_runs

    check_output_folder("--out", args.out)
    summary = score_run(merge_runs(args.shard_dirs, args.out))
    print(f"merged {len(args.shard_dirs)} shards into {args.out}: "
          f"{summary.get('cases_recorded')} cases recorded")
    return run_exit_status(summary, args.out)
