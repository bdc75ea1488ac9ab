"""`recallbench view`: the case viewer of a small real comparison (both benchmarks, real runners,
real videos), the SceneMem per-step trace it draws, report.html's added sections, `--serve`'s
refresh from the run log, and (headless Chromium) the pages themselves."""

from __future__ import annotations

import json
import shutil
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from recallbench.benchmarks.scenemem.trace import MAX_SAMPLES, TRACE_VERSION
from recallbench.cli import main
from recallbench.report.viewer.serve import serve
from recallbench.report.viewer.site import build_viewer, read_overview
from recallbench.run.runlog import completed
from support.browser import BROWSER_ARGS, CHROMIUM, browser_api
from support.viewer_runs import small_comparison


@pytest.fixture(scope="module")
def cmp_dir(tmp_path_factory) -> Path:
    return small_comparison(tmp_path_factory.mktemp("viewer"))


def _records(run_dir: Path) -> dict[str, dict]:
    return completed(run_dir / "runlog.jsonl")


def _chunk(path: Path) -> object:
    text = path.read_text()
    return json.loads(text[text.index(",") + 1:text.rindex(")")])


@pytest.mark.slow
def test_scenemem_runs_record_a_per_step_trace(cmp_dir):
    records = _records(cmp_dir / "scenemem" / "blind" / "run")
    assert records
    for rec in records.values():
        tr = rec["trace"]
        assert tr["version"] == TRACE_VERSION
        assert tr["step"][0] == 0 and tr["step"][-1] == rec["steps"]
        assert len(tr["step"]) <= MAX_SAMPLES + 1
        assert len(tr["step"]) == len(tr["base"]) == len(tr["distance"])
        # the recorded minimum is the trace's minimum (the trace thins only beyond MAX_SAMPLES)
        if rec["steps"] < MAX_SAMPLES:
            assert min(tr["distance"]) == pytest.approx(rec["min_distance"], abs=1e-3)
            assert max(abs(q) for col in tr["qpos"] for q in col) == \
                pytest.approx(rec["max_abs_qpos"], abs=1e-3)
        assert tr["joints"] and len(tr["qpos"]) == len(tr["joints"])
        assert tr["target"] == rec["fixture"] and tr["target"] in tr["fixtures"]
        assert all(b[0] is not None for b in tr["base"])  # the kitchen has the card's base body
        (room,) = tr["rooms"]  # the built-in kitchen: one room, the map's floor plan
        x0, y0, x1, y1 = room["bounds"]
        assert all(x0 <= x <= x1 and y0 <= y <= y1 for x, y, _ in tr["base"])


@pytest.mark.slow
def test_run_writes_the_viewer_with_thumbnail_files_and_links_it(cmp_dir):
    viewer = cmp_dir / "viewer"
    assert (viewer / "index.html").is_file()
    overview = read_overview(viewer)
    assert set(overview["benchmarks"]) == {"scenemem", "findingdory"}
    assert overview["n_cases"] == sum(len(_records(cmp_dir / a["run_dir"])) for b in json.loads(
        (cmp_dir / "comparison.json").read_text())["benchmarks"].values() for a in b["agents"])
    thumbs = list((viewer / "thumbs").rglob("*.jpg"))
    assert len(thumbs) > 20
    for data in (viewer / "data").glob("*.js"):
        assert "data:image" not in data.read_text()  # images are files, never inlined
    report = (cmp_dir / "report.html").read_text()
    assert "viewer/index.html" in report and "McNemar" in report
    assert "by object category" in report and "Gain over the memoryless baseline" in report


@pytest.mark.slow
def test_a_second_view_reuses_every_thumbnail(cmp_dir, capsys):
    thumbs = {p: p.stat().st_mtime_ns for p in (cmp_dir / "viewer" / "thumbs").rglob("*.jpg")}
    assert main(["view", str(cmp_dir)]) == 0
    captured = capsys.readouterr()
    assert "thumbnails:" not in captured.err  # nothing decoded again
    assert f"viewer: {cmp_dir / 'viewer' / 'index.html'}" in captured.out
    assert {p: p.stat().st_mtime_ns for p in thumbs} == thumbs


@pytest.mark.slow
def test_paired_tests_and_gains_use_the_same_cases(cmp_dir):
    fd = read_overview(cmp_dir / "viewer")["benchmarks"]["findingdory"]
    paired = fd["paired"]
    assert "McNemar" in paired["test"] and paired["baseline"] == "blind"
    pair = next(p for p in paired["pairs"] if (p["a"], p["b"]) == ("oracle", "blind"))
    oracle = {k for k in _records(cmp_dir / "findingdory" / "oracle")}
    assert pair["n"] == len(oracle)
    assert pair["mean_a"] == pytest.approx(fd["agents"]["oracle"]["metrics"]["hl_sr"]["value"])
    assert pair["lo"] <= pair["diff"] <= pair["hi"] and 0 <= pair["p"] <= 1
    # gains are for memory agents only (issue 24): oracle is privileged, random random
    assert paired["gains"] == []


