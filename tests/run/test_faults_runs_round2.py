"""Fault injection, round two (issue 21), runs: what an agent returns crosses to the runner as
strict JSON only, and one malformed reply or record fails its own case (or is one line naming the
file and line), never the whole run, `score` or `view`. Real worker processes, real videos.
Every test failed on the code before the fix.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from support.fault_support import records, squash

ODD_AGENT = '''
from recallbench.agents.base import FrameAnswer

MARKER = {marker!r}


class Planted(str):
    """Unpickling it opens (creates) the marker file: code run in whoever unpickles it."""

    def __reduce__(self):
        return (open, (MARKER, "w"))


class PlantedInt(int):
    def __reduce__(self):
        return (open, (MARKER, "w"))


class Odd:
    name = "odd"
    privileged = False

    def __init__(self, only=None):
        self.only = only

    def select_frames(self, query, frames):
        mode = self.only or {{"ep_a-0": "huge_reply", "ep_a-1": "huge_index",
                             "ep_a-2": "str_subclass", "ep_a-3": "int_subclass",
                             "ep_a-4": "deep_info"}}.get(query.case_id, "ok")
        if mode == "huge_reply":
            return FrameAnswer(None, '{{"frame_indices": [' + "9" * 5000 + "]}}")
        if mode == "huge_index":
            return FrameAnswer([10 ** 5000])
        if mode == "str_subclass":
            return FrameAnswer(None, Planted('{{"frame_indices": [0]}}'))
        if mode == "int_subclass":
            return FrameAnswer([PlantedInt(0)])
        if mode == "deep_info":
            deep = []
            for _ in range(100_000):
                deep = [deep]
            return FrameAnswer([0], None, {{"deep": deep}})
        return FrameAnswer([0])
'''


def _odd_run(tmp_path: Path, capsys, *extra: str) -> tuple[Path, Path, Path]:
    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    marker = tmp_path / "unpickled"
    (tmp_path / "odd.py").write_text(ODD_AGENT.format(marker=str(marker)))
    run = tmp_path / "run"
    code = main(["findingdory", "--data", str(suite), "--agent", f"{tmp_path / 'odd.py'}:Odd",
                 "--frames", "8", "--out", str(run), "--workers", "1", *extra])
    out = squash("".join(capsys.readouterr()))
    assert code == 0, out
    assert "internalerror" not in out
    return suite, run, marker


def test_odd_agent_returns_fail_their_own_case_and_run_no_code_in_the_runner(tmp_path, capsys):
    from recallbench.cli import main

    _, run, marker = _odd_run(tmp_path, capsys)
    assert not marker.exists()  # nothing the agent returned was unpickled anywhere
    by_key = {r["key"]: r for r in records(run)}
    assert len(by_key) == 12  # every case recorded, the odd ones as their own failures
    huge = by_key["ep_a-1"]  # kept as text for the parser to reject, never converted
    assert huge["frame_indices"] is None and "-digit integer>" in huge["response"]
    assert by_key["ep_a-2"]["response"] == '{"frame_indices": [0]}'  # a plain str now
    assert by_key["ep_a-3"]["frame_indices"] is None  # an int subclass is not an index
    assert "unloggable_info" in by_key["ep_a-4"]["info"]
    for command in (["score", str(run)], ["view", str(run)]):
        assert main(command) == 0, command
    assert not marker.exists()
    summary = json.loads((run / "summary.json").read_text())
    assert summary["cases_scored"] == 12


def test_a_returned_object_is_never_unpickled_in_the_runner(tmp_path, capsys):
    _, run, marker = _odd_run(tmp_path, capsys, "--agent-arg", "only=str_subclass")
    assert not marker.exists()
    assert [r["response"] for r in records(run)] == ['{"frame_indices": [0]}'] * 12


def test_a_garbage_run_log_line_is_one_line_naming_the_file_and_line(tmp_path, capsys):
    from recallbench.cli import main

    _, run, _ = _odd_run(tmp_path, capsys)
    log = run / "runlog.jsonl"
    lines = log.read_text().splitlines(keepends=True)
    for bad in ('{"key": "ep_a-0", "x": ' + "1" * 5000 + "}\n", "[" * 100_000 + "\n",
                "\xff\xfe not json\n", '"just a string"\n'):
        log.write_bytes("".join([*lines[:3], bad, *lines[3:]]).encode("utf-8", "surrogateescape")
                        if not bad.startswith("\xff") else
                        "".join(lines[:3]).encode() + b"\xff\xfe not json\n" +
                        "".join(lines[3:]).encode())
        for command in (["score", str(run)], ["view", str(run)]):
            assert main(command) == 2, (bad[:20], command)
            out = squash("".join(capsys.readouterr()))
            assert "runlog.jsonl:line4:" in out and out.count("error:") == 1, out
            assert "internalerror" not in out


def test_wrongly_typed_record_fields_fail_their_case_only(tmp_path, capsys):
    from recallbench.cli import main

    _, run, _ = _odd_run(tmp_path, capsys)
    log = run / "runlog.jsonl"
    recs = records(run)
    recs[5].update(offered_frames="abcdefgh")
    recs[6].update(frame_indices=None, response={"frame_indices": [0]})
    recs[7].update(frame_indices=None, response=None, ll="not a dict")
    log.write_text("".join(json.dumps(r) + "\n" for r in recs))
    for command in (["score", str(run)], ["score", str(run), "--scoring", "official"],
                    ["view", str(run)]):
        assert main(command) == 0, command
        assert "internalerror" not in squash("".join(capsys.readouterr()))


# ------------------------------------------------------------ run folders: planted symlinks
def _fd_run(tmp_path: Path, *extra: str) -> tuple[list[str], Path]:
    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
            "--out", str(run), *extra]
    assert main(args) == 0
    return args, run


def test_planted_symlinks_in_a_run_folder_are_refused_never_followed(tmp_path, capsys):
    from recallbench.cli import main

    args, run = _fd_run(tmp_path, "--limit", "4")
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me\n")
    kept = (run / "runlog.jsonl").read_bytes()
    for planted in (".lock", "runlog.jsonl"):
        real = run / planted
        real.rename(tmp_path / f"real{planted}")
        real.symlink_to(victim)
        capsys.readouterr()
        for command in ([*args, "--resume"], ["score", str(run)], ["view", str(run)]):
            if planted == ".lock" and command[0] != "findingdory":
                continue  # score and view take no lock
            assert main(command) == 2, (planted, command)
            out = squash("".join(capsys.readouterr()))
            assert f"{planted}:isasymboliclink" in out and out.count("error:") == 1, out
            assert victim.read_text() == "keep me\n"
        real.unlink()
        (tmp_path / f"real{planted}").rename(real)
    for planted in ("summary.json.tmp", ".summary.json.tmp"):  # the old and any fixed name
        (run / planted).symlink_to(victim)
    assert main(["score", str(run)]) == 0
    assert victim.read_text() == "keep me\n"
    assert (run / "runlog.jsonl").read_bytes() == kept


@pytest.mark.slow
def test_overwrite_never_deletes_a_folder_another_process_is_writing(tmp_path, capsys):
    import fcntl

    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    out = tmp_path / "cmp"
    args = ["run", "--suite", str(suite), "--agents", "random", "--out", str(out),
            "--limit", "3"]
    assert main([*args, "--frames", "8"]) == 0
    folder = out / "findingdory" / "random"
    log = (folder / "runlog.jsonl").read_bytes()
    lock = folder / ".lock"
    inode = lock.stat().st_ino
    with open(lock, "r+b") as held:  # a writer still running on this folder
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        capsys.readouterr()
        assert main([*args, "--frames", "4", "--overwrite"]) == 2
        out_text = squash("".join(capsys.readouterr()))
        assert "iswritingthisrunfolder" in out_text, out_text
        assert (folder / "runlog.jsonl").read_bytes() == log  # nothing recorded is lost
    assert main([*args, "--frames", "4", "--overwrite"]) == 0  # the writer is gone: redone
    assert lock.stat().st_ino == inode  # the lock a next writer waits on is the same file
    assert json.loads((folder / "manifest.json").read_text())["frames"] == 4


# ----------------------------------------------------------------------- secrets, escaped
KEY = "sk-test/0123456789abcdef/SECRET"


def _escaped(key: str, form: int) -> str:
    """The key as a server's JSON may spell it: slashes escaped, or every character \\u."""
    if form == 0:
        return key.replace("/", "\\/")
    return "".join(f"\\u{ord(c):04{'x' if form == 1 else 'X'}}" for c in key)


