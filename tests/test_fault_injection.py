"""Fault injection (issue 14): malicious suites, an echoing model server, crashing agents,
a full disk and concurrent resumes. Real processes, real MuJoCo, real HTTP on 127.0.0.1.

Each test names the finding it covers; every one failed on the code before the fix.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from chat_server import ChatServer, Reply
from scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy

RECALLBENCH = str(Path(sys.executable).with_name("recallbench"))
SRC = str(Path(__file__).resolve().parents[1] / "src")


def cli(*args: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 240):
    """The real command in a subprocess, this checkout's code first on the path."""
    environ = {**os.environ, "MUJOCO_GL": os.environ.get("MUJOCO_GL", "egl"), **(env or {})}
    environ["PYTHONPATH"] = os.pathsep.join([SRC, environ.get("PYTHONPATH", "")])
    return subprocess.run(
        [RECALLBENCH, *args], cwd=cwd, env=environ, capture_output=True, text=True,
        timeout=timeout,
    )


def error_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("error")]


def squash(text: str) -> str:
    return "".join(text.split())


def set_env_args(scenario: Path, **fields: object) -> None:
    path = scenario / "env" / "env_args.json"
    path.write_text(json.dumps({**json.loads(path.read_text()), **fields}))


# ------------------------------------------------------------------ finding 1: env_factory
def test_a_suite_naming_os_system_as_env_factory_runs_nothing(tmp_path):
    marker = tmp_path / "pwned"
    scen = mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "bowl")])
    set_env_args(scen, env_factory="os:system", env_name=f"touch {marker}", env_kwargs={})
    proc = cli("scenemem", "--data_dir", str(tmp_path / "data"), "--policy",
               policy("RandomWalk"), "--out", str(tmp_path / "r.json"), "--workers", "1")
    assert not marker.exists()
    assert proc.returncode == 1
    [line] = error_lines(proc.stderr)
    assert "env_args.json: env_factory: 'os:system' is not a registered env factory" in line
    assert "Traceback" not in proc.stderr


def test_builtins_exec_through_recallbench_run_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    scen = mini_scenario(tmp_path / "suite" / "combo_1", [mini_test("t", "bowl")])
    code = f"open({str(marker)!r}, 'w').write('x')"
    set_env_args(scen, env_factory="builtins:exec", env_name=code, env_kwargs={})
    proc = cli("run", "--suite", str(tmp_path / "suite"), "--agents", "do-nothing",
               "--out", str(tmp_path / "cmp"), "--workers", "1")
    assert not marker.exists()
    assert "env_args.json: env_factory: 'builtins:exec'" in proc.stderr


def test_the_command_line_factory_still_builds_the_env(tmp_path):
    mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "bowl")])
    proc = cli("scenemem", "--data_dir", str(tmp_path / "data"), "--policy",
               policy("RandomWalk"), "--out", str(tmp_path / "r.json"), "--workers", "1",
               "--max_steps", "3", "--env_factory", MINI_FACTORY)
    assert proc.returncode == 0, proc.stderr
    assert json.loads((tmp_path / "r.json").read_text())["results"][0]["tests"][0]["test_id"]


# ------------------------------------------------------- finding 2: the data root on sys.path
CARD_BASE = "class BasePolicy:\n    pass\n"
SHADOW = "open({marker!r}, 'w').write('shadowed')\nraise ImportError('fake gymnasium')\n"
CARD_POLICY = """
import numpy as np
import gymnasium  # an installed package: must never come from the data repo
from eval.base_policy import BasePolicy

class MyPolicy(BasePolicy):
    def reset(self, instruction, video_paths):
        pass

    def get_action(self, env):
        return np.zeros(env.action_dim)
"""


