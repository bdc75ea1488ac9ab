"""The viewer shows a generated day's contact sheets on its FindingDory case pages
(report/viewer/sheets.py): copied beside the pages, linked from every case of that day, drawn
in a real browser; a suite without sheets (older suites, the public QA) shows none, no error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from recallbench.cli import main
from support.browser import BROWSER_ARGS, CHROMIUM, browser_api
from support.findingdory_suite import build_suite

SHEET_NAMES = {"frames": "sheet_frames.jpg", "targets": "sheet_targets.jpg"}


def _run(suite: Path, out: Path) -> Path:
    assert main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                 "--out", str(out), "--limit", "2"]) == 0
    assert main(["view", str(out)]) == 0
    return out


def _details(run: Path) -> list[dict]:
    text = (run / "viewer" / "data" / "cases-000.js").read_text()
    return [c["detail"] for c in json.loads(text[text.find(",") + 1:text.rfind(")")])]


@pytest.fixture(scope="module")
def generated_run(findingdory_generated_suite: Path, tmp_path_factory) -> Path:
    return _run(findingdory_generated_suite, tmp_path_factory.mktemp("sheets") / "run")


def test_each_case_of_a_generated_day_links_its_sheets(generated_run, findingdory_generated_suite):
    details = _details(generated_run)
    assert details
    ep = findingdory_generated_suite / "episodes" / "ep_0"
    for d in details:
        assert set(d["sheets"]) == {"frames", "targets"}
        for kind, url in d["sheets"].items():
            copied = generated_run / "viewer" / url
            assert not Path(url).is_absolute() and url.startswith("sheets/")
            assert copied.read_bytes() == (ep / SHEET_NAMES[kind]).read_bytes()


def test_a_suite_without_sheets_shows_none(tmp_path):
    run = _run(build_suite(tmp_path / "suite"), tmp_path / "run")
    assert all(d["sheets"] is None for d in _details(run))
    assert not (run / "viewer" / "sheets").exists()


@pytest.mark.slow
def test_the_case_page_draws_the_sheets_in_chromium(generated_run, tmp_path):
    sync_api = browser_api()
    errors: list[str] = []
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        page = browser.new_page(viewport={"width": 1300, "height": 900})
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on("requestfailed", lambda r: errors.append(f"failed {r.url}"))
        page.goto((generated_run / "viewer" / "index.html").as_uri() + "#case/0")
        page.wait_for_function("document.body.dataset.ready === 'case/0'")
        images = page.locator("#sheets img")
        assert images.count() == 2
        for i in range(2):
            images.nth(i).scroll_into_view_if_needed()
        page.wait_for_function("[...document.querySelectorAll('#sheets img')]"
                               ".every(i => i.complete && i.naturalWidth > 0)")
        page.locator("#sheets").screenshot(path=str(tmp_path / "sheets.png"))
        browser.close()
    assert not errors


def test_a_sheet_linked_outside_the_suite_is_not_copied(findingdory_generated_suite, tmp_path):
    import shutil

    suite = tmp_path / "suite"
    shutil.copytree(findingdory_generated_suite, suite, symlinks=True)
    secret = tmp_path / "secret.jpg"
    secret.write_bytes(b"not the suite's")
    sheet = suite / "episodes" / "ep_0" / SHEET_NAMES["targets"]
    sheet.unlink()
    sheet.symlink_to(secret)
    run = _run(suite, tmp_path / "run")
    assert all(set(d["sheets"]) == {"frames"} for d in _details(run))
    assert b"not the suite's" not in b"".join(
        p.read_bytes() for p in (run / "viewer" / "sheets").iterdir())
