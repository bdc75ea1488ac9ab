"""Suite generation machinery shared by both benchmarks: parallel items, progress, resume.

Items (SceneMem scenarios, FindingDory episodes) are generated in worker processes, one per
core by default. Each item is deterministic in (suite seed, index, knobs) and is written
atomically (temp folder renamed when complete), so a rerun of the same command skips complete
items and redoes only what a kill interrupted. ``suite.json`` records the knobs, seed and package
versions (no clock, so two generations with the same seed write the same file); a rerun with
other knobs or another seed is refused, naming the field that differs.
"""

from __future__ import annotations

import json
import traceback
from pathlib import Path
from typing import Any

from rich.console import Console

from recallbench.console import progress as progress_bar
from recallbench.errors import InputError, UsageError, print_problem
from recallbench.executor import ExecutorSettings, Task, executor_for
from recallbench.generate.registry import generator
from recallbench.io import write_json_atomic

SUITE_FILE = "suite.json"


def item_complete(benchmark: str, out_dir: Path, index: int) -> bool:
    return generator(benchmark).item_summary(out_dir, index) is not None


def generate_item(benchmark: str, out_dir: str, index: int, seed: int,
                  knobs: dict[str, Any]) -> dict[str, Any]:
    """One item, in a worker process. Returns its summary (JSON-serialisable)."""
    return generator(benchmark).generate_item(Path(out_dir), index, seed, knobs)


WORKER_HANDLER = "recallbench.generate.suite:generate_task"


def generate_task(args: tuple[str, str, int, int, dict[str, Any]]) -> dict[str, Any]:
    """The executor's task: one item; its failure is reported, never raised."""
    try:
        return {"ok": True, "summary": generate_item(*args)}
    except Exception as exc:  # reported per item; the suite goes on
        return {"ok": False, "error": f"{type(exc).__name__}: {exc}",
                "traceback": traceback.format_exc()}


def check_suite_file(out_dir: Path, benchmark: str, seed: int, n: int,
                     knobs: dict[str, Any]) -> None:
    """A rerun must ask for the same suite: same benchmark, seed and knobs (n may grow)."""
    path = out_dir / SUITE_FILE
    if not path.is_file():
        return
    try:
        old = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise InputError(path, None, f"malformed JSON: {exc.msg}") from exc
    for name, value in (("benchmark", benchmark), ("seed", seed), ("knobs", knobs)):
        if old.get(name) != value:
            raise InputError(path, name, f"this suite was made with {old.get(name)!r}; "
                             f"the command asks for {value!r} (use another --out)")


def _summaries(benchmark: str, out_dir: Path, n: int) -> list[dict[str, Any]]:
    found = (generator(benchmark).item_summary(out_dir, i) for i in range(n))
    return [item for item in found if item is not None]


def write_suite_file(out_dir: Path, benchmark: str, seed: int, n: int,
                     knobs: dict[str, Any]) -> dict[str, Any]:
    items = _summaries(benchmark, out_dir, n)
    manifest = generator(benchmark).suite_manifest(out_dir, seed, n, knobs, items)
    write_json_atomic(out_dir / SUITE_FILE, manifest)
    return manifest


def run_suite(benchmark: str, out: str | Path, n: int, seed: int, knobs: dict[str, Any],
              workers: int, console: Console | None = None,
              execution: ExecutorSettings | None = None, shard: Any = None) -> int:
    """Generate (or finish) a suite. Exit status 0, 1 if an item failed, 2 on bad input.

    ``execution`` says where items are made (default ``workers`` local processes); ``shard``
    (a ``executor.shards.Shard``-like object with ``picks``) makes only its part of the items."""
    console = console or Console(stderr=True)
    execution = execution or ExecutorSettings("local", workers)
    generator(benchmark)  # one error naming it when it has no generator
    if n < 1:
        raise UsageError("--n", f"must be >= 1, got {n}")
    out_dir = Path(out).resolve()
    check_suite_file(out_dir, benchmark, seed, n, knobs)
    out_dir.mkdir(parents=True, exist_ok=True)
    write_suite_file(out_dir, benchmark, seed, n, knobs)
    pending = [i for i in range(n) if not item_complete(benchmark, out_dir, i)
               and (shard is None or shard.picks(f"item {i}"))]
    errors: dict[int, str] = {}
    progress = progress_bar(f"generate {benchmark}", console, detail=True)
    with progress:
        bar = progress.add_task("items", total=n, completed=n - len(pending), last="")
        if pending:
            # spawned workers: each starts clean (own GL context, no inherited simulator state)
            with executor_for(execution, WORKER_HANDLER) as executor:
                for i in pending:
                    executor.submit(Task(str(i), (benchmark, str(out_dir), i, seed, knobs)))
                for result in executor.results():
                    i = int(result.key)
                    res = result.value or {"ok": False, "error": result.error,
                                           "traceback": f"{result.error}\n"}
                    if res["ok"]:
                        last = f"{res['summary'].get('name', i)}"
                        (out_dir / f"error_{i}.txt").unlink(missing_ok=True)
                    else:
                        errors[i] = res["error"]
                        last = f"item {i} failed"
                        (out_dir / f"error_{i}.txt").write_text(res["traceback"])
                    progress.update(bar, advance=1, last=last[:50])
    generator(benchmark).finish(out_dir, knobs)
    manifest = write_suite_file(out_dir, benchmark, seed, n, knobs)
    for i, msg in sorted(errors.items()):
        print_problem(f"item {i}: {msg}", "error", console=console)
    done_n = len(manifest["items"])
    console.print(f"{done_n}/{n} {benchmark} items in {out_dir}")
    if errors:
        print_problem(f"{len(errors)} of {len(pending)} {benchmark} items failed (tracebacks "
                      f"in {out_dir}/error_*.txt); rerun to retry them", console=console)
    line = generator(benchmark).describe(manifest)
    if line:
        console.print(line)
    return 1 if errors else 0