@pytest.mark.slow
def test_a_json_escaped_key_is_redacted_from_every_file_and_the_console(tmp_path, monkeypatch,
                                                                       capfd):
    from recallbench.cli import main
    from support.chat_server import ChatServer, Reply
    from support.findingdory_suite import build_suite

    count = []

    def echo(request) -> Reply:
        form = len(count) % 3
        count.append(1)
        content = f'{{"chain_of_thought": "your key is {_escaped(KEY, form)}", ' \
                  '"frame_indices": [1]}'
        if len(count) % 2:  # an error body echoing the key, escaped
            return Reply(status=400, raw=f'{{"error": "bad key {_escaped(KEY, form)}"}}'.encode())
        body = json.dumps({"choices": [{"message": {"content": "@"}}]}).replace(
            '"@"', json.dumps(content).replace("\\\\u", "\\u").replace("\\\\/", "\\/"))
        return Reply(raw=body.encode())

    monkeypatch.setenv("RB_TEST_KEY", KEY)
    suite = build_suite(tmp_path / "suite")
    run = tmp_path / "run"
    with ChatServer(echo) as server:
        main(["findingdory", "--data", str(suite), "--agent", "vlm", "--out", str(run),
              "--limit", "6", "--frames", "8", "--agent-arg", "model=m",
              "--agent-arg", f"base_url={server.base_url}", "--agent-arg",
              "api_key_env=RB_TEST_KEY", "--agent-arg", "max_retries=0",
              "--agent-arg", f"cache_dir={run / 'cache'}"])
        main(["view", str(run)])
    assert len(count) >= 6
    written = [p for p in run.rglob("*") if p.is_file()]
    assert any(p.name == "runlog.jsonl" for p in written)
    text = "".join(p.read_bytes().decode("utf-8", "replace") for p in written)
    assert "[REDACTED]" in text
    for form in range(3):
        assert KEY not in text and _escaped(KEY, form) not in text
    console = capfd.readouterr()
    assert KEY not in console.out + console.err