def test_the_data_repo_cannot_shadow_installed_packages(tmp_path):
    repo = tmp_path / "repo"
    (repo / "eval").mkdir(parents=True)
    (repo / "eval" / "base_policy.py").write_text(CARD_BASE)
    marker = tmp_path / "shadowed"
    (repo / "gymnasium.py").write_text(SHADOW.format(marker=str(marker)))
    mini_scenario(repo / "data" / "combo_1", [mini_test("t", "bowl")])
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "card_policy.py").write_text(CARD_POLICY)
    proc = cli("scenemem", "--data_dir", str(repo / "data"), "--policy",
               f"{elsewhere / 'card_policy.py'}:MyPolicy", "--out", str(tmp_path / "r.json"),
               "--workers", "1", "--max_steps", "3", "--env_factory", MINI_FACTORY,
               cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    assert not marker.exists()
    log = (tmp_path / "r_run" / "runlog.jsonl").read_text()
    assert json.loads(log.splitlines()[0])["error"] is None  # eval.base_policy still imported


# ----------------------------------------------------------------- finding 3: MJCF includes
def _with_include(scen: Path, include: str) -> None:
    xml = scen / "env" / "unified_model.xml"
    text = xml.read_text()
    xml.write_text(text.replace("<worldbody>", f'<include file="{include}"/>\n<worldbody>', 1))


OUTSIDE = '<mujocoinclude><asset><texture name="leak" type="2d" builtin="checker" width="8" ' \
          'height="8"/></asset></mujocoinclude>'


@pytest.mark.parametrize("where", ["absolute", "relative"])
def test_model_includes_outside_the_scenario_are_refused(tmp_path, where):
    outside = tmp_path / "outside.xml"
    outside.write_text(OUTSIDE)
    scen = mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "bowl")])
    # relative: MuJoCo resolved it against the current directory, here the attacker's
    _with_include(scen, str(outside) if where == "absolute" else "outside.xml")
    proc = cli("scenemem", "--data_dir", str(tmp_path / "data"), "--policy",
               policy("RandomWalk"), "--out", str(tmp_path / "r.json"), "--workers", "1",
               "--max_steps", "3", "--env_factory", MINI_FACTORY, cwd=tmp_path)
    assert proc.returncode == 1
    [line] = error_lines(proc.stderr)
    if where == "absolute":
        assert "unified_model.xml: <include file=" in line and "outside the scenario" in line
    else:  # resolved inside the scenario's env/ folder, where no such file exists
        assert "env/outside.xml" in line or "outside.xml" in line
    assert "env loading failed" not in line


