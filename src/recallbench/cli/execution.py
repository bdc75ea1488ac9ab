"""Options every run command shares: where its cases run (``--executor``, ``--address``) and
which part of them (``--shard``). Defined once; each command adds them with one call.

Neither the backend nor the worker count changes a result; both are recorded in the run's
manifest as provenance. A shard is part of a run's settings (a resume must name the same one).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
from collections.abc import Iterator

from recallbench.errors import UsageError
from recallbench.executor import EXECUTORS, ExecutorSettings
from recallbench.executor.shards import Shard, parse_shard


def add_execution_options(parser: argparse.ArgumentParser, *, shard: bool = True) -> None:
    parser.add_argument(
        "--executor", choices=EXECUTORS, default="local",
        help="where cases run: local worker processes (default) or a Ray cluster "
        "(pip install 'recallbench[ray]')")
    parser.add_argument(
        "--address", default=None,
        help="with --executor ray: the cluster, 'auto' (the one this machine joined) or "
        "HOST:PORT; default: start Ray on this machine")
    if shard:
        parser.add_argument(
            "--shard", default=None, metavar="I/N",
            help="run only shard I of N (deterministic; join the shard folders with "
            "`recallbench merge`)")


def execution_settings(args: argparse.Namespace, workers: int | None) -> ExecutorSettings:
    """The parsed options as executor settings; a bad combination is a one-line error."""
    if args.address is not None and args.executor != "ray":
        raise UsageError("--address", "only with --executor ray")
    if args.executor == "ray" and not _installed("ray"):
        raise UsageError("--executor", "ray is not installed: pip install 'recallbench[ray]'")
    return ExecutorSettings(args.executor, workers or os.cpu_count() or 1, args.address)


@contextlib.contextmanager
def prestarted(args: argparse.Namespace, handler: str, workers: int | None,
               limit: int | None = None) -> Iterator[None]:
    """Local workers for ``handler`` started at once, before the command loads its suite, and
    stopped at the block's end if no executor took them (``executor.prestart``). Nothing for
    Ray, or for flags that do not parse (their checks raise the one-line error later)."""
    n = min(workers, limit) if isinstance(workers, int) and isinstance(limit, int) else workers
    if args.executor != "local" or not isinstance(n, int) or n < 1:
        yield
        return
    from recallbench.executor.local_workers import prestart

    with prestart(handler, n):
        yield


def shard_of(args: argparse.Namespace) -> Shard | None:
    return parse_shard(getattr(args, "shard", None))


def _installed(module: str) -> bool:
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a broken or blocked install counts as missing
        return False