def test_credentials_in_base_url_are_refused_before_the_manifest(tmp_path, capsys):
    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    for url in ("http://user:hunter2@127.0.0.1:9/v1", "http://127.0.0.1:9/v1?api_key=hunter2"):
        code = main(["findingdory", "--data", str(suite), "--agent", "vlm", "--out",
                     str(tmp_path / "run"), "--agent-arg", "model=m",
                     "--agent-arg", f"base_url={url}"])
        out = "".join(capsys.readouterr())
        assert code == 2 and "base_url" in out and "credentials" in out, out
        assert not (tmp_path / "run" / "manifest.json").exists()


# ---------------------------------------------------------------- the video resolution cap
def _big_video(path: Path, side: int = 4608) -> None:
    import av
    import numpy as np

    with av.open(str(path), "w") as container:  # a few KB on disk, 64 MB per decoded frame
        stream = container.add_stream("libx264", rate=20)
        stream.width = stream.height = side
        stream.pix_fmt = "yuv420p"
        frame = av.VideoFrame.from_ndarray(np.zeros((side, side, 3), np.uint8), format="rgb24")
        for packet in [*stream.encode(frame), *stream.encode()]:
            container.mux(packet)


def test_a_video_above_the_resolution_cap_is_one_line_at_load_and_a_case_error_later(
        tmp_path, capsys):
    from recallbench.agents.base import FrameQuery
    from recallbench.cli import main
    from support.chat_server import ChatServer, Reply
    from support.findingdory_suite import build_suite

    suite = build_suite(tmp_path / "suite")
    big = suite / "videos" / "ep_b.mp4"
    _big_video(big)
    assert main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                 "--out", str(tmp_path / "run")]) == 2
    out = squash("".join(capsys.readouterr()))
    assert out.count("error:") == 1 and "ep_b.mp4" in out and "resolutioncap" in out, out
    assert not (tmp_path / "run" / "runlog.jsonl").exists()
    # swapped in after the load check: the decoder refuses it, the case records why (no retry)
    from recallbench.agents.vlm import VLMAgent

    with ChatServer([Reply('{"frame_indices": [0]}')]) as server:
        answer = VLMAgent(model="m", base_url=server.base_url, max_retries=0).select_frames(
            FrameQuery("c", "find the mug", str(big), (0,)), None)
    assert answer.info["failure_mode"] == "decode_error" and "resolution cap" in \
        answer.info["error"]
    assert not server.requests


# ------------------------------------------------------------------------ view --serve, console
def test_the_served_viewer_checks_the_host_and_follows_no_symlink(tmp_path, capsys):
    import http.client
    import threading

    from recallbench.report.viewer.serve import serve
    from recallbench.report.viewer.site import build_viewer

    _, run = _fd_run(tmp_path, "--limit", "2")
    index = build_viewer(run)
    secret = tmp_path / "secret.txt"
    secret.write_text("private")
    (index.parent / "leak.txt").symlink_to(secret)
    (index.parent / "leakdir").symlink_to(tmp_path)
    ready, stop = threading.Event(), threading.Event()
    thread = threading.Thread(target=serve, args=(run, index.parent, 0),
                              kwargs={"ready": ready, "stop": stop}, daemon=True)
    thread.start()

    def get(path: str, host: str | None = None) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", ready.port, timeout=5)
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host or f"127.0.0.1:{ready.port}")
        conn.endheaders()
        reply = conn.getresponse()
        return reply.status, reply.read()

    try:
        assert ready.wait(10)
        assert get("/index.html")[0] == 200
        assert get("/index.html", f"localhost:{ready.port}")[0] == 200
        assert get("/index.html", "attacker.example:80")[0] == 421  # DNS rebinding
        for path in ("/leak.txt", "/leakdir/secret.txt"):
            status, body = get(path)
            assert status == 404 and b"private" not in body
    finally:
        stop.set()
        thread.join(10)


def test_control_characters_never_reach_the_console(tmp_path):
    from support.fault_support import cli, error_lines

    evil = tmp_path / "qa\x1b[2J\x1b]0;pwned\x07.json"
    evil.write_text("[not json")
    proc = cli("findingdory", "--data", str(evil), "--agent", "random", "--out",
               str(tmp_path / "run"))
    assert proc.returncode == 2
    [line] = error_lines(proc.stderr)
    assert "\x1b" not in proc.stderr and "\x07" not in proc.stderr
    assert "qa\\x1b[2J\\x1b]0;pwned\\x07.json" in line
