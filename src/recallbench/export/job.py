"""``recallbench export``'s machinery, shared by every format: days as units of work on the one
executor (local processes or Ray), shards, resume, the leakage check and ``export.json``.

Each format is a row of ``export.formats`` (plugins included): which benchmark's suites it reads
and its writer, which exports one day (in a worker), says whether a day is done, and turns the
finished days into the dataset (``finish``, run by the process that sees every day done, as
``generate`` writes its index files). Shards write into
the same folder (``--shard i/N`` picks days by name); the final run without ``--shard`` finds
every day done and writes the dataset, so it is the same, byte for byte, as an unsharded export.
``export.json`` records the format, its options, the source suite, every exported day's
fingerprint and the suites it was checked against; it is written before the first day and marks
the folder as an export (``outdir``: where an export may write, its lock, what it may replace).
The suite is read as the runs read it (``sources``: its own regular files, the resolution cap).
"""

from __future__ import annotations

import importlib
import json
import os
import time
import traceback
from pathlib import Path
from typing import Any

from rich.console import Console

from recallbench.console import progress as progress_bar
from recallbench.errors import InputError, UsageError, print_problem
from recallbench.executor import ExecutorSettings, Task, executor_for
from recallbench.export.formats import FLAG, format_of
from recallbench.export.leakage import EXPORT_FILE, Day, days_of, excluded_days, refuse_overlap
from recallbench.export.outdir import check_out, check_replaceable, export_lock
from recallbench.export.sources import check_suite_files
from recallbench.io import open_no_follow, read_json, write_json_atomic
from recallbench.versions import package_versions

WORKER_HANDLER = "recallbench.export.job:export_task"
TIMINGS_FILE = "timings.jsonl"


def export_task(args: tuple[str, str, str, str, dict[str, Any]]) -> dict[str, Any]:
    """The executor's task: one day of the writer module ``args[0]`` names (a worker imports
    the writer only, never scans the plugins); its failure is reported, never raised."""
    writer, suite, out, day, options = args
    start = time.process_time()
    try:
        info = importlib.import_module(writer).export_day(Path(suite), Path(out), day, options)
    except Exception as exc:  # reported per day; the export goes on
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()}
    return {"ok": True, "info": info, "cpu_seconds": time.process_time() - start}


def suite_benchmark(suite: Path) -> str:
    manifest = suite / "suite.json"
    if not manifest.is_file():
        raise InputError(suite, None, "not a generated suite (no suite.json)")
    data = read_json(manifest)
    return str(data.get("benchmark")) if isinstance(data, dict) else ""


def check_export_file(out: Path, record: dict[str, Any]) -> None:
    """A rerun (or another shard) must ask for the same export: format, options, suite."""
    path = out / EXPORT_FILE
    if not path.is_file():
        return
    old = read_json(path)
    if not isinstance(old, dict):
        raise InputError(path, None, "not an export record (a JSON object)")
    for key in ("format", "options", "suite"):
        if old.get(key) != record[key]:
            raise InputError(path, key, f"this export was made with {old.get(key)!r}; the "
                             f"command asks for {record[key]!r} (use another --out)")


def _complete(out: Path, names: list[str]) -> bool:
    """Already exported, with these very days (a suite that grew is exported again)."""
    path = out / EXPORT_FILE
    if not path.is_file():
        return False
    old = read_json(path)  # check_export_file read it already: an object
    return bool(old.get("complete")) and [d.get("name") for d in old.get("days", [])] == names


def _prepare(fmt: str, suite_dir: Path, out_dir: Path, exclude: list[str]
             ) -> tuple[Any, list[Day], dict[str, list[Day]], str]:
    """Every check before work: the format, where it writes, the suite's files, the leakage
    rule. Returns the format's writer module, the days, the excluded days and the benchmark."""
    row = format_of(fmt)
    check_out(suite_dir, out_dir, exclude)  # never into (or around) a suite it reads
    benchmark = suite_benchmark(suite_dir)
    if row.benchmark not in ("any", benchmark):
        raise UsageError(FLAG, f"{fmt} reads {row.benchmark} suites; "
                         f"{suite_dir} is a {benchmark} suite")
    module = row.writer_module()  # a missing optional package fails here, before any work
    days: list[Day] = days_of(suite_dir)
    if not days:
        raise InputError(suite_dir, None, "no complete day to export")
    check_suite_files(suite_dir, [name for name, _ in days])
    check = getattr(module, "check_suite", None)
    if check is not None:  # what a format cannot export is refused before any work
        check(suite_dir, [name for name, _ in days])
    excluded = excluded_days(exclude)
    refuse_overlap(days, excluded)  # before any work: nothing is written for a leaking export
    return module, days, excluded, benchmark