def test_an_include_inside_the_scenario_resolves_there_and_trust_suite_allows_outside(tmp_path):
    scen = mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "bowl")])
    (scen / "env" / "parts.xml").write_text(OUTSIDE)
    _with_include(scen, "parts.xml")
    args = ["scenemem", "--data_dir", str(tmp_path / "data"), "--policy", policy("RandomWalk"),
            "--workers", "1", "--max_steps", "3", "--env_factory", MINI_FACTORY]
    elsewhere = tmp_path / "cwd"
    elsewhere.mkdir()
    proc = cli(*args, "--out", str(tmp_path / "a.json"), cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr
    (tmp_path / "outside.xml").write_text(OUTSIDE)
    xml = scen / "env" / "unified_model.xml"
    xml.write_text(xml.read_text().replace('"parts.xml"', f'"{tmp_path / "outside.xml"}"'))
    assert cli(*args, "--out", str(tmp_path / "b.json"), cwd=elsewhere).returncode == 1
    proc = cli(*args, "--out", str(tmp_path / "c.json"), "--trust_suite", cwd=elsewhere)
    assert proc.returncode == 0, proc.stderr


# ----------------------------------------------------- finding 4: FindingDory paths and ep_ids
def _fd_rows(tmp_path: Path, **override: object) -> Path:
    from test_findingdory_cli import build_suite

    suite = build_suite(tmp_path / "suite")
    rows = json.loads((suite / "qa.json").read_text())
    rows[0].update(override)
    (suite / "qa.json").write_text(json.dumps(rows))
    return suite


@pytest.mark.parametrize(
    ("override", "field"),
    [
        ({"video": "/etc/hostname"}, "video"),
        ({"video": "../../outside.mp4"}, "video"),
        ({"ep_id": "../ep_b"}, "ep_id"),
        ({"ep_id": "ep_zzz"}, "ep_id"),
        ({"num_frames": 1e400}, "num_frames"),
        ({"answer": [[100000]]}, "answer[0]"),
    ],
)
def test_findingdory_rows_pointing_outside_or_beyond_are_one_line_errors(
    tmp_path, capsys, override, field
):
    from recallbench.cli import main

    suite = _fd_rows(tmp_path, **override)
    assert main(["findingdory", "--data", str(suite), "--agent", "random",
                 "--out", str(tmp_path / "run"), "--frames", "8"]) == 2
    # One message (the console wraps it; the lead's shared printer will keep it one line).
    out = squash(capsys.readouterr().out)
    assert out.startswith("error:") and out.count("error") == 1, out
    assert f"{field}:" in out and "qa.json:row" in out, out
    assert not (tmp_path / "run" / "runlog.jsonl").exists()  # refused before any work


def test_a_symlinked_video_leaving_the_suite_is_refused(tmp_path):
    from recallbench.benchmarks.findingdory.data import load_suite, resolve_video
    from recallbench.errors import InputError

    suite_dir = _fd_rows(tmp_path)
    outside = tmp_path / "elsewhere.mp4"
    (suite_dir / "videos" / "ep_a.mp4").rename(outside)
    (suite_dir / "videos" / "ep_a.mp4").symlink_to(outside)
    suite = load_suite(suite_dir)
    with pytest.raises(InputError, match="outside the suite"):
        resolve_video(suite, suite.cases[0])
    trusted = load_suite(suite_dir, trusted=True)
    assert resolve_video(trusted, trusted.cases[0]) is not None


def test_an_empty_qa_list_is_refused(tmp_path):
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.errors import InputError

    (tmp_path / "qa.json").write_text("[]")
    with pytest.raises(InputError, match="no QA rows"):
        load_suite(tmp_path / "qa.json")


# ------------------------------------------------------------ finding 5: the API key echoed
SECRET = "sk-test-0123456789abcdefSECRET"


def _echo(request) -> Reply:
    """A server that echoes the request headers in its error body (some proxies do)."""
    echoed = json.dumps({"error": {"message": "bad request", "headers": request.headers}})
    return Reply(status=400, raw=echoed.encode(), headers={"X-Echo": request.headers.get(
        "Authorization", "")})


def test_an_echoed_api_key_reaches_no_file_and_no_console(tmp_path, monkeypatch, capfd):
    from recallbench.cli import main
    from test_findingdory_cli import build_suite

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
def _records(run_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (run_dir / "runlog.jsonl").read_text().splitlines()]


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
        second = cli("scenemem", "--resume", str(run_dir), "--workers", "1")
        assert first.poll() is None, "the first run ended before the second started"
        assert second.returncode == 2
        [line] = error_lines(second.stderr)
        assert "another recallbench process" in line and str(first.pid) in line
    finally:
        first.wait(200)
    keys = [r["key"] for r in _records(run_dir)]
    assert len(keys) == len(set(keys)) == 6


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
    proc = cli("scenemem", "--resume", str(tmp_path / "r_run"), "--workers", "1")
    assert proc.returncode == 1  # the scenario error is reported ...
    assert "combo_1/eval_spec.json" in proc.stderr
    assert json.loads((tmp_path / "r.json").read_text()) == full  # ... and nothing is lost


def test_findingdory_refuses_a_folder_another_process_writes(tmp_path, capsys):
    from recallbench.cli import main
    from recallbench.run.lock import run_folder_lock
    from test_findingdory_cli import build_suite

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
        assert squash("another recallbench process") in squash(capsys.readouterr().out)
        assert not (run / "runlog.jsonl").exists()
    finally:
        holder.kill()
        holder.wait()
    with run_folder_lock(run):  # released when its holder died
        pass


# ------------------------------------------------------------- findings 7 and 9: the VLM client
def _vlm_query(tmp_path: Path):
    from recallbench.agents.base import FrameQuery
    from test_findingdory_cli import build_suite

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
    from test_findingdory_cli import build_suite

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
    out = squash(capsys.readouterr().out)
    assert squash("--agent-arg: max_retyr_after: VLMAgent has no such setting") in out
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest["agent_manifest"]["max_retry_after"] == 5.0


def test_transient_failures_are_not_recorded_and_resume_asks_again(tmp_path, capsys):
    from recallbench.cli import main
    from test_findingdory_cli import build_suite

    suite = build_suite(tmp_path / "suite")
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(suite), "--agent", "vlm", "--frames", "8",
            "--limit", "3", "--out", str(run), "--agent-arg", "model=m",
            "--agent-arg", "max_retries=0"]
    with ChatServer([], default=Reply(status=503)) as server:
        assert main([*args, "--agent-arg", f"base_url={server.base_url}"]) == 1
    out = squash(capsys.readouterr().out)
    assert squash("3 case(s) not answered (3 http_503)") in out
    assert not (run / "runlog.jsonl").read_text()  # nothing recorded as an answer
    with ChatServer([], default=Reply(GOOD)) as server:
        assert main([*args, "--agent-arg", f"base_url={server.base_url}", "--resume"]) == 0
        assert len(server.requests) == 3
    assert [r["frame_indices"] for r in _records(run)] == [[1], [1], [1]]


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


