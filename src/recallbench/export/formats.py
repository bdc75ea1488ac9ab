"""The dataset formats ``recallbench export --dataset-format`` writes, as one table (docs/export.md
keeps a generated copy): each row is one format, the suites it reads, its writer, its flags
(declared as the benchmarks' options are) and their check, what it needs installed and a doc
line. Everything that depends on a format reads it here.

Other packages add rows under the entry-point group ``recallbench.export_formats`` (value
``module:attr``, an ``ExportFormat``): a format is one module plus that one line. Rows name their
code as strings so this table imports nothing (datasets and lerobot are optional extras).
"""

from __future__ import annotations

import importlib
import importlib.util
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.benchmarks.options import Option
from recallbench.errors import InputError, UsageError
from recallbench.loader import load_attr, plugins

ENTRY_POINT_GROUP = "recallbench.export_formats"
FLAG = "--dataset-format"


@dataclass(frozen=True)
class ExportFormat:
    """One dataset format. ``writer`` is a module with ``export_day(suite, out, day, options)``
    (one day, in a worker), ``day_done(out, day)``, ``finish(out, days, options) -> counts``,
    ``DATASET`` (the names finish writes under the export folder) and, optionally,
    ``check_suite(suite, days)`` (refuses what it cannot export, before any work).

    ``options``: its own flags, declared as the benchmarks' options are (``--NAME``; a flag
    belongs to one format, and another format's flag given is refused). ``check``, as
    ``module:attr``: ``check(values, out) -> dict``, the options' values (by name) as the
    options export.json records, a one-line UsageError for a bad one, before any work.
    """

    name: str  # the --dataset-format value
    benchmark: str  # the suites it reads ("findingdory", "scenemem"); "any" for every one
    writer: str
    check: str
    doc: str  # one line for the table in docs/export.md
    options: tuple[Option, ...] = ()
    extra: str = ""  # the pip extra that installs what it imports ("" = none)
    needs: tuple[str, ...] = ()  # the modules it imports from that extra, checked before work

    def require(self) -> None:
        """Refuses, before any work, a format whose packages are not installed."""
        for module in self.needs:
            if importlib.util.find_spec(module) is None:
                raise UsageError(FLAG, f"{self.name} writes with {module}, which is not "
                                 f"installed: pip install 'recallbench[{self.extra}]' "
                                 "(docs/export.md)")

    def writer_module(self) -> Any:
        self.require()
        return importlib.import_module(self.writer)

    def options_of(self, values: dict[str, Any], out: Path) -> dict[str, Any]:
        """The options export.json records, from the values of the format's own flags."""
        self.require()  # its check may import its writer
        return dict(load_attr(self.check)(values, out))


BUILTIN: tuple[ExportFormat, ...] = (
    ExportFormat(
        name="findingdory-sft", benchmark="findingdory",
        writer="recallbench.export.findingdory_sft",
        check="recallbench.export.format_options:sft_options",
        doc="the rows FindingDory's trainer reads (HF datasets: parquet splits, videos, card)",
        options=(
            Option("frames", f"frames of each video (default {DEFAULT_FRAMES})", type=int),
            Option("full_length", "every frame of the day instead of --frames", kind="flag",
                   default=False),
            Option("val_fraction", "share of days in the validation split (default 0.05; at "
                   "least one day when the suite has two; 0: no validation split)",
                   type=float),
        ),
        extra="export", needs=("datasets",),
    ),
    ExportFormat(
        name="lerobot", benchmark="any",
        writer="recallbench.export.lerobot_format",
        check="recallbench.export.format_options:lerobot_options",
        doc="a LeRobotDataset v3 of the days and, from SceneMem suites, the oracle's probe "
            "episodes",
        options=(
            Option("no_probes", "SceneMem: the days only, without the oracle's probe episodes",
                   kind="flag", default=False),
            Option("repo_id", "the dataset's repo id (default: recallbench/<out folder>)"),
        ),
        extra="lerobot", needs=("lerobot",),
    ),
)


@cache
def _plugins() -> tuple[ExportFormat, ...]:
    found: list[ExportFormat] = []
    taken = {row.name for row in BUILTIN}
    flags = {o.name for row in BUILTIN for o in row.options}
    for where, row in plugins(ENTRY_POINT_GROUP, ExportFormat):
        if row.name in taken:  # never shadows another
            raise InputError(where, ENTRY_POINT_GROUP, f"format {row.name!r} is already taken")
        clash = sorted(flags & {o.name for o in row.options})
        if clash:  # a flag belongs to one format
            raise InputError(where, ENTRY_POINT_GROUP, f"option {clash[0]!r} is already taken")
        taken.add(row.name)
        flags |= {o.name for o in row.options}
        found.append(row)
    return tuple(found)


def export_formats() -> tuple[ExportFormat, ...]:
    """Every row: the built-ins, then the entry points' (scanned on first use)."""
    return (*BUILTIN, *_plugins())


def format_of(name: str) -> ExportFormat:
    """The row named ``name``; a UsageError naming the known ones otherwise."""
    for row in BUILTIN:
        if row.name == name:
            return row
    for row in _plugins():
        if row.name == name:
            return row
    known = sorted(row.name for row in export_formats())
    raise UsageError(FLAG, f"must be one of {known}, got {name!r}")


def table(rows: Iterable[ExportFormat] | None = None) -> str:
    """The formats (default: all) as a Markdown table; docs/export.md holds the built-ins'
    (a test keeps it so)."""
    lines = [f"| `{FLAG}` | reads | extra | what it writes |", "|---|---|---|---|"]
    for row in export_formats() if rows is None else rows:
        extra = f"`.[{row.extra}]`" if row.extra else "-"
        reads = "every suite" if row.benchmark == "any" else f"{row.benchmark} suites"
        lines.append(f"| `{row.name}` | {reads} | {extra} | {row.doc} |")
    return "\n".join(lines) + "\n"