@pytest.mark.slow
def test_view_of_one_run_and_of_an_older_run_without_traces(cmp_dir, tmp_path):
    old = tmp_path / "old_run"
    shutil.copytree(cmp_dir / "scenemem" / "blind" / "run", old)
    lines = [json.loads(line) for line in (old / "runlog.jsonl").read_text().splitlines()]
    (old / "runlog.jsonl").write_text("".join(
        json.dumps({k: v for k, v in r.items() if k != "trace"}) + "\n" for r in lines))
    index = build_viewer(old)
    overview = read_overview(index.parent)
    assert overview["kind"] == "run" and overview["n_cases"] == len(lines)
    details = _chunk(index.parent / "data" / "cases-000.js")
    assert all(d["detail"]["trace"] is None for d in details)
    assert all(d["detail"]["strips"] for d in details)  # what it has is still shown


def test_view_names_a_folder_that_is_no_run(tmp_path, capsys):
    assert main(["view", str(tmp_path)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(tmp_path) in err and "manifest.json" in err


@pytest.mark.slow
def test_serve_refreshes_from_the_run_log(cmp_dir, tmp_path):
    run = tmp_path / "live_run"
    shutil.copytree(cmp_dir / "findingdory" / "random", run)
    shutil.rmtree(run / "viewer", ignore_errors=True)
    log = run / "runlog.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:-3]))  # a run in progress: three cases still to come
    index = build_viewer(run, live=True)
    ready, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=serve, args=(run, index.parent, 0),
                              kwargs={"ready": ready, "stop": stop}, daemon=True)
    thread.start()
    try:
        assert ready.wait(10)
        base = f"http://127.0.0.1:{ready.port}/"

        def stamp() -> dict:
            with urllib.request.urlopen(base + "data/stamp.json", timeout=5) as r:
                return json.loads(r.read())

        with urllib.request.urlopen(base + "index.html", timeout=5) as r:
            assert b"viewer.js" in r.read()
        assert stamp()["n_cases"] == len(lines) - 3
        with open(log, "a") as f:
            f.writelines(lines[-3:])
        deadline = time.time() + 15
        while stamp()["n_cases"] != len(lines) and time.time() < deadline:
            time.sleep(0.3)
        assert stamp()["n_cases"] == len(lines)
    finally:
        stop.set()
        thread.join(10)


# ------------------------------------------------------------------------------ in a browser
@pytest.mark.slow
def test_viewer_in_chromium(cmp_dir, tmp_path):
    """Overview, a filter, a failing case of each benchmark with its frames; no console error.
    Screenshots of every page land in tmp_path/shots for a human to look at."""
    sync_api = browser_api()
    shots = tmp_path / "shots"
    shots.mkdir()
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"failed {r.url}"))

        def show(route: str, shot: str) -> None:
            page.evaluate("delete document.body.dataset.ready")
            page.evaluate(f"location.hash = {json.dumps(route)}")
            ready = json.dumps(route.split("?")[0])
            page.wait_for_function(f"document.body.dataset.ready === {ready}")
            page.screenshot(path=str(shots / f"{shot}.png"), full_page=True)

        page.goto((cmp_dir / "viewer" / "index.html").as_uri())
        page.wait_for_function("document.body.dataset.ready === 'overview'")
        page.screenshot(path=str(shots / "overview.png"), full_page=True)
        text = page.inner_text("main")
        assert "SceneMem" in text and "FindingDory" in text and "privileged" in text
        for route in ("breakdowns", "compare"):
            show(route, route)
        assert page.locator("table.matrix a").count() > 0

        show("cases", "cases")
        total = int(page.inner_text("#count").split()[0])
        page.select_option("select[data-f=bench]", "findingdory")
        page.wait_for_function("location.hash.includes('bench=findingdory')")
        page.wait_for_function("document.body.dataset.ready === 'cases'")
        page.select_option("select[data-f=success]", "failure")
        page.wait_for_function("location.hash.includes('success=failure')")
        page.wait_for_function("document.body.dataset.ready === 'cases' && "
                               "document.querySelector('#filters select[data-f=success]')"
                               ".value === 'failure'")
        page.screenshot(path=str(shots / "cases_filtered.png"), full_page=True)
        filtered = int(page.inner_text("#count").split()[0])
        assert 0 < filtered < total
        cells = page.locator("#cases tbody tr td").all_inner_texts()
        assert set(cells[0::8]) == {"findingdory"} and set(cells[5::8]) == {"fail"}

        # a failing FindingDory case: the valid and the chosen frames are shown, as images
        # (the first failure with a valid frame offered: some questions have none)
        refs = page.evaluate("[...document.querySelectorAll('#cases tbody tr')]"
                             ".map(tr => tr.dataset.ref)")
        for ref in refs:
            show(f"case/{ref}", "case_findingdory")
            if page.locator("#timeline .cell.valid").count():
                break
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(shots / "case_findingdory.png"), full_page=True)
        assert page.locator("#timeline .cell.valid").count() > 0
        assert page.inner_text("h1").startswith("FindingDory case")  # its declared title
        assert page.locator("#timeline .cell.chosen").count() >= 1
        assert page.locator("#outcome.bad").count() == 1
        pair_imgs = page.locator("#pairs img")
        assert pair_imgs.count() >= 2
        assert page.evaluate("[...document.querySelectorAll('#pairs img, #timeline img')]"
                             ".every(i => i.complete && i.naturalWidth > 0)")
        assert page.locator("#pairs img.chosen").count() >= 1
        assert page.locator("#pairs img.valid").count() >= 1
        assert page.locator("svg#map polyline").count() == 1  # the episode's recorded path

        # a failing SceneMem case: camera strips, map and signals against the thresholds
        show("cases?bench=scenemem&success=failure", "cases_scenemem_failures")
        assert page.locator("#cases tbody tr").count() > 0
        page.locator("#cases tbody tr").first.click()
        page.wait_for_function("document.body.dataset.ready.startsWith('case/')")
        page.wait_for_load_state("networkidle")
        page.screenshot(path=str(shots / "case_scenemem.png"), full_page=True)
        assert "Show me where" in page.inner_text("#instruction")
        assert page.inner_text("h1").startswith("SceneMem case")
        assert page.locator(".cam img").count() >= 3
        assert page.evaluate("[...document.querySelectorAll('.cam img')]"
                             ".every(i => i.complete && i.naturalWidth > 0)")
        assert page.locator("svg#map polyline").count() == 1
        assert page.locator("svg#map rect.room").count() == 1  # the kitchen's floor plan
        assert page.locator("svg#distance polyline").count() == 1
        assert "approach 1.2" in page.locator("svg#distance").text_content()
        browser.close()
    assert errors == []


