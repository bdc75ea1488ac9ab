"""Fault injection (issue 14), runs: secrets echoed by a model server, crashing and hanging
agents, transient and fatal model-server failures, a full disk, a read-only folder and two
writers on one run folder. Real processes, real HTTP on 127.0.0.1 (tests/chat_server.py).
Every test failed on the code before the fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from support.chat_server import ChatServer, Reply
from support.fault_support import RECALLBENCH, SRC, alive, cli, error_lines, records, squash
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy

# ------------------------------------------------------------ finding 5: the API key echoed
SECRET = "sk-test-0123456789abcdefSECRET"


def _echo(request) -> Reply:
    """A server that echoes the request headers in its error body (some proxies do)."""
    echoed = json.dumps({"error": {"message": "bad request", "headers": request.headers}})
    return Reply(status=400, raw=echoed.encode(), headers={"X-Echo": request.headers.get(
        "Authorization", "")})


@pytest.mark.slow
def test_an_echoed_api_key_reaches_no_file_and_no_console(tmp_path, monkeypatch, capfd):
    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    monkeypatch.setenv("RB_TEST_KEY", SECRET)
    suite = build_suite(tmp_path / "suite")
    out = tmp_path / "cmp"
    with ChatServer(_echo) as server:
        main(["run", "--suite", str(suite), "--agents", "vlm", "--out", str(out),
              "--limit", "3", "--frames", "8",
              "--agent-arg", "vlm.model=m", "--agent-arg", f"vlm.base_url={server.base_url}",
              "--agent-arg", "vlm.api_key_env=RB_TEST_KEY", "--agent-arg", "vlm.max_retries=0"])
        assert server.requests and all(
            r.headers["Authorization"] == f"Bearer {SECRET}" for r in server.requests
        )
    written = [p for p in out.rglob("*") if p.is_file()]
    assert any(p.name == "runlog.jsonl" for p in written) and any(
        p.name == "report.html" for p in written)
    assert "HTTP 400" in "".join(p.read_text(errors="replace") for p in written
                                 if p.name == "runlog.jsonl")
    for path in written:
        assert SECRET not in path.read_bytes().decode("utf-8", "replace"), path
    console = capfd.readouterr()
    assert SECRET not in console.out + console.err


# ------------------------------------------------ finding 8: one writer, nothing recorded lost
@pytest.mark.slow
def test_a_second_resume_on_a_running_folder_is_refused_and_nothing_is_recorded_twice(tmp_path):
    tests = [mini_test(f"t{i}", f"obj{i}") for i in range(6)]
    mini_scenario(tmp_path / "data" / "combo_1", tests)
    out, run_dir = tmp_path / "r.json", tmp_path / "r_run"
    environ = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl"),
               "PYTHONPATH": os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")])}
    first = subprocess.Popen(
        [RECALLBENCH, "scenemem", "--data_dir", str(tmp_path / "data"), "--policy",
         policy("SlowRandomWalk"), "--out", str(out), "--workers", "1", "--max_steps", "40",
         "--env_factory", MINI_FACTORY],
        env=environ, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 120
        while not (run_dir / "runlog.jsonl").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        second = cli("scenemem", "--resume", "--run-dir", str(run_dir), "--workers", "1")
        assert first.poll() is None, "the first run ended before the second started"
        assert second.returncode == 2
        [line] = error_lines(second.stderr)
        assert "another recallbench process" in line and str(first.pid) in line
    finally:
        first.wait(200)
    keys = [r["key"] for r in records(run_dir)]
    assert len(keys) == len(set(keys)) == 6


@pytest.mark.slow
def test_results_json_keeps_a_scenario_that_no_longer_loads(tmp_path):
    data = tmp_path / "data"
    mini_scenario(data / "combo_1", [mini_test("a", "bowl"), mini_test("b", "cup")])
    mini_scenario(data / "combo_2", [mini_test("c", "plate")])
    args = ["scenemem", "--data_dir", str(data), "--policy", policy("RandomWalk"), "--out",
            str(tmp_path / "r.json"), "--workers", "1", "--max_steps", "3",
            "--env_factory", MINI_FACTORY]
    assert cli(*args).returncode == 0
    full = json.loads((tmp_path / "r.json").read_text())
    (data / "combo_1" / "eval_spec.json").write_text("{corrupt")
    proc = cli("scenemem", "--resume", "--run-dir", str(tmp_path / "r_run"), "--workers", "1")
    assert proc.returncode == 1  # the scenario error is reported ...
    assert "combo_1/eval_spec.json" in proc.stderr
    assert json.loads((tmp_path / "r.json").read_text()) == full  # ... and nothing is lost


def test_findingdory_refuses_a_folder_another_process_writes(tmp_path, capsys):
    from recallbench.cli import main
    from recallbench.run.lock import run_folder_lock
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    run = tmp_path / "run"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time; sys.path.insert(0, sys.argv[1]);"
         "from recallbench.run.lock import run_folder_lock\n"
         "with run_folder_lock(sys.argv[2]):\n print('held', flush=True); time.sleep(60)",
         SRC, str(run)],
        stdout=subprocess.PIPE, text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        assert main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                     "--out", str(run), "--limit", "2"]) == 2
        assert squash("another recallbench process") in squash("".join(capsys.readouterr()))
        assert not (run / "runlog.jsonl").exists() and not (run / "manifest.json").exists()
    finally:
        holder.kill()
        holder.wait()
    with run_folder_lock(run):  # released when its holder died
        pass


# ------------------------------------------------------------- findings 7 and 9: the VLM client
def _vlm_query(tmp_path: Path):
    from recallbench.agents.base import FrameQuery
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    return FrameQuery("c1", "The robot's goal is: find the mug.",
                      str(suite / "videos" / "ep_a.mp4"), tuple(range(0, 16, 2)))


def _vlm(base_url: str, **kwargs: object):
    from recallbench.agents.vlm import VLMAgent

    return VLMAgent(**{"model": "m", "base_url": base_url, "backoff_base": 0.01,
                       "max_retries": 0, **kwargs})


GOOD = '{"chain_of_thought": "seen", "frame_indices": [1]}'


def test_a_trickling_reply_is_cut_off_at_the_total_deadline(tmp_path):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    from recallbench.agents.base import TransientError

    class Trickle(BaseHTTPRequestHandler):
        def log_message(self, *args: object) -> None:
            pass

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            self.send_response(200)
            self.send_header("Content-Length", "60")
            self.end_headers()
            for _ in range(60):  # one byte every 0.1 s: each read is quick, the whole is not
                self.wfile.write(b" ")
                self.wfile.flush()
                time.sleep(0.1)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Trickle)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    query = _vlm_query(tmp_path)
    vlm = _vlm(f"http://127.0.0.1:{server.server_address[1]}/v1", timeout=1.0)
    try:
        start = time.monotonic()
        with pytest.raises(TransientError) as caught:
            vlm.select_frames(query, None)
        assert time.monotonic() - start < 3.0
        assert caught.value.kind == "timeout"
    finally:
        server.shutdown()


def test_a_huge_reply_is_refused_not_stored(tmp_path):
    huge = json.dumps({"choices": [{"message": {"content": "x" * 5_000_000}}]}).encode()
    with ChatServer([Reply(raw=huge)]) as server:
        answer = _vlm(server.base_url).select_frames(_vlm_query(tmp_path), None)
    assert answer.info["error_kind"] == "reply_too_large" and answer.response is None
    assert len(json.dumps(answer.info)) < 5000


def test_every_client_setting_is_reachable_from_the_command_line(tmp_path, capsys):
    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    with ChatServer([], default=Reply(GOOD)) as server:
        base = ["findingdory", "--data", str(suite), "--agent", "vlm", "--frames", "8",
                "--limit", "1", "--agent-arg", "model=m",
                "--agent-arg", f"base_url={server.base_url}"]
        assert main([*base, "--out", str(tmp_path / "a"), "--agent-arg", "max_retry_after=5",
                     "--agent-arg", "max_reply_bytes=100000",
                     "--agent-arg", "max_connection_failures=2"]) == 0
        capsys.readouterr()
        assert main([*base, "--out", str(tmp_path / "b"),
                     "--agent-arg", "max_retyr_after=5"]) == 2
    out = squash("".join(capsys.readouterr()))
    assert squash("--agent-arg: agent 'vlm' has no argument 'max_retyr_after'") in out
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["agent_manifest"]["max_retry_after"] == 5.0


@pytest.mark.slow
def test_transient_failures_are_not_recorded_and_resume_asks_again(tmp_path, capsys):
    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(suite), "--agent", "vlm", "--frames", "8",
            "--limit", "3", "--out", str(run), "--agent-arg", "model=m",
            "--agent-arg", "max_retries=0"]
    with ChatServer([], default=Reply(status=503)) as server:
        assert main([*args, "--agent-arg", f"base_url={server.base_url}"]) == 1
    out = squash("".join(capsys.readouterr()))
    assert squash("3 case(s) not answered (3 http_503)") in out
    assert not (run / "runlog.jsonl").read_text()  # nothing recorded as an answer
    with ChatServer([], default=Reply(GOOD)) as server:
        assert main([*args, "--agent-arg", f"base_url={server.base_url}", "--resume"]) == 0
        assert len(server.requests) == 3
    assert [r["frame_indices"] for r in records(run)] == [[1], [1], [1]]


def test_a_failing_cache_write_keeps_the_reply(tmp_path, monkeypatch):
    import errno

    from recallbench.agents.cache import ResponseCache

    def full_disk(self, key, value):
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(ResponseCache, "put", full_disk)
    with ChatServer([Reply(GOOD)]) as server:
        answer = _vlm(server.base_url, cache_dir=tmp_path / "cache").select_frames(
            _vlm_query(tmp_path), None)
    assert answer.frame_indices == [1]
    assert "No space left on device" in answer.info["cache_error"]


def test_a_video_that_fails_to_decode_is_its_own_failure(tmp_path):
    from recallbench.agents.base import FrameQuery

    # Corrupt data fails the same way on every try (issue 21): the case's own error, recorded,
    # never left for --resume to retry forever.
    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(os.urandom(4096))
    with ChatServer([Reply(GOOD)]) as server:
        answer = _vlm(server.base_url).select_frames(
            FrameQuery("c", "find the mug", str(garbage), (0, 1, 2)), None)
    assert answer.response is None and answer.info["failure_mode"] == "decode_error"
    assert not server.requests


@pytest.mark.slow
def test_a_dead_server_stops_the_run_and_resume_continues(tmp_path, capsys):
    import socket

    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    suite = build_suite(tmp_path / "suite")
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(suite), "--agent", "vlm", "--frames", "8",
            "--limit", "6", "--out", str(run), "--agent-arg", "model=m",
            "--agent-arg", "max_retries=0"]
    # a server that is not running is found before any work: one request, one line
    t0 = time.monotonic()
    assert main([*args, "--agent-arg", f"base_url={dead}"]) == 2
    assert time.monotonic() - t0 < 10
    out = squash("".join(capsys.readouterr()))
    assert squash(f"--agent-arg: agent 'vlm': base_url={dead}: no model server answers") in out
    assert not run.exists()
    # with replies cached the run may need no server; it starts, and a dead one stops it
    cache = tmp_path / "cache"
    (cache / "ab").mkdir(parents=True)
    (cache / "ab" / "abc.json").write_text("{}")
    args += ["--agent-arg", f"cache_dir={cache}"]
    assert main([*args, "--agent-arg", f"base_url={dead}"]) == 2
    out = squash("".join(capsys.readouterr()))
    assert squash("base_url: 3 requests in a row could not connect") in out and "--resume" in out
    assert not (run / "runlog.jsonl").read_text()  # stopped after 3 cases, none recorded
    with ChatServer([], default=Reply(GOOD)) as server:
        assert main([*args, "--agent-arg", f"base_url={server.base_url}", "--resume"]) == 0
        assert len(server.requests) == 6
    assert len(records(run)) == 6


# ------------------------------------------- finding 6: FindingDory agents run in worker processes
CRASHING_AGENT = '''
import ctypes, math, os, subprocess, sys, time
from recallbench.agents.base import FrameAnswer

class Crashing:
    name = "crashing"
    privileged = False

    def __init__(self, calls):
        self.calls = calls

    def select_frames(self, query, frames):
        with open(self.calls, "a") as f:
            f.write(query.case_id + "\\n")
        mode = {
            "ep_a-1": "raise", "ep_a-2": "exit", "ep_a-3": "interrupt", "ep_a-4": "os_exit",
            "ep_a-5": "segfault", "ep_b-0": "hang", "ep_b-1": "nan", "ep_b-2": "child",
            "ep_b-3": "flood",
        }.get(query.case_id, "ok")
        if mode == "raise":
            raise ValueError("model weights missing")
        if mode == "exit":
            sys.exit(3)
        if mode == "interrupt":
            raise KeyboardInterrupt
        if mode == "os_exit":
            os._exit(7)
        if mode == "segfault":
            ctypes.string_at(0)
        if mode == "hang":
            time.sleep(600)
        if mode == "nan":
            return FrameAnswer([math.nan], None, {"score": math.nan})
        if mode == "child":
            child = subprocess.Popen(["sleep", "300"])
            with open(self.calls + ".child", "w") as f:
                f.write(str(child.pid))
            time.sleep(600)
        if mode == "flood":
            for _ in range(50):
                print("x" * 100_000, flush=True)
        return FrameAnswer([0], None, {})
'''


@pytest.mark.slow
def test_crashing_findingdory_agents_fail_their_case_only(tmp_path):
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    (tmp_path / "crashing.py").write_text(CRASHING_AGENT)
    calls = tmp_path / "calls.txt"
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(suite), "--agent", f"{tmp_path / 'crashing.py'}:Crashing",
            "--agent-arg", f"calls={calls}", "--frames", "8", "--out", str(run),
            "--case-timeout", "4"]
    proc = cli(*args, timeout=300)
    assert proc.returncode == 0, proc.stderr
    by_key = {r["key"]: r for r in records(run)}
    assert len(by_key) == 12
    causes = {
        "ep_a-1": "ValueError('model weights missing')", "ep_a-2": "SystemExit(3)",
        "ep_a-3": "KeyboardInterrupt()", "ep_a-4": "exit code 7", "ep_a-5": "signal 11",
        "ep_b-0": "timeout: exceeded 4 s", "ep_b-2": "timeout: exceeded 4 s",
    }
    for key, cause in causes.items():
        assert cause in by_key[key]["agent_error"], (key, by_key[key])
        assert by_key[key]["frame_indices"] is None
    nan = by_key["ep_b-1"]
    assert nan["frame_indices"] is None and "nan" in nan["response"]
    assert "unloggable_info" in nan["info"]
    for key in ("ep_a-0", "ep_b-3", "ep_b-4", "ep_b-5"):
        assert by_key[key]["frame_indices"] == [0] and "agent_error" not in by_key[key]
    child = int((tmp_path / "calls.txt.child").read_text())
    assert not alive(child)  # ended with the worker that started it
    assert (run / "workers.log").stat().st_size < 200_000  # 5 MB printed, capped per case
    asked = calls.read_text().splitlines()
    assert proc.returncode == 0 and len(asked) == 12
    # a case whose agent killed its worker is recorded as failed: --resume asks nothing again
    assert cli(*args, "--resume", timeout=120).returncode == 0
    assert calls.read_text().splitlines() == asked


def test_a_hanging_scenemem_policy_without_test_timeout_gets_the_default(tmp_path, monkeypatch):
    from rich.console import Console

    import recallbench.run.scenemem as runner

    mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "hang")])
    monkeypatch.setattr(runner, "DEFAULT_TEST_TIMEOUT", 3.0)
    config = runner.normalise(runner.ScenememConfig(
        data_dir=str(tmp_path / "data"), policy=policy("Faulty"), out=str(tmp_path / "r.json"),
        max_steps=5, env_factory=MINI_FACTORY))
    assert config.test_timeout is None
    start = time.monotonic()
    with open(os.devnull, "w") as quiet:
        runner.run_scenemem(config, tmp_path / "r_run", 1, console=Console(file=quiet))
    assert time.monotonic() - start < 60
    [record] = records(tmp_path / "r_run")
    assert record["error"] == "timeout: exceeded 3 s wall clock"
