"""Write the static viewer of a run or a comparison: ``<folder>/viewer/``.

    index.html, viewer.js, viewer.css   the page (package data, copied as is)
    data/overview.js                    overview, breakdowns, paired tests, facets, chunk counts
    data/index-NNN.js                   the case list in chunks of INDEX_CHUNK rows (lazy)
    data/cases-NNN.js                   case details in chunks of CASE_CHUNK (loaded per page)
    data/matrix-<bench>-NNN.js          comparisons: per case, every agent's outcome
    data/stamp.json                     build time (``--serve`` pages poll it to refresh)
    thumbs/<video>/<frame>.jpg          thumbnails, made once and reused

Data files are JavaScript (``RB.put(name, value)``) rather than JSON so that the page works
from ``file://``, where browsers refuse to ``fetch`` local files but do load scripts.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib import resources
from pathlib import Path
from typing import Any, cast

from recallbench import __version__
from recallbench.benchmarks.registry import get_benchmark
from recallbench.errors import InputError, print_problem
from recallbench.io import read_json, write_text_atomic
from recallbench.loader import load_attr
from recallbench.report.paths import relative_paths
from recallbench.report.runs import finite, run_seed
from recallbench.report.viewer.overview import benchmark_overview
from recallbench.report.viewer.sources import (
    RunRef,
    Source,
    load_source,
    privileged_reason,
    run_kind,
)
from recallbench.report.viewer.thumbs import Thumbnailer

VIEWER_DIR = "viewer"
INDEX_CHUNK = 1000
CASE_CHUNK = 50
MATRIX_CHUNK = 500
STATIC = ("index.html", "viewer.js", "viewer.css")
MANIFEST_KEYS = ("recallbench", "python", "platform", "packages", "mujoco_gl", "started",
                 "frames", "scoring", "seed", "limit", "data", "data_sha256", "agent_manifest")


def case_reader(bench: str) -> Callable[..., Any]:
    """The benchmark's case pages reader (``Benchmark.case_reader``):
    ``run_cases(run_dir, agent, thumbs, shared)`` yields (row, detail) per recorded case."""
    name = get_benchmark(bench).case_reader
    if name is None:
        raise InputError("benchmark", None, f"{bench} declares no case pages for the viewer")
    return cast(Callable[..., Any], load_attr(name))


def _write(root: Path, path: Path, text: str) -> None:
    """Every file of the viewer: no folder between ``root`` and it may be a symlink."""
    write_text_atomic(path, text, root=root)


def _put(root: Path, path: Path, name: str, value: Any) -> None:
    value = relative_paths(value, path.parent.parent)  # data/ sits beside index.html
    try:
        body = json.dumps(value, separators=(",", ":"), allow_nan=False, default=str)
    except ValueError:  # a NaN or infinity in a hand-edited record: shown as null
        body = json.dumps(finite(value), separators=(",", ":"), allow_nan=False, default=str)
    _write(root, path, f"RB.put({json.dumps(name)},{body});\n")


def _rel(target: Path | None, start: Path) -> str | None:
    if target is None:
        return None
    return os.path.relpath(Path(target).resolve(), start.resolve())


def _agent_card(run: RunRef, out: Path) -> dict[str, Any]:
    m = run.manifest or {}
    return {
        "agent": run.agent, "benchmark": run.benchmark, "status": run.status, "note": run.note,
        "target": run.target, "privileged": privileged_reason(run), "run": _rel(run.run_dir, out),
        "manifest": {k: m[k] for k in MANIFEST_KEYS if k in m},
        "thresholds": (m.get("config") or {}).get("thresholds"),
        "max_steps": (m.get("config") or {}).get("max_steps"),
    }


def _warnings(source: Source, cases_by_run: dict[int, int], thumbs: Thumbnailer) -> list[str]:
    out = []
    for i, run in enumerate(source.runs):
        if run.status != "ok":
            out.append(f"{run.benchmark} {run.agent}: {run.status}: {run.note}")
            continue
        total = (run.manifest or {}).get("cases")
        got = cases_by_run.get(i, 0)
        if isinstance(total, int) and got < total:
            out.append(f"{run.benchmark} {run.agent}: {got} of {total} cases recorded "
                       "(run incomplete)")
        if run.run_dir is not None and (run.run_dir / "summary.json").is_file():
            summary = read_json(run.run_dir / "summary.json")
            errors = summary.get("scenario_errors") if isinstance(summary, dict) else None
            for name, msg in (errors if isinstance(errors, dict) else {}).items():
                out.append(f"{run.benchmark} {run.agent}: scenario {name} skipped: {msg}")
    for video, msg in thumbs.failed.items():
        out.append(f"no thumbnails for {video}: {msg}")
    return out


@dataclass
class _Cases:
    """Every recorded case of the source's runs, as the page's index rows and detail records."""

    rows: list[list[Any]] = field(default_factory=list)
    details: list[dict[str, Any]] = field(default_factory=list)
    by_bench: dict[str, list[tuple[dict, dict]]] = field(default_factory=dict)
    cases_by_run: dict[int, int] = field(default_factory=dict)
    shared: dict[str, Any] = field(default_factory=dict)  # data many cases point to, one file each


def build_viewer(path: str | Path, out: str | Path | None = None, *, live: bool = False,
                 progress: Callable[[str], None] | None = None) -> Path:
    """Write (or refresh) the viewer of a run or comparison folder; returns its index.html."""
    source = load_source(path)
    out = Path(out) if out else source.path / VIEWER_DIR
    root = writes_root(source.path, out)
    data = out / "data"
    for name in STATIC:
        text = resources.files("recallbench.report.viewer").joinpath("static", name).read_text()
        _write(root, out / name, text)
    thumbs = Thumbnailer(out, root)
    cases = _read_cases(source, thumbs)
    thumbs.make(progress)
    facts = cases.shared.pop("_facts", {})  # each benchmark's suite in numbers, for the overview
    _write_cases(root, data, cases)
    benchmarks = _benchmarks(root, data, source, cases, facts)
    written = datetime.now(timezone.utc).isoformat(timespec="seconds")
    overview = _overview(source, out, cases, thumbs, benchmarks, written, live)
    _put(root, data / "overview.js", "overview", overview)
    _write(root, data / "stamp.json", json.dumps({"written": written, "n_cases": len(cases.rows)}))
    return out / "index.html"


def _read_cases(source: Source, thumbs: Thumbnailer) -> _Cases:
    """Each ok run's cases through its benchmark's case reader (which queues thumbnails)."""
    cases = _Cases()
    rows = cases.rows
    for i, run in enumerate(source.runs):
        if run.status != "ok" or run.run_dir is None:
            continue
        for row, detail in case_reader(run.benchmark)(run.run_dir, run.agent, thumbs,
                                                      cases.shared):
            ref = len(rows)
            rows.append([ref, row["bench"], row["agent"], row["id"], row["category"],
                         row["group"], row["kind"], int(row["success"]), row["failure"],
                         row["text"]])
            cases.details.append({**row, "ref": ref, "detail": detail})
            cases.by_bench.setdefault(run.benchmark, []).append((row, detail))
            cases.cases_by_run[i] = cases.cases_by_run.get(i, 0) + 1
    return cases


def _write_cases(root: Path, data: Path, cases: _Cases) -> None:
    """The shared data files, the index in chunks of INDEX_CHUNK, details in CASE_CHUNK."""
    rows, details = cases.rows, cases.details
    for name, value in cases.shared.items():
        _put(root, data / f"{name}.js", name, value)  # names are file-name safe (path_name)
    for start in range(0, max(len(rows), 1), INDEX_CHUNK):
        _put(root, data / f"index-{start // INDEX_CHUNK:03d}.js",
             f"index-{start // INDEX_CHUNK:03d}", rows[start:start + INDEX_CHUNK])
    for start in range(0, len(details), CASE_CHUNK):
        name = f"cases-{start // CASE_CHUNK:03d}"
        _put(root, data / f"{name}.js", name, details[start:start + CASE_CHUNK])


def _benchmarks(root: Path, data: Path, source: Source, cases: _Cases,
                facts: dict[str, Any]) -> dict[str, Any]:
    """Each benchmark's overview block (writing its matrix files); an empty block for a
    benchmark with no recorded case."""
    benchmarks: dict[str, Any] = {}
    for bench, bench_cases in cases.by_bench.items():
        runs = [r for r in source.runs if r.benchmark == bench and r.status == "ok"]
        # the runs' own bootstrap seed, so the viewer's intervals equal `recallbench score`'s
        seed = run_seed(runs[0].manifest or {}) if runs else 0
        agents = [r.agent for r in runs]
        kinds = {r.agent: run_kind(r) for r in runs}
        benchmarks[bench] = benchmark_overview(bench, agents, bench_cases, seed=seed, kinds=kinds)
        benchmarks[bench]["matrix_chunks"] = _write_matrix(root, data, bench, agents, cases.rows)
        benchmarks[bench]["facts"] = facts.get(bench, {})
    for bench in {r.benchmark for r in source.runs} - set(benchmarks):
        benchmarks[bench] = {"title": bench, "agents": {}, "empty": True}
    return benchmarks


def _overview(source: Source, out: Path, cases: _Cases, thumbs: Thumbnailer,
              benchmarks: dict[str, Any], written: str, live: bool) -> dict[str, Any]:
    """data/overview.js's value: the source, its agents and benchmarks, facets, warnings."""
    rows = cases.rows
    suite = (source.comparison or {}).get("suite") or next(
        (str((r.manifest or {}).get("data") or (r.manifest or {}).get("config", {}).get(
            "data_dir")) for r in source.runs if r.manifest), None)
    return {
        "kind": source.kind, "source": str(source.path.resolve()), "written": written,
        "name": source.path.resolve().name,  # the heading (paths are relative to the page)
        "live": live, "viewer_version": __version__, "suite": suite,
        "options": (source.comparison or {}).get("options"),
        "suites": {b: blk.get("suite") for b, blk in
                   ((source.comparison or {}).get("benchmarks") or {}).items()},
        "agents": [_agent_card(r, out) for r in source.runs],
        "benchmarks": benchmarks,
        "n_cases": len(rows), "index_chunks": max(1, -(-len(rows) // INDEX_CHUNK)),
        "index_chunk": INDEX_CHUNK, "case_chunk": CASE_CHUNK, "matrix_chunk": MATRIX_CHUNK,
        "facets": {
            "bench": sorted({r[1] for r in rows}),
            "agent": list(dict.fromkeys(r[2] for r in rows)),
            "category": sorted({r[4] for r in rows}),
            "failure": sorted({r[8] for r in rows} - {""}),
        },
        "warnings": _warnings(source, cases.cases_by_run, thumbs),
        # a comparison writes its report.html right after its viewer
        "report": _rel(source.path / "report.html", out)
        if source.kind == "comparison" or (source.path / "report.html").is_file() else None,
    }


def writes_root(source: Path, out: Path) -> Path:
    """The folder the viewer's writes are confined to: the run or comparison folder when the
    viewer is inside it (a planted ``viewer`` or ``viewer/data`` symlink is refused), else the
    ``--out`` folder the user named."""
    try:
        out.relative_to(source)
    except ValueError:
        return out
    return source


def _write_matrix(root: Path, data: Path, bench: str, agents: list[str],
                  rows: list[list[Any]]) -> int:
    """Per case of ``bench``: [id, category, [ref or -1 per agent], [success per agent]]."""
    order: dict[str, list[Any]] = {}
    col = {a: i for i, a in enumerate(agents)}
    for ref, b, agent, case_id, category, *_rest in rows:
        if b != bench or agent not in col:
            continue
        entry = order.setdefault(case_id, [case_id, category, [-1] * len(agents),
                                           [None] * len(agents)])
        entry[2][col[agent]] = ref
        entry[3][col[agent]] = _rest[2]
    items = list(order.values())
    chunks = max(1, -(-len(items) // MATRIX_CHUNK))
    for k in range(chunks):
        name = f"matrix-{bench}-{k:03d}"
        _put(root, data / f"{name}.js", name, items[k * MATRIX_CHUNK:(k + 1) * MATRIX_CHUNK])
    return chunks


def read_overview(viewer: str | Path) -> dict[str, Any] | None:
    """The overview a build wrote (``data/overview.js``), or None when there is none."""
    path = Path(viewer) / "data" / "overview.js"
    if not path.is_file():
        return None
    text = path.read_text(encoding="utf-8")
    start, end = text.find(","), text.rfind(")")
    try:
        return json.loads(text[start + 1:end])
    except json.JSONDecodeError:
        return None


def try_build_viewer(path: str | Path, console: Any) -> Path | None:
    """Build the viewer after a comparison; a failure is a warning, never the comparison's."""
    try:
        return build_viewer(path)
    except Exception as exc:  # the tables and report.html must still be written
        print_problem(f"the case viewer was not written: {type(exc).__name__}: {exc}",
                      console=console)
        return None
