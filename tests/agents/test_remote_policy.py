"""A served policy (`recallbench serve-policy`, openpi's protocol) against real env workers
through openpi_client: same results as in-process, batched forward calls, action chunks, a
dying server, and --resume after it returns."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path

import pytest
from websockets.sync.client import connect

from recallbench.agents.remote.wire import pack, unpack
from support.policy_server import (
    ENV,
    RECALLBENCH,
    free_port,
    run_records,
    start_server,
    stop,
)
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy

pytest.importorskip("openpi_client")
pytestmark = pytest.mark.openpi


def server_stats(port: int) -> dict:
    with connect(f"ws://127.0.0.1:{port}") as ws:
        assert unpack(ws.recv(timeout=10))["type"] == "hello"  # the server speaks first
        ws.send(pack({"type": "stats"}))
        return unpack(ws.recv(timeout=10))


def scenemem(*args: str, check: int | None = 0) -> subprocess.CompletedProcess:
    if "--resume" not in args:
        args = (*args, "--env_factory", MINI_FACTORY)
    proc = subprocess.run([RECALLBENCH, "scenemem", *args], env=ENV, capture_output=True,
                          text=True, timeout=240)
    if check is not None:
        assert proc.returncode == check, proc.stderr
    return proc


def pass_map(tmp_path: Path) -> str:
    """An obs_map sending the mini env's one observation as it is (TOML, as a user writes)."""
    path = tmp_path / "obs_map.toml"
    path.write_text('images = {}\nstate = {}\npass = ["base_pos"]\n')
    return f"obs_map={path}"


def data(root: Path, n: int) -> Path:
    tests = [mini_test(f"t{i}", f"obj{i}", "cabinet" if i % 2 else "drawer") for i in range(n)]
    mini_scenario(root / "combo_007_L3_S4_0001", tests, base_xy=(1.0, 0.5))
    return root


@pytest.mark.slow
@pytest.mark.parametrize("served,scheme", [("ObservationSeeker", "openpi"),
                                           ("CardObservationSeeker", "ws")])
def test_served_policy_gives_the_in_process_results_and_batches(tmp_path, served, scheme):
    suite = data(tmp_path / "data", 6)
    common = ["--data_dir", str(suite), "--max_steps", "40", "--workers", "2", "--seed", "3"]
    scenemem(*common, "--policy", policy(served), "--out", str(tmp_path / "local.json"))
    port = free_port()
    # A long batch wait makes the two workers' steps meet in one forward call; a forward call
    # of 20 ms keeps the first worker's rollouts going while the second one starts.
    slow = "SlowObservationSeeker" if served == "ObservationSeeker" else served
    server = start_server(slow, port, "--batch-wait-ms", "200")
    try:
        url = f"{scheme}://127.0.0.1:{port}"
        args = ("--policy-arg", pass_map(tmp_path)) if scheme == "openpi" else ()
        scenemem(*common, "--policy", url, *args, "--out", str(tmp_path / "served.json"))
        stats = server_stats(port)
    finally:
        stop(server)
    assert (tmp_path / "served.json").read_text() == (tmp_path / "local.json").read_text()
    local, remote = run_records(tmp_path / "local_run"), run_records(tmp_path / "served_run")
    assert remote == local
    traces = {json.dumps(r["trace"], sort_keys=True) for r in local.values()}
    assert len(traces) == len(local)  # each test drove its own way
    steps = sum(r["steps"] for r in local.values())
    assert stats["requests"] == steps  # one request per env step, observations in
    if served == "ObservationSeeker":  # offers get_action_batch: concurrent steps share calls
        assert stats["max_batch"] == 2, stats
        assert stats["forward_calls"] < steps, stats
    else:  # the card interface: one call per step, one instance per env worker
        assert stats["forward_calls"] == steps
    manifest = json.loads((tmp_path / "served_run" / "manifest.json").read_text())
    assert manifest["policy"]["memory"] == ("frames" if scheme == "openpi" else "paths")
    assert manifest["policy"]["server_metadata"]["policy"].endswith(slow)
    assert manifest["policy_simulator_access"] is False
    assert json.loads((tmp_path / "local_run" / "manifest.json").read_text())[
        "policy_simulator_access"] is True


