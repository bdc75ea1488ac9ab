"""``recallbench export SUITE --dataset-format NAME --out DIR``: training data from a generated
suite, refused when a day overlaps an evaluation suite named by ``--exclude``. The formats, their
flags and checks are the rows of ``export.formats`` (plugins included)."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING, Any

from recallbench.cli.errors import Parser
from recallbench.export.formats import BUILTIN, FLAG

if TYPE_CHECKING:
    from recallbench.export.formats import ExportFormat


BUILTIN_NAMES = tuple(row.name for row in BUILTIN)


class _ExportParser(Parser):
    """`recallbench export`'s parser: the built-in formats are added when the CLI is built, the
    plugins' when `export` runs (or its help is asked with a plugin's format named), so no
    command's `--help` reads the installed distributions' metadata (`recallbench list
    export-formats` lists the plugins' formats)."""

    _pending: bool = False

    def parse_known_args(self, args: Any = None, namespace: Any = None) -> Any:
        given = list(args or [])
        help_only = bool({"-h", "--help"} & set(given))
        if self._pending and (not help_only or _named_format(given) not in (None, *BUILTIN_NAMES)):
            from recallbench.export.formats import export_formats

            self._pending = False
            _add_formats(self, [row for row in export_formats() if row.name not in BUILTIN_NAMES])
        return super().parse_known_args(args, namespace)


def _named_format(args: list[str]) -> str | None:
    """The value given to --dataset-format (or --format, either spelling) in ``args``."""
    for i, arg in enumerate(args):
        name, eq, value = arg.partition("=")
        if name.replace("_", "-") in (FLAG, "--format"):
            return value if eq else (args[i + 1] if i + 1 < len(args) else None)
    return None


def _add_formats(p: argparse.ArgumentParser, rows: list[ExportFormat]) -> None:
    """Offer ``rows`` as dataset formats: their names as choices, their flags in a group each."""
    from typing import cast

    from recallbench.cli.options import add_benchmark_options

    for action in p._actions:
        if action.dest in ("dataset_format", "format_alias") and action.choices is not None:
            cast(list, action.choices).extend(row.name for row in rows)
            if action.dest == "dataset_format":
                action.help = (action.help or "") + "".join(f"; {r.name}: {r.doc}" for r in rows)
    for row in rows:  # each format's own flags, in a group of its own
        group = p.add_argument_group(f"{FLAG} {row.name}")
        add_benchmark_options(cast(argparse.ArgumentParser, group), row.options)


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
    p.add_argument(FLAG, dest="dataset_format", choices=[], default=None,
                   help="the dataset to write (required)")
    p.add_argument("--format", dest="format_alias", choices=[], default=None,
                   help=argparse.SUPPRESS)  # deprecated: --format names a table elsewhere
    p.add_argument("--out", required=True,
                   help="dataset folder: new, empty or an earlier export (reruns resume it); "
                   "never the suite, inside it or around it")
    p.add_argument("--exclude", action="append", default=[], metavar="SUITE",
                   help="an evaluation suite (or export) no exported day may overlap "
                   "(repeatable)")
    p.add_argument("--workers", type=positive_int, default=None,
                   help="worker processes (default: one per core)")
    add_execution_options(p)
    _add_formats(p, list(BUILTIN))
    p.__class__ = _ExportParser
    p._pending = True  # type: ignore[attr-defined]
    p.set_defaults(func=_handle)


def dataset_format(args: argparse.Namespace) -> str:
    """``--dataset-format``, or the deprecated ``--format`` with one warning line."""
    from recallbench.errors import UsageError, print_problem
    from recallbench.export.formats import FLAG, export_formats

    if args.format_alias is not None:
        if args.dataset_format not in (None, args.format_alias):
            raise UsageError("--format", f"{args.format_alias} but {FLAG} "
                             f"{args.dataset_format}: give {FLAG} only")
        print_problem(f"export --format is deprecated (--format names a table format on other "
                      f"commands): use {FLAG} {args.format_alias}", prog="recallbench export")
        return str(args.format_alias)
    if args.dataset_format is None:
        raise UsageError(FLAG, "is required (one of: "
                         + ", ".join(row.name for row in export_formats()) + ")")
    return str(args.dataset_format)


def options_of(args: argparse.Namespace, name: str) -> dict:
    """Format ``name``'s options (recorded in export.json; a rerun must ask for the same):
    another format's flag is refused, the format's own are checked by its row."""
    from pathlib import Path

    from recallbench.cli.options import benchmark_values, typed_flag
    from recallbench.errors import UsageError
    from recallbench.export.formats import FLAG, export_formats, format_of

    row = format_of(name)
    for other in export_formats():
        for option in other.options if other is not row else ():
            typed = typed_flag(args, option.name)
            if typed:
                raise UsageError(typed, f"only with {FLAG} {other.name}")
    return row.options_of(benchmark_values(args, row.options), Path(args.out))


def _handle(args: argparse.Namespace) -> int:
    from recallbench.cli.execution import execution_settings, shard_of
    from recallbench.export.job import run_export
    from recallbench.export.outdir import check_out

    # never into or around a suite it reads; a new or empty folder, or an export (export.json)
    # that resumes: anything else is refused before work
    check_out(args.suite, args.out, args.exclude)
    name = dataset_format(args)
    options = options_of(args, name)
    return run_export(name, args.suite, args.out, options, exclude=args.exclude,
                      execution=execution_settings(args, args.workers or os.cpu_count() or 1),
                      shard=shard_of(args))
