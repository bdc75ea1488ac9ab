"""A real `recallbench serve-policy` process on 127.0.0.1 for remote-policy tests."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

from recallbench.agents.remote import check_server
from support.scenemem_fixtures.build import policy

RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
ENV = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl")}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(policy_name: str, port: int, *extra: str,
                 env: dict[str, str] | None = None) -> subprocess.Popen:
    """Serve a policy of support/scenemem_fixtures/policies.py (or any ``file.py:Class``);
    return once it answers."""
    ref = policy_name if ":" in policy_name else policy(policy_name)
    proc = subprocess.Popen(
        [RECALLBENCH, "serve-policy", ref, "--port", str(port), *extra],
        env={**ENV, **(env or {})}, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.stderr.read()
        try:
            hello = f"ws://127.0.0.1:{port}"
            check_server(hello, "ll" if "ll_policies" in ref else "scenemem", timeout=2)
            return proc
        except ValueError:
            time.sleep(0.1)
    proc.kill()
    raise AssertionError("the policy server did not come up")


def stop(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.kill()
    proc.wait(10)


def run_records(run_dir: Path) -> dict[str, dict]:
    """A run's records by key, without their wall times (equal runs give equal records)."""
    out = {}
    for line in (run_dir / "runlog.jsonl").read_text().splitlines():
        rec = json.loads(line)
        rec.pop("wall_time")
        out[rec["key"]] = rec
    return out
