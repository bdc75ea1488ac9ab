"""The case viewer of a 10,000-case run: build time, open time and JS heap in Chromium.

A small real FindingDory run (a generated one-episode suite, the random agent) is replicated to
10,000 cases: the suite's questions and the run's records are copied under new ids, over the
same episode and video, so the thumbnails are the real run's. Then:

- build: ``recallbench view`` of the big run, cold (thumbnails decoded) and warm (reused);
- open: the viewer from disk (file://) in headless Chromium, from navigation to the overview
  drawn; then the case list, a filter over every case, and one case page;
- heap: the JS heap Chromium reports (CDP Performance.getMetrics JSHeapUsedSize) after each.

Targets (issue 16): open < 2 s, JS heap < 50 MB. Raw limit measured in the same run: opening an
empty local page in the same browser.

    .venv/bin/python bench/bench_viewer.py [--cases 10000] [--run EXISTING_FINDINGDORY_RUN]

Needs Debian's chromium (/usr/bin/chromium) and the playwright package (no browser download).
"""

from __future__ import annotations

import argparse
import json
import shutil
import tempfile
import time
from pathlib import Path

from recallbench.cli import main as cli
from recallbench.io import write_json_atomic
from recallbench.report.viewer.site import build_viewer
from recallbench.run.manifest import read_manifest, write_manifest
from recallbench.run.runlog import completed

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]
KNOBS = {"interactions": 3, "steps": 1200, "rooms": 1, "width": 120, "height": 160,
         "subsample": 48, "distractors": 4}


def small_real_run(work: Path) -> Path:
    """A one-episode generated suite and the random agent's run over it (K = 48)."""
    from recallbench.generate.findingdory_knobs import FindingDoryKnobs
    from recallbench.generate.suite import run_suite

    suite, run = work / "suite", work / "run"
    if run_suite("findingdory", suite, 1, 0, FindingDoryKnobs(**KNOBS).to_dict(), 1) != 0:
        raise SystemExit("could not generate the small suite")
    assert cli(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "48",
                "--out", str(run)]) == 0
    return run


def replicate(run: Path, n_cases: int, work: Path) -> Path:
    """The run's suite and records copied under new ids until there are ``n_cases`` cases."""
    manifest = read_manifest(run)
    src = Path(manifest["data"])
    suite = work / "big_suite"
    suite.mkdir(parents=True)
    for name in ("videos", "episodes"):
        if (src / name).exists():
            (suite / name).symlink_to((src / name).resolve())
    rows = json.loads((src / "qa.json").read_text())
    records = completed(run / "runlog.jsonl")
    rows = [r for r in rows if str(r["id"]) in records]
    big_rows, big_records = [], []
    for i in range(n_cases):
        row = rows[i % len(rows)]
        new_id = f"{row['id']}-r{i // len(rows)}"
        big_rows.append({**row, "id": new_id})
        big_records.append({**records[str(row["id"])], "key": new_id})
    write_json_atomic(suite / "qa.json", big_rows)
    big = work / "big_run"
    big.mkdir()
    with open(big / "runlog.jsonl", "w") as f:
        f.writelines(json.dumps(r) + "\n" for r in big_records)
    from recallbench.benchmarks.findingdory.data import load_suite

    write_manifest(big, {**manifest, "data": str(suite), "cases": n_cases,
                         "data_sha256": load_suite(suite).sha256})
    return big


def measure_browser(index: Path) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    out: dict[str, float] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        errors: list[str] = []
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        cdp = page.context.new_cdp_session(page)
        cdp.send("Performance.enable")

        def heap_mb() -> float:
            cdp.send("HeapProfiler.collectGarbage")
            metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
            return metrics["JSHeapUsedSize"] / 1e6

        blank = index.parent / "blank.html"
        blank.write_text("<!doctype html><title>blank</title><body></body>")
        t0 = time.perf_counter()
        page.goto(blank.as_uri())
        page.wait_for_load_state("load")
        out["raw_open_s"] = time.perf_counter() - t0
        out["raw_heap_mb"] = heap_mb()

        t0 = time.perf_counter()
        page.goto(index.as_uri())
        page.wait_for_function("document.body.dataset.ready === 'overview'", timeout=60000)
        out["open_s"] = time.perf_counter() - t0
        out["open_heap_mb"] = heap_mb()

        def timed_route(route: str, ready: str) -> float:
            page.evaluate("delete document.body.dataset.ready")
            t = time.perf_counter()
            page.evaluate(f"location.hash = {json.dumps(route)}")
            page.wait_for_function(f"document.body.dataset.ready === {json.dumps(ready)}",
                                   timeout=60000)
            return time.perf_counter() - t

        out["cases_s"] = timed_route("cases", "cases")
        out["filter_all_s"] = timed_route("cases?success=failure&q=receptacle", "cases")
        out["case_page_s"] = timed_route("case/9999", "case/9999")
        out["compare_s"] = timed_route("compare", "compare")
        out["after_browsing_heap_mb"] = heap_mb()
        out["console_errors"] = float(len(errors))
        browser.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--run", type=Path, default=None, help="a FindingDory run to replicate")
    parser.add_argument("--work", type=Path, default=None, help="keep files here")
    args = parser.parse_args()
    work = args.work or Path(tempfile.mkdtemp(prefix="bench_viewer_"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        run = args.run or small_real_run(work)
        print(f"small real run: {len(completed(run / 'runlog.jsonl'))} cases "
              f"({time.perf_counter() - t0:.1f} s)")
        big = replicate(run, args.cases, work)
        t0 = time.perf_counter()
        index = build_viewer(big)
        cold = time.perf_counter() - t0
        t0 = time.perf_counter()
        build_viewer(big)
        warm = time.perf_counter() - t0
        size = sum(p.stat().st_size for p in index.parent.rglob("*") if p.is_file()) / 1e6
        n_thumbs = len(list((index.parent / "thumbs").rglob("*.jpg")))
        print(f"build {args.cases} cases: cold {cold:.1f} s, warm {warm:.1f} s (thumbnails "
              f"reused); viewer {size:.1f} MB on disk, {n_thumbs} thumbnail files")
        m = measure_browser(index)
        print(f"raw limit (empty local page): open {m['raw_open_s'] * 1000:.0f} ms, "
              f"JS heap {m['raw_heap_mb']:.1f} MB")
        print(f"open overview: {m['open_s'] * 1000:.0f} ms (target < 2000; "
              f"{m['open_s'] / m['raw_open_s']:.1f}x the empty page), JS heap "
              f"{m['open_heap_mb']:.1f} MB (target < 50)")
        print(f"case list {m['cases_s'] * 1000:.0f} ms, filter over all cases "
              f"{m['filter_all_s'] * 1000:.0f} ms, a case page {m['case_page_s'] * 1000:.0f} ms, "
              f"comparison {m['compare_s'] * 1000:.0f} ms; JS heap after browsing "
              f"{m['after_browsing_heap_mb']:.1f} MB (target < 50); console errors "
              f"{int(m['console_errors'])}")
        ok = m["open_s"] < 2 and max(m["open_heap_mb"], m["after_browsing_heap_mb"]) < 50
        print("targets met" if ok else "TARGETS MISSED")
    finally:
        if args.work is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
