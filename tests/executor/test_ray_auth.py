"""A Ray cluster started with token authentication (Ray's default since 2.5x) refuses a driver
without its token; the command says so in one line, naming RAY_AUTH_MODE and the token file,
instead of "cannot start or reach ... Failed to connect"."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("ray", reason="needs the ray extra: pip install 'recallbench[ray]'")

from support.findingdory_suite import build_suite  # noqa: E402
from support.ray_cluster import RayCluster  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.slow]
RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
TOKEN = "0123456789abcdef0123456789abcdef"


def test_a_missing_token_is_named_in_one_line(tmp_path):
    # the token through the environment: a file in ~/.ray would turn auth on for every Ray here
    (tmp_path / "ray").mkdir()
    cluster = RayCluster(tmp_path / "ray", workers=0,
                         env={"RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN})
    try:
        suite = build_suite(tmp_path / "suite")
        args = [RECALLBENCH, "findingdory", "--data", str(suite), "--agent", "oracle",
                "--frames", "40", "--executor", "ray", "--address", cluster.address,
                "--workers", "1"]
        bare = {k: v for k, v in os.environ.items() if not k.startswith("RAY_AUTH")}
        refused = subprocess.run([*args, "--out", str(tmp_path / "a")], env=bare,
                                 capture_output=True, text=True, timeout=300)
        assert refused.returncode == 2
        lines = [line for line in refused.stderr.splitlines() if line.strip()]
        assert len(lines) == 1, refused.stderr  # Ray's own warnings no longer flood the console
        assert "refused the connection for authentication" in lines[0]
        assert "RAY_AUTH_MODE=token" in lines[0] and "~/.ray/auth_token" in lines[0]
        # doing what the line says connects
        ok = subprocess.run([*args, "--out", str(tmp_path / "b")],
                            env={**bare, "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": TOKEN},
                            capture_output=True, text=True, timeout=300)
        assert ok.returncode == 0, ok.stderr
    finally:
        cluster.stop()
