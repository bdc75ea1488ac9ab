"""`scenemem --overwrite` empties its run folder through the one ``clear_run_folder`` every
command's --overwrite uses: nothing an earlier run left there (a viewer, a worker log, any stale
file) survives, and nothing outside the run folder is touched."""

from __future__ import annotations

import json
from pathlib import Path

from support.fault_support import records
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy


def test_scenemem_overwrite_leaves_nothing_of_the_run_before(tmp_path: Path) -> None:
    from recallbench.cli import main

    data = tmp_path / "data"
    mini_scenario(data / "combo_001_L1_S1_0001", [mini_test("t0", "obj0", "drawer")])
    out = tmp_path / "r.json"
    run = tmp_path / "r_run"
    args = ["scenemem", "--data-dir", str(data), "--policy", policy("Idle"), "--env-factory",
            MINI_FACTORY, "--max-steps", "3", "--workers", "1", "--out", str(out)]
    assert main(args) == 0 and len(records(run)) == 1
    (run / "viewer").mkdir()  # what `view` and an earlier run left in the run folder
    (run / "viewer" / "index.html").write_text("<p>the run before</p>\n")
    (run / "stale.txt").write_text("from the run before\n")
    with open(run / "workers.log", "a") as log:
        log.write("STALE worker line\n")
    beside = tmp_path / "notes.txt"  # outside the run folder: never touched
    beside.write_text("mine\n")
    assert main([*args, "--overwrite"]) == 0
    left = sorted(p.name for p in run.iterdir())
    assert "viewer" not in left and "stale.txt" not in left, left
    log = run / "workers.log"  # written again only if a worker says something
    assert not log.exists() or "STALE" not in log.read_text(errors="replace")
    assert len(records(run)) == 1 and json.loads(out.read_text())
    assert beside.read_text() == "mine\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data", "notes.txt", "r.json", "r_run"]