def test_a_video_that_fails_to_decode_is_its_own_transient_failure(tmp_path):
    from recallbench.agents.base import FrameQuery, TransientError

    garbage = tmp_path / "garbage.mp4"
    garbage.write_bytes(os.urandom(4096))
    with ChatServer([Reply(GOOD)]) as server, pytest.raises(TransientError) as caught:
        _vlm(server.base_url).select_frames(
            FrameQuery("c", "find the mug", str(garbage), (0, 1, 2)), None)
    assert caught.value.kind == "decode_error"
    assert not server.requests  # the model was never asked, so no response_error either


def test_a_dead_server_stops_the_run_and_resume_continues(tmp_path, capsys):
    import socket

    from recallbench.cli import main
    from test_findingdory_cli import build_suite

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = f"http://127.0.0.1:{sock.getsockname()[1]}/v1"
    suite = build_suite(tmp_path / "suite")
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(suite), "--agent", "vlm", "--frames", "8",
            "--limit", "6", "--out", str(run), "--agent-arg", "model=m",
            "--agent-arg", "max_retries=0"]
    assert main([*args, "--agent-arg", f"base_url={dead}"]) == 2
    out = squash(capsys.readouterr().out)
    assert squash("base_url: 3 requests in a row could not connect") in out and "--resume" in out
    assert not (run / "runlog.jsonl").read_text()  # stopped after 3 cases, none recorded
    with ChatServer([], default=Reply(GOOD)) as server:
        assert main([*args, "--agent-arg", f"base_url={server.base_url}", "--resume"]) == 0
        assert len(server.requests) == 6
    assert len(_records(run)) == 6


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


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is dead too
        return f.read().split()[2] != "Z"


def test_crashing_findingdory_agents_fail_their_case_only(tmp_path):
    from test_findingdory_cli import build_suite

    suite = build_suite(tmp_path / "suite")
    (tmp_path / "crashing.py").write_text(CRASHING_AGENT)
    calls = tmp_path / "calls.txt"
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(suite), "--agent", f"{tmp_path / 'crashing.py'}:Crashing",
            "--agent-arg", f"calls={calls}", "--frames", "8", "--out", str(run),
            "--case-timeout", "4"]
    proc = cli(*args, timeout=300)
    assert proc.returncode == 0, proc.stderr
    records = {r["key"]: r for r in _records(run)}
    assert len(records) == 12
    causes = {
        "ep_a-1": "ValueError('model weights missing')", "ep_a-2": "SystemExit(3)",
        "ep_a-3": "KeyboardInterrupt()", "ep_a-4": "exit code 7", "ep_a-5": "signal 11",
        "ep_b-0": "timeout: exceeded 4 s", "ep_b-2": "timeout: exceeded 4 s",
    }
    for key, cause in causes.items():
        assert cause in records[key]["agent_error"], (key, records[key])
        assert records[key]["frame_indices"] is None
    nan = records["ep_b-1"]
    assert nan["frame_indices"] is None and "nan" in nan["response"]
    assert "unloggable_info" in nan["info"]
    for key in ("ep_a-0", "ep_b-3", "ep_b-4", "ep_b-5"):
        assert records[key]["frame_indices"] == [0] and "agent_error" not in records[key]
    child = int((tmp_path / "calls.txt.child").read_text())
    assert not _alive(child)  # ended with the worker that started it
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
    [record] = _records(tmp_path / "r_run")
    assert record["error"] == "timeout: exceeded 3 s wall clock"