def run_export(fmt: str, suite: str | Path, out: str | Path, options: dict[str, Any], *,
               exclude: list[str] | None = None, execution: ExecutorSettings | None = None,
               shard: Any = None, console: Console | None = None) -> int:
    """Export (or finish exporting) a suite. 0 when every day is exported, 1 if a day failed."""
    console = console or Console(stderr=True)
    suite_dir, out_dir = Path(suite).resolve(), Path(out).resolve()
    module, days, excluded, benchmark = _prepare(fmt, suite_dir, out_dir, exclude or [])
    record: dict[str, Any] = {"format": fmt, "options": options, "suite": str(suite_dir),
                              "benchmark": benchmark}
    names = [name for name, _ in days]
    with export_lock(out_dir, shared=shard is not None):  # the second export is refused here
        check_export_file(out_dir, record)
        if _complete(out_dir, names):
            console.print(f"{out_dir}: already exported ({fmt})", highlight=False)
            return 0
        written = _written(out_dir, module)
        record.update({"checked_against": {path: len(d) for path, d in excluded.items()},
                       "days": [{"name": name, "fingerprint": fp} for name, fp in days]})
        write_json_atomic(out_dir / EXPORT_FILE, {**record, "complete": False,
                                                  "written": written})
        pending = [d for d in names if not module.day_done(out_dir, d)
                   and (shard is None or shard.picks(d))]
        errors = _export_days(fmt, suite_dir, out_dir, pending, options,
                              execution or ExecutorSettings("local", 1), console)
        done = [d for d in names if module.day_done(out_dir, d)]
        for day, msg in sorted(errors.items()):
            print_problem(f"day {day}: {msg}", "error", console=console)
        if shard is not None:  # only the run without --shard writes the dataset: shards may
            # finish at the same moment, and the dataset is written once
            console.print(f"shard {shard}: {len(pending) - len(errors)} of {len(pending)} days "
                          "exported; when every shard is done, run without --shard to write "
                          "the dataset", highlight=False)
            return 1 if errors else 0
        if len(done) < len(names):
            print_problem(f"{len(names) - len(done)} of {len(names)} days not exported; rerun "
                          "to retry them", console=console)
            return 1
        counts = _finish(module, out_dir, names, options, {**record, "complete": False},
                         written)
        write_json_atomic(out_dir / EXPORT_FILE, {
            **record, "complete": True, "counts": counts, "written": list(module.DATASET),
            "packages": package_versions()})
    console.print(f"{len(names)} days exported to {out_dir} ({fmt}): {counts}",
                  highlight=False)
    return 1 if errors else 0


def _written(out_dir: Path, module: Any) -> list[str]:
    """What an earlier finish of this export wrote under ``out_dir`` (export.json's record;
    an export made before it was recorded wrote its format's dataset when complete)."""
    path = out_dir / EXPORT_FILE
    if not path.is_file():
        return []
    old = read_json(path)  # check_export_file read it already: an object
    if isinstance(old.get("written"), list):
        return [str(n) for n in old["written"]]
    return list(module.DATASET) if old.get("complete") else []


def _finish(module: Any, out_dir: Path, names: list[str], options: dict[str, Any],
            record: dict[str, Any], written: list[str]) -> dict[str, Any]:
    """The dataset from every day: it replaces only what this export wrote. Its names are
    recorded first, so a finish killed half way is replaced by the rerun's."""
    check_replaceable(out_dir, module.DATASET, written)
    write_json_atomic(out_dir / EXPORT_FILE, {**record, "written": list(module.DATASET)})
    return dict(module.finish(out_dir, names, options))


def _export_days(fmt: str, suite_dir: Path, out_dir: Path, pending: list[str],
                 options: dict[str, Any], execution: ExecutorSettings, console: Console
                 ) -> dict[str, str]:
    """The pending days on the executor; day -> error for those that failed."""
    writer = format_of(fmt).writer
    errors: dict[str, str] = {}
    if not pending:
        return errors
    progress = progress_bar(f"export {fmt}", console)
    with progress, executor_for(execution, WORKER_HANDLER) as executor:
        bar = progress.add_task("days", total=len(pending))
        for day in pending:
            executor.submit(Task(day, (writer, str(suite_dir), str(out_dir), day, options)))
        for result in executor.results():
            progress.update(bar, advance=1)
            res = result.value or {"ok": False, "error": result.error}
            if not res["ok"]:
                errors[result.key] = res["error"]
                continue
            line = json.dumps({"day": result.key, "cpu_seconds": res["cpu_seconds"],
                               "wall_seconds": result.wall_time}) + "\n"
            fd = open_no_follow(out_dir / TIMINGS_FILE, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
            with os.fdopen(fd, "a") as f:  # per-day cost, for sizing runs
                f.write(line)
    return errors