@pytest.mark.slow
def test_a_served_page_follows_a_run_in_progress(cmp_dir, tmp_path):
    """--serve: an open page reloads itself when the run log grows (a file:// page would not)."""
    sync_api = browser_api()
    run = tmp_path / "live_run"
    shutil.copytree(cmp_dir / "findingdory" / "blind", run)
    shutil.rmtree(run / "viewer", ignore_errors=True)
    log = run / "runlog.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    log.write_text("".join(lines[:2]))
    index = build_viewer(run, live=True)
    ready, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=serve, args=(run, index.parent, 0),
                              kwargs={"ready": ready, "stop": stop}, daemon=True)
    thread.start()
    errors: list[str] = []
    try:
        assert ready.wait(10)
        with sync_api.sync_playwright() as p:
            browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
            page = browser.new_page()
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.goto(f"http://127.0.0.1:{ready.port}/index.html#cases")
            page.wait_for_function("document.body.dataset.ready === 'cases'")
            assert page.inner_text("#count") == "2 cases"
            with open(log, "a") as f:
                f.writelines(lines[2:])
            page.wait_for_function(f"document.querySelector('#count') && document.querySelector("
                                   f"'#count').textContent === '{len(lines)} cases'",
                                   timeout=20000)
            assert "live" in page.inner_text("#status")
            browser.close()
    finally:
        stop.set()
        thread.join(10)
    assert errors == []


def test_pages_name_no_absolute_path_of_this_machine(cmp_dir):
    """report.html and every viewer file name the suite, run folders and videos relative to the
    page, never by this machine's absolute paths (a moved or published report says nothing about
    where it was made, and its links still work)."""
    roots = {str(cmp_dir.parent), str(cmp_dir.parent.resolve())}
    viewer = cmp_dir / "viewer"
    for page in [cmp_dir / "report.html", *viewer.glob("*.html"), *viewer.rglob("*.js")]:
        text = page.read_text()
        assert not [r for r in roots if r in text], page
    assert "suite ../suite " in (cmp_dir / "report.html").read_text()
    overview = read_overview(viewer)
    assert overview["suite"] == "../../suite" and overview["name"] == "cmp"