# ------------------------------------------------------------------- finding 10: bad inputs
@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_garbage_or_truncated_scenemem_video_is_refused_at_load(tmp_path, damage):
    scen = mini_scenario(tmp_path / "data" / "combo_1", [mini_test("t", "bowl")])
    video = scen / "videos" / "robot0_agentview_right.mp4"
    data = video.read_bytes()
    video.write_bytes(os.urandom(len(data)) if damage == "garbage" else data[: len(data) // 2])
    proc = cli("scenemem", "--data_dir", str(tmp_path / "data"), "--policy",
               policy("RandomWalk"), "--out", str(tmp_path / "r.json"), "--workers", "1",
               "--max_steps", "3", "--env_factory", MINI_FACTORY)
    assert proc.returncode == 1
    [line] = error_lines(proc.stderr)
    assert "robot0_agentview_right.mp4: videos[1]: not a readable video" in line
    assert not _records(tmp_path / "r_run")


@pytest.mark.parametrize(
    ("change", "field"),
    [({"max_steps": 10**30}, "tests[0].max_steps"),  # a JSON integer: 1e30 as a float was refused
     ({"task": "restore", "object_body_name": "cabinet_main", "target_pos": [0, float("nan"), 0]},
      "tests[0].target_pos")],
)
def test_absurd_spec_numbers_are_refused_at_load(tmp_path, change, field):
    from recallbench.benchmarks.scenemem.spec import load_scenario
    from recallbench.errors import InputError

    scen = mini_scenario(tmp_path / "combo_1", [mini_test("t", "bowl", **change)])
    with pytest.raises(InputError) as caught:
        load_scenario(scen)
    assert caught.value.field is not None and caught.value.field.startswith(field)


def test_a_garbage_findingdory_video_is_refused_before_any_agent_call(tmp_path, capsys):
    from recallbench.cli import main

    suite = _fd_rows(tmp_path)
    (suite / "videos" / "ep_b.mp4").write_bytes(b"\x00garbage" * 500)
    assert main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                 "--out", str(tmp_path / "run")]) == 2
    out = squash(capsys.readouterr().out)  # the console wraps long paths anywhere
    assert squash("ep_b.mp4: row ep_b-0: video: not a readable video") in out
    assert not (tmp_path / "run" / "runlog.jsonl").exists()


@pytest.mark.parametrize(
    ("content", "field"),
    [(b'{"id": "ep_a-0", "frame_indices": [1], "offered_frames": "abc"}\n', "offered_frames"),
     (b'{"id": "ep_a-0", "frame_indices": [1], "offered_frames": [1e30]}\n', "offered_frames"),
     (b"\x89PNG\r\n\x1a\n\xff\xfe\x00binary", "byte"),
     (b'{"id": "ep_a-0", "frame_indices": [1]}\n{"id": "ep_a-0", "frame_indices": [2]}\n',
      "line 2: id")],
)
def test_bad_prediction_files_are_one_line_errors(tmp_path, capsys, content, field):
    from recallbench.cli import main

    suite = _fd_rows(tmp_path)
    preds = tmp_path / "preds.jsonl"
    preds.write_bytes(content)
    assert main(["findingdory", "score", "--data", str(suite), "--predictions", str(preds),
                 "--frames", "8"]) == 2
    out = squash(capsys.readouterr().out)
    assert out.startswith("error:") and "preds.jsonl" in out and squash(field) in out, out


def test_a_full_disk_mid_run_is_one_line_and_nothing_recorded_is_lost(tmp_path, capsys,
                                                                      monkeypatch):
    import errno

    import recallbench.run.runlog as runlog
    from recallbench.cli import main

    suite = _fd_rows(tmp_path)
    run = tmp_path / "run"
    real_fsync, calls = os.fsync, []

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) > 5:  # the sixth record does not fit on the disk
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(runlog.os, "fsync", fsync)
    args = ["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
            "--out", str(run)]
    assert main(args) == 2
    out = squash(capsys.readouterr().out)
    assert squash("runlog.jsonl: cannot append a record: No space left on device") in out
    kept = [r["key"] for r in _records(run)]
    assert len(kept) >= 5
    monkeypatch.setattr(runlog.os, "fsync", real_fsync)  # space freed
    assert main([*args, "--resume"]) == 0
    keys = [r["key"] for r in _records(run)]
    assert keys[:5] == kept[:5] and len(keys) == len(set(keys)) == 12


def test_a_read_only_run_folder_is_one_line(tmp_path, capsys, monkeypatch):
    import errno

    from recallbench.cli import main

    suite = _fd_rows(tmp_path)
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
            "--out", str(run), "--limit", "4"]
    assert main(args) == 0
    before = (run / "runlog.jsonl").read_bytes()
    real_open = os.open

    def read_only(path, flags, *rest):  # the folder was remounted read-only (root ignores chmod)
        if str(path).startswith(str(run)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", str(path))
        return real_open(path, flags, *rest)

    monkeypatch.setattr(os, "open", read_only)
    capsys.readouterr()
    assert main([*args[:-2], "--resume"]) == 2
    out = squash(capsys.readouterr().out)
    assert "Read-onlyfilesystem" in out and out.count("error") == 1, out
    monkeypatch.undo()
    assert (run / "runlog.jsonl").read_bytes() == before
