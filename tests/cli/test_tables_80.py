"""Every command that prints a table, run as a user runs it at COLUMNS=80 through a pipe (a CI
log): no line is wider than 80 columns, and the table is there (names first, nothing cut)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from rich.cells import cell_len

from support.viewer_runs import AGENTS, both_suites

pytestmark = pytest.mark.slow  # a real comparison of both benchmarks (MuJoCo) in the fixture

RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
WIDTH = 80


def recallbench(*args: str, cwd: Path) -> tuple[int, str]:
    """The CLI in a subprocess, stdout and stderr pipes, at COLUMNS=80: (status, all output)."""
    proc = subprocess.run([RECALLBENCH, *args], cwd=cwd, capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": str(WIDTH)}, timeout=300)
    return proc.returncode, proc.stdout + proc.stderr


@pytest.fixture(scope="module")
def work(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """Both small suites and `recallbench run` on them (its own output is walked too)."""
    root = tmp_path_factory.mktemp("tables80")
    both_suites(root / "suite")
    status, shown = recallbench("run", "--suite", "suite", "--agents", AGENTS, "--out", "cmp",
                                "--workers", "2", "--frames", "40", cwd=root)
    assert status == 0, shown
    return root, {"run": shown}


def _predictions(root: Path) -> str:
    """A predictions file for `findingdory score`, from the recorded answers of one run."""
    lines = [json.dumps({"id": r["key"], "frame_indices": r["frame_indices"],
                         "offered_frames": r["offered_frames"]})
             for r in map(json.loads, (root / "cmp/findingdory/random/runlog.jsonl").open())]
    (root / "preds.jsonl").write_text("\n".join(lines) + "\n")
    return "preds.jsonl"


def _merge(root: Path) -> list[str]:
    for i in (1, 2):
        status, shown = recallbench("findingdory", "--data", "suite/findingdory", "--agent",
                                    "recency", "--frames", "40", "--shard", f"{i}/2", "--out",
                                    f"shard{i}", cwd=root)
        assert status == 0, shown
    return ["merge", "shard1", "shard2", "--out", "merged"]


FD, SM = "cmp/findingdory", "cmp/scenemem"
# (command, the status it exits with on these runs, True when it prints a table)
COMMANDS: dict[str, tuple[Callable[[Path], list[str]], int, bool]] = {
    "list agents": (lambda r: ["list", "agents"], 0, True),
    "doctor": (lambda r: ["doctor"], 0, True),
    "report comparison": (lambda r: ["report", "cmp"], 0, True),
    "report findingdory": (lambda r: ["report", f"{FD}/oracle", "--by-template"], 0, True),
    "score findingdory": (lambda r: ["score", f"{FD}/random", "--scoring", "official"], 0, True),
    "report scenemem": (lambda r: ["report", f"{SM}/oracle/run"], 0, True),
    "score scenemem": (lambda r: ["score", f"{SM}/blind/run"], 0, True),
    "findingdory": (lambda r: ["findingdory", "--data", "suite/findingdory", "--agent",
                               "time-prior", "--frames", "40", "--out", "fd"], 0, True),
    "findingdory score": (lambda r: ["findingdory", "score", "--data", "suite/findingdory",
                                     "--predictions", _predictions(r), "--frames", "40"], 0,
                          True),
    "scenemem": (lambda r: ["scenemem", "--data_dir", "suite/scenemem", "--policy", "blind",
                            "--out", "sm/results.json", "--workers", "1"], 0, True),
    # the toy suite crosses the audit's checks (exit 1): its table is what is looked at
    "audit findingdory": (lambda r: ["audit", "suite/findingdory", "--out", "audit"], 1, True),
    "merge": (_merge, 0, False),
}


@pytest.mark.parametrize("name", [*COMMANDS, "run"])
def test_every_table_fits_80_columns_in_a_pipe(work, name):
    root, shown = work
    if name == "run":
        status, text, expected, table = 0, shown["run"], 0, True
    else:
        argv, expected, table = COMMANDS[name]
        status, text = recallbench(*argv(root), cwd=root)
    assert status == expected, text
    wide = [line for line in text.splitlines() if cell_len(line) > WIDTH]
    assert not wide, f"{name}: {len(wide)} lines over {WIDTH} columns:\n" + "\n".join(wide[:5])
    if table:  # the table itself was printed, its first column's names included
        assert "┃" in text and "│" in text, text
    if name == "list agents":
        rows = [line for line in text.splitlines() if line.startswith("│ ")]
        for agent in AGENTS.split(","):
            assert sum(line.startswith(f"│ {agent} ") for line in rows) >= 1, text
        assert "privileged ceiling: the annotated" in text  # descriptions wrap, never cut
    cells = [line for line in text.splitlines() if line.startswith(("│", "┃"))]
    assert not [line for line in cells if "…" in line], text  # no cell cut to an ellipsis