@pytest.mark.slow
def test_action_chunks_run_open_loop_with_fewer_server_calls(tmp_path):
    from support.scenemem_fixtures.policies import REPLAN

    suite = data(tmp_path / "data", 4)
    common = ["--data_dir", str(suite), "--max_steps", "40", "--workers", "2", "--seed", "5"]
    scenemem(*common, "--policy", policy("CardChunkSeeker"), "--out", str(tmp_path / "l.json"))
    port = free_port()
    server = start_server("ChunkSeeker", port)
    try:
        scenemem(*common, "--policy", f"openpi://127.0.0.1:{port}", "--policy-arg",
                 pass_map(tmp_path), "--policy-arg", f"replan_steps={REPLAN}",
                 "--policy-arg", "memory=paths", "--out", str(tmp_path / "s.json"))
        stats = server_stats(port)
    finally:
        stop(server)
    local, remote = run_records(tmp_path / "l_run"), run_records(tmp_path / "s_run")
    assert remote == local
    steps = [r["steps"] for r in local.values()]
    assert stats["requests"] == sum(-(-n // REPLAN) for n in steps) < sum(steps)
    manifest = json.loads((tmp_path / "s_run" / "manifest.json").read_text())
    assert manifest["policy"]["memory"] == "paths"
    assert manifest["policy"]["replan_steps"] == REPLAN


@pytest.mark.slow
def test_a_dying_server_fails_the_tests_in_flight_and_resume_finishes(tmp_path):
    suite = data(tmp_path / "data", 8)
    common = ["--data_dir", str(suite), "--max_steps", "30", "--seed", "11"]
    scenemem(*common, "--policy", policy("ObservationSeeker"), "--workers", "2",
             "--out", str(tmp_path / "local.json"))
    port = free_port()
    url = f"openpi://127.0.0.1:{port}"
    server = start_server("SlowObservationSeeker", port)
    out, run_dir = tmp_path / "cut.json", tmp_path / "cut_run"
    run = subprocess.Popen(
        [RECALLBENCH, "scenemem", *common, "--policy", url, "--policy-arg", pass_map(tmp_path),
         "--workers", "2", "--out", str(out), "--env_factory", MINI_FACTORY],
        env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        log = run_dir / "runlog.jsonl"
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not (
            log.exists() and len(log.read_text().splitlines()) >= 2
        ):
            time.sleep(0.02)
        server.send_signal(signal.SIGKILL)  # mid-run: two workers are mid-rollout
        server.wait(10)
        _, stderr = run.communicate(timeout=120)
    finally:
        stop(server)
        if run.poll() is None:
            run.kill()
    assert run.returncode == 1, stderr
    assert "Traceback" not in stderr
    lines = [line for line in stderr.splitlines() if "not recorded" in line]
    assert len(lines) == 1, stderr
    assert f"policy server ws://127.0.0.1:{port} lost" in lines[0]
    assert f"--resume --run-dir {run_dir}" in lines[0]
    kept = run_records(run_dir)
    assert 2 <= len(kept) < 8
    assert not any(r.get("error") for r in kept.values())  # no test blamed on the policy
    assert json.loads((run_dir / "summary.json").read_text())["missing_tests"]

    server = start_server("SlowObservationSeeker", port)  # the server returns
    try:
        scenemem("--resume", "--run-dir", str(run_dir), "--workers", "2")
    finally:
        stop(server)
    assert out.read_text() == (tmp_path / "local.json").read_text()
    assert run_records(run_dir) == run_records(tmp_path / "local_run")


def test_no_server_is_one_line_naming_the_flag(tmp_path):
    suite = data(tmp_path / "data", 1)
    url = f"openpi://127.0.0.1:{free_port()}"
    proc = scenemem("--data_dir", str(suite), "--policy", url, "--out",
                    str(tmp_path / "r.json"), check=2)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "--policy ws://127.0.0.1:" in lines[0]
    assert "no policy server answers" in lines[0]
    assert not (tmp_path / "r_run").exists()  # refused before any work


@pytest.mark.slow
def test_a_served_policy_that_reads_the_simulator_fails_its_test_saying_why(tmp_path):
    suite = data(tmp_path / "data", 1)
    port = free_port()
    server = start_server("Oracle", port)  # reads env.get_ep_meta(): not an observation
    try:
        scenemem("--data_dir", str(suite), "--policy", f"ws://127.0.0.1:{port}", "--out",
                 str(tmp_path / "r.json"), "--workers", "1", check=1)
    finally:
        stop(server)
    (rec,) = run_records(tmp_path / "r_run").values()
    assert "sees only the env's observations and action_dim, not env.get_ep_meta" in rec["error"]


def test_served_and_lerobot_specs_mean_themselves_on_scenemem_only():
    from recallbench.agents.registry import meaning

    for spec in ("openpi://127.0.0.1:8000", "ws://gpu:9000", "lerobot:/ckpt/act"):
        assert meaning(spec, "scenemem") == spec
        assert meaning(spec, "findingdory") is None
