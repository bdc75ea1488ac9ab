"""`view` writes only inside the run folder and stays bounded (issue 35).

A planted ``viewer`` or ``viewer/data`` symlinked folder sent the viewer's writes outside the run
folder (``O_NOFOLLOW`` guarded only the last component): every component is refused now, with
one line. A record of a million frame indices, or ``"seconds": NaN``, is one case's page, not
minutes or an internal error. ``view --serve`` lists no folder and takes ``[::1]`` as a Host.
"""

from __future__ import annotations

import http.client
import json
import os
import selectors
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from support.fault_support import RECALLBENCH, SRC, cli, error_lines, squash


@pytest.fixture(scope="module")
def fd_run(tmp_path_factory) -> Path:
    """A real FindingDory run of two cases (the random agent, 8 offered frames)."""
    from recallbench.cli import main
    from support.findingdory_suite import build_suite

    root = tmp_path_factory.mktemp("viewer_hardening")
    suite = build_suite(root / "suite")
    run = root / "run"
    assert main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                 "--out", str(run), "--limit", "2"]) == 0
    return run


def _copy(run: Path, to: Path) -> Path:
    shutil.copytree(run, to, symlinks=True)
    return to


def _thumb_folder(run: Path) -> str:
    from recallbench.report.viewer.thumbs import video_key

    manifest = json.loads((run / "manifest.json").read_text())
    return f"viewer/thumbs/{video_key(Path(manifest['data']) / 'videos' / 'ep_a.mp4')}"


def _state(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() if p.is_file() else b"<dir>"
            for p in sorted(folder.rglob("*"))}


@pytest.mark.parametrize("planted", ["viewer", "viewer/data", "viewer/thumbs", "thumb-video",
                                     "viewer/data/overview.js", "viewer/index.html"])
def test_view_refuses_a_symlink_in_any_component_and_writes_nothing_outside(
        planted, fd_run, tmp_path, capsys):
    from recallbench.cli import main

    run = _copy(fd_run, tmp_path / "run")
    planted = _thumb_folder(run) if planted == "thumb-video" else planted
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "victim.js").write_text("keep me\n")
    before = _state(outside)
    link = run / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(outside / "victim.js" if link.suffix else outside)
    capsys.readouterr()
    assert main(["view", str(run)]) == 2
    out = "".join(capsys.readouterr())
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert len(errors) == 1 and squash(f"{link}:isasymboliclink") in squash(errors[0]), out
    assert _state(outside) == before  # nothing written, nothing replaced


def _edit_records(run: Path, **fields: object) -> list[dict]:
    """Set ``fields`` in the first record (``seconds`` NaN as a hand edit in Python writes)."""
    log = run / "runlog.jsonl"
    records = [json.loads(line) for line in log.read_text().splitlines()]
    records[0].update(fields)
    log.write_text("".join(json.dumps(r) + "\n" for r in records))
    return records


def _case(run: Path, key: str) -> dict:
    text = (run / "viewer" / "data" / "cases-000.js").read_text()
    cases = json.loads(text[text.find(",") + 1:text.rfind(")")])
    return next(c for c in cases if c["id"] == key)["detail"]


def test_a_record_of_a_million_frame_indices_is_one_bounded_page(fd_run, tmp_path):
    run = _copy(fd_run, tmp_path / "run")
    records = _edit_records(run, frame_indices=list(range(1_000_000)))
    start = time.perf_counter()
    proc = cli("view", str(run), timeout=300)
    took = time.perf_counter() - start
    assert proc.returncode == 0 and "internal error" not in proc.stderr, proc.stderr
    assert took < 60, took
    detail = _case(run, records[0]["key"])
    assert detail["chosen"] == [] and detail["failure"] == "response_error"
    assert "1000000 frame indices" in detail["parse_error"]


def test_a_record_with_nan_seconds_is_shown_not_an_internal_error(fd_run, tmp_path):
    run = _copy(fd_run, tmp_path / "run")
    records = _edit_records(run, seconds=float("nan"))
    proc = cli("view", str(run))
    assert proc.returncode == 0 and "internal error" not in proc.stderr, proc.stderr
    assert _case(run, records[0]["key"])["transcript"]["seconds"] is None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _get(port: int, path: str, host: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.putrequest("GET", path, skip_host=True)
        conn.putheader("Host", host)
        conn.endheaders()
        reply = conn.getresponse()
        return reply.status, reply.read()
    finally:
        conn.close()


def _wait_serving(proc: subprocess.Popen, deadline: float) -> str:
    """stderr up to the "serving http://" line (the server listens from then on)."""
    seen = ""
    assert proc.stderr is not None
    with selectors.DefaultSelector() as sel:
        sel.register(proc.stderr, selectors.EVENT_READ)
        while "serving http://" not in seen:
            assert time.monotonic() < deadline and proc.poll() is None, seen
            if sel.select(timeout=1):
                seen += proc.stderr.readline()
    return seen


def test_served_viewer_lists_no_folder_and_takes_every_loopback_host(fd_run, tmp_path):
    run = _copy(fd_run, tmp_path / "run")
    port = _free_port()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        p for p in (SRC, os.environ.get("PYTHONPATH")) if p)}
    proc = subprocess.Popen([RECALLBENCH, "view", str(run), "--serve", "--port", str(port)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env=env)
    try:
        _wait_serving(proc, time.monotonic() + 60)
        here = f"127.0.0.1:{port}"
        for folder in ("/data/", "/thumbs/", "/"):
            status, body = _get(port, folder, here)
            if folder == "/":  # the page itself (index.html), never a listing
                assert status == 200 and b"Directory listing" not in body
            else:
                assert status == 404 and b"overview.js" not in body, (folder, body[:200])
        assert _get(port, "/data/overview.js", here)[0] == 200
        for host in (f"[::1]:{port}", "[::1]", f"localhost:{port}", f"127.0.0.1:{port}"):
            assert _get(port, "/index.html", host)[0] == 200, host
        for host in (f"attacker.example:{port}", f"[::2]:{port}", f"127.0.0.1.evil:{port}"):
            assert _get(port, "/index.html", host)[0] == 421, host
    finally:
        proc.terminate()  # the server this test started, by its own handle
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(10)


def test_score_and_report_refuse_a_planted_summary_link(fd_run, tmp_path):
    """The last component too: one line, the file it points at untouched."""
    run = _copy(fd_run, tmp_path / "run")
    victim = tmp_path / "victim.json"
    victim.write_text('{"keep": true}\n')  # no scores: `report` scores the run again
    (run / "summary.json").unlink()
    (run / "summary.json").symlink_to(victim)
    for command in ("score", "report"):
        proc = cli(command, str(run))
        assert proc.returncode == 2 and len(error_lines(proc.stderr)) == 1, (command,
                                                                             proc.stderr)
        assert squash(f"{run / 'summary.json'}:isasymboliclink") in squash(proc.stderr)
        assert victim.read_text() == '{"keep": true}\n'
