"""An export format as a plugin (issue 39): ``--dataset-format day-list --note TEXT`` writes, per
day, the suite files that belong to it, and an index of the days. One module plus one entry-point
line (group ``recallbench.export_formats``, ``day-list = day_list_format:FORMAT``), nothing in
recallbench edited for it; the tests register it with a ``dist-info`` folder on PYTHONPATH."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from recallbench.benchmarks.options import Option
from recallbench.errors import UsageError
from recallbench.export.formats import ExportFormat

DAYS, INDEX = "days", "index.json"
DATASET = (INDEX,)  # what finish writes under the export folder


def check(values: dict[str, Any], out: Path) -> dict[str, Any]:
    if not values["note"]:
        raise UsageError("--note", "is required with --dataset-format day-list")
    return {"note": values["note"]}


def _record(out: Path, day: str) -> Path:
    return out / DAYS / f"{day}.json"


def export_day(suite: Path, out: Path, day: str, options: dict[str, Any]) -> dict[str, Any]:
    files = sorted(p.relative_to(suite).as_posix() for p in suite.rglob("*")
                   if p.is_file() and day in p.relative_to(suite).parts)
    _record(out, day).parent.mkdir(parents=True, exist_ok=True)
    _record(out, day).write_text(json.dumps({"day": day, "note": options["note"],
                                             "files": files}))
    return {"files": len(files)}


def day_done(out: Path, day: str) -> bool:
    return _record(out, day).is_file()


def finish(out: Path, days: list[str], options: dict[str, Any]) -> dict[str, Any]:
    (out / INDEX).write_text(json.dumps({"days": days, "note": options["note"]}))
    return {"days": len(days)}


FORMAT = ExportFormat(
    name="day-list", benchmark="any", writer="day_list_format",
    check="day_list_format:check", doc="a test format: each day's suite files, and an index",
    options=(Option("note", "a note every day's record carries"),),
)
