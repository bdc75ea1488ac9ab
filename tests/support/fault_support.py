"""Shared pieces of the fault-injection tests (issue 14): the real command in a subprocess,
one-line error checks, small suites with one field changed, run-log records."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
SRC = str(Path(__file__).resolve().parents[2] / "src")


def cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 240):
    """The real command in a subprocess, this checkout's code first on the path."""
    environ = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl"), **(env or {})}
    # no empty entry: it would put the working directory first on sys.path
    environ["PYTHONPATH"] = os.pathsep.join(p for p in (SRC, environ.get("PYTHONPATH")) if p)
    return subprocess.run(
        [RECALLBENCH, *args], cwd=cwd, env=environ, capture_output=True, text=True,
        timeout=timeout,
    )


def error_lines(stderr: str) -> list[str]:
    """The command line's error lines: ``recallbench COMMAND: error: ...`` (or a runner's own
    ``error ...`` line for a scenario it skips)."""
    return [line for line in stderr.splitlines()
            if line.startswith("error") or re.match(r"recallbench( [\w-]+)?: error: ", line)]


def squash(text: str) -> str:
    return "".join(text.split())


def set_env_args(scenario: Path, **fields: object) -> None:
    path = scenario / "env" / "env_args.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))


def fd_rows(tmp_path: Path, **override: object) -> Path:
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    rows = json.loads((suite / "qa.json").read_text())
    rows[0].update(override)
    (suite / "qa.json").write_text(json.dumps(rows))
    return suite


def records(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "runlog.jsonl").read_text().splitlines()]


def alive(pid: int) -> bool:
    """Whether process ``pid`` is running (a zombie counts as dead)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:
        return f.read().split()[2] != "Z"
