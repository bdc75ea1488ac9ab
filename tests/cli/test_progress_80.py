"""Progress bars in an 80-column terminal (a real pty): every frame fits on one line and shows how
many of how many cases are done and the elapsed time in full, even for an agent given by a long
module:Class name (the label is what gets shortened)."""

from __future__ import annotations

import os
import pty
import re
import subprocess
import sys
from pathlib import Path

from rich.cells import cell_len

from support.findingdory_suite import build_suite

RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
AGENT = "recallbench.agents.baselines:RecencyAgent"


def run_in_terminal(argv: list[str], cwd: Path) -> tuple[int, str]:
    """The command with a pty as its terminal, 80 columns wide: (status, everything shown)."""
    main, child = pty.openpty()
    env = {**os.environ, "COLUMNS": "80", "LINES": "24", "TERM": "xterm-256color"}
    proc = subprocess.Popen(argv, cwd=cwd, stdin=child, stdout=child, stderr=child, env=env)
    os.close(child)
    chunks = []
    while True:
        try:
            data = os.read(main, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(main)
    return proc.wait(timeout=120), b"".join(chunks).decode("utf-8", "replace")


def test_progress_shows_count_and_time_whole_at_80_columns(tmp_path):
    build_suite(tmp_path / "suite")
    status, shown = run_in_terminal([RECALLBENCH, "findingdory", "--data", "suite", "--agent",
                                     AGENT, "--frames", "40", "--out", "fd"], tmp_path)
    assert status == 0, shown
    frames = [ANSI.sub("", f).strip() for f in re.split(r"[\r\n]", shown)]
    bars = [f for f in frames if "━" in f and not set(f) & set("┏┡┗┃│")]  # not a table
    assert bars, shown
    for frame in bars:
        assert cell_len(frame) <= 80, frame
        assert re.search(r" \d+/12 \d+:\d\d:\d\d", frame), frame  # count and elapsed, whole
    assert any(" 12/12 " in f for f in bars), bars
