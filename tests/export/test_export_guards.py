"""What an export may read and write (issue 35): ``--out`` is never the suite, inside it or around
it, and is new, empty or an export; the suite is read as the runs read it (its own regular files,
the resolution cap); one export writes a folder at a time; a recorded fingerprint is never
trusted over the day's content. Each test copies the shared one-day suite before changing it."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from recallbench.cli import main
from support.shared_cache import built_once

pytest.importorskip("datasets")  # findingdory-sft writes with HF datasets

BOMB_SIDE = 8192  # the bomb: 2.6 GB for 3 decoded frames
BOMB_SCRIPT = """
import sys, av
with av.open(sys.argv[1], "w") as c:
    s = c.add_stream("libx264", rate=1)
    s.width = s.height = {side}
    s.pix_fmt = "yuv420p"
    s.options = {{"preset": "ultrafast", "crf": "51", "tune": "zerolatency", "threads": "1"}}
    f = av.VideoFrame({side}, {side}, "yuv420p")
    for p in f.planes:
        p.update(bytes(p.buffer_size))
    for i in range(2):
        f.pts = i
        c.mux(s.encode(f))
    c.mux(s.encode())
"""


def _export(suite: Path, out: Path, *extra: str) -> int:
    return main(["export", str(suite), "--dataset-format", "findingdory-sft", "--out", str(out),
                 "--workers", "1", "--frames", "8", *extra])


def _command(suite: Path, out: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "recallbench.cli", "export", str(suite), "--dataset-format",
            "findingdory-sft", "--out", str(out), "--workers", "1", "--frames", "8", *extra]


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file()}


def _one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


@pytest.fixture
def suite(findingdory_generated_suite: Path, tmp_path: Path) -> Path:
    """A copy of the one-day suite the test may change (and an export may not)."""
    copy = tmp_path / "holder" / "suite"
    shutil.copytree(findingdory_generated_suite, copy)
    return copy


@pytest.fixture(scope="session")
def bomb(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A real 8192x8192 H.264 mp4 of 2 frames (~200 KB), made once in a child process."""
    def build(folder: Path) -> None:
        folder.mkdir()
        subprocess.run([sys.executable, "-c", BOMB_SCRIPT.format(side=BOMB_SIDE),
                        str(folder / "bomb.mp4")], check=True)

    return built_once(tmp_path_factory, "resolution_bomb", build) / "bomb.mp4"


# ------------------------------------------------------------------------------------ --out
@pytest.mark.parametrize("where", ["suite", "inside", "new inside", "around", "symlink",
                                   "excluded"])
def test_out_never_names_the_suite_inside_or_around_it(suite: Path, tmp_path: Path,
                                                       capsys, where: str) -> None:
    before = _files(suite.parent)
    out = {"suite": suite, "inside": suite / "episodes", "new inside": suite / "sft",
           "around": suite.parent, "symlink": tmp_path / "link", "excluded": tmp_path / "ev"
           }[where]
    extra: list[str] = []
    if where == "symlink":
        out.symlink_to(suite)
    if where == "excluded":  # nor into a suite it is checked against
        shutil.copytree(suite, out, ignore=shutil.ignore_patterns("*.mp4"))
        extra = ["--exclude", str(out)]
        before = _files(out)
    assert _export(suite, out, *extra) == 2
    line = _one_line(capsys)
    assert "--out" in line and "never writes" in line and "internal error" not in line
    assert _files(out if where == "excluded" else suite.parent) == before  # nothing written


def test_out_is_new_empty_or_an_export(suite: Path, tmp_path: Path, capsys) -> None:
    """A folder another command made (a run folder) is no export folder, whatever it holds."""
    run = tmp_path / "run"
    run.mkdir()
    (run / "manifest.json").write_text("{}")
    (run / "runlog.jsonl").write_text("")
    assert _export(suite, run) == 2
    assert "--out" in _one_line(capsys)
    assert sorted(p.name for p in run.iterdir()) == ["manifest.json", "runlog.jsonl"]


def test_the_dataset_never_replaces_what_this_export_did_not_write(suite: Path,
                                                                    tmp_path: Path,
                                                                    capsys) -> None:
    out = tmp_path / "sft"
    assert _export(suite, out, "--shard", "1/1") == 0  # the days, not yet the dataset
    (out / "README.md").write_text("my notes")  # put there between the runs
    capsys.readouterr()
    assert _export(suite, out) == 2
    line = _one_line(capsys)
    assert "README.md" in line and "not written by this export" in line
    assert (out / "README.md").read_text() == "my notes"
    (out / "README.md").unlink()
    stale = out / "videos" / ".ep_0.mp4.x1y2.partial.mp4"  # a day killed mid-write
    stale.write_bytes(b"half")
    assert _export(suite, out) == 0
    assert not stale.exists()  # its own temp name: the finishing run, alone, removes it
    assert json.loads((out / "export.json").read_text())["written"] == ["data", "README.md"]
    assert _export(suite, out, "--frames", "8") == 0  # complete: a rerun changes nothing


# ------------------------------------------------------------------------------ suite reads
def test_a_video_symlinked_out_of_the_suite_is_refused_naming_it(suite: Path, tmp_path: Path,
                                                                  capsys) -> None:
    video = suite / "episodes" / "ep_0" / "video.mp4"
    outside = tmp_path / "elsewhere.mp4"
    shutil.move(video, outside)
    video.symlink_to(outside)
    out = tmp_path / "sft"
    assert _export(suite, out) == 2
    line = _one_line(capsys)
    assert str(video) in line and "outside the suite" in line
    assert not out.exists()  # before any work


def test_a_fifo_in_a_day_is_refused_not_waited_on(suite: Path, tmp_path: Path, capsys) -> None:
    os.mkfifo(suite / "episodes" / "ep_0" / "events.json.fifo")
    assert _export(suite, tmp_path / "sft") == 2
    assert "events.json.fifo" in _one_line(capsys)


def test_a_video_above_the_resolution_cap_is_refused_before_decoding(
        suite: Path, tmp_path: Path, bomb: Path, capsys) -> None:
    assert bomb.stat().st_size < 1_000_000  # a small file...
    video = suite / "episodes" / "ep_0" / "video.mp4"
    shutil.copyfile(bomb, video)
    out = tmp_path / "sft"
    assert _export(suite, out) == 2
    line = _one_line(capsys)
    assert str(video) in line and "8192x8192" in line and "resolution cap" in line
    assert not out.exists()
    # ...and where a day decodes (the file may change after the check), before any frame
    from recallbench.export.findingdory_sft import write_stamped_video
    from recallbench.export.sources import frames
    from recallbench.video.reader import VideoTooLarge

    with pytest.raises(VideoTooLarge):
        next(frames(bomb))
    with pytest.raises(VideoTooLarge):
        write_stamped_video(bomb, tmp_path / "v.mp4", np.arange(2),
                            ["08:00"] * 2, 10)
    assert list(tmp_path.glob("*.mp4")) == []  # no temp file left


# ------------------------------------------------------------------------------------- lock
def _held_by(proc: subprocess.Popen, lock: Path, timeout: float = 60.0) -> None:
    """Wait until ``proc`` holds the export folder's lock (it writes its pid there), then stop
    it (SIGSTOP): it holds the lock for as long as the test needs."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if lock.is_file() and lock.read_text().strip() == str(proc.pid):
            os.kill(proc.pid, signal.SIGSTOP)
            return
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.01)
    raise AssertionError("the export never took its lock")


@pytest.mark.slow  # two real exports, one in a child process
def test_a_second_export_into_one_out_is_refused_while_the_first_runs(
        suite: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "sft"
    first = subprocess.Popen(_command(suite, out), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        _held_by(first, out / ".lock")
        assert _export(suite, out) == 2
        line = _one_line(capsys)
        assert "--out" in line and f"pid {first.pid}" in line
    finally:
        if first.poll() is None:
            os.kill(first.pid, signal.SIGCONT)
        _, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert json.loads((out / "export.json").read_text())["complete"]
    assert [p.name for p in out.rglob("*partial*")] == []


@pytest.mark.slow
def test_shards_share_the_folder_and_the_final_run_waits_for_them(
        suite: Path, tmp_path: Path, capsys) -> None:
    out = tmp_path / "sft"
    shard = subprocess.Popen(_command(suite, out, "--shard", "1/1"), stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    try:
        _held_by(shard, out / ".lock")
        assert _export(suite, out, "--shard", "1/1") == 0  # the same day, its own temp names
        capsys.readouterr()
        assert _export(suite, out) == 2  # the dataset waits for every shard
        assert "--out" in _one_line(capsys)
    finally:
        if shard.poll() is None:
            os.kill(shard.pid, signal.SIGCONT)
        _, err = shard.communicate(timeout=300)
    assert shard.returncode == 0, err
    assert _export(suite, out) == 0
    assert [p.name for p in out.rglob("*partial*")] == []


# ------------------------------------------------------------------------------ fingerprints
def _edit(path: Path, change) -> None:
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))


def test_an_identical_day_with_an_edited_fingerprint_is_caught(
        findingdory_generated_suite: Path, suite: Path, tmp_path: Path, capsys) -> None:
    """The copy records another digest and another seed: the recorded fingerprint is a cache
    that must match the day's content; it is reported, and the recomputed one is used."""
    episode = suite / "episodes" / "ep_0" / "episode.json"

    def forge(meta: dict) -> None:
        meta["fingerprint"].update(digest="0" * 64, seed="99/0/0")

    _edit(episode, forge)
    evaluation = findingdory_generated_suite
    out = tmp_path / "sft"
    assert _export(suite, out, "--exclude", str(evaluation)) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 2 and "warning" in err[0] and str(episode) in err[0]
    assert "digest" in err[0] and "seed" in err[0]
    assert "--exclude" in err[1] and "identical day" in err[1]
    assert not out.exists()
    assert main(["audit", str(suite), "--against", str(evaluation)]) == 1
    captured = capsys.readouterr()
    assert "leak: day ep_0" in captured.out and str(episode) in captured.err


def test_an_identical_day_with_an_edited_record_is_caught_by_its_content(
        findingdory_generated_suite: Path, suite: Path, tmp_path: Path, capsys) -> None:
    """The copy's record says another home and seed (so its rebuilt digest differs too): its
    video, QA and events are the evaluation day's."""
    def forge(meta: dict) -> None:
        meta.pop("fingerprint")
        meta["seed"], meta["world"]["seed"] = 99, 12345

    _edit(suite / "episodes" / "ep_0" / "episode.json", forge)
    assert main(["audit", str(suite), "--against", str(findingdory_generated_suite)]) == 1
    assert "leak: day ep_0 is ep_0" in capsys.readouterr().out
    assert _export(suite, tmp_path / "sft", "--exclude", str(findingdory_generated_suite)) == 2
    assert "identical day" in _one_line(capsys)


def test_the_recomputed_fingerprint_is_what_an_export_records(suite: Path,
                                                               tmp_path: Path) -> None:
    from recallbench.generate.fingerprint import findingdory_day_fingerprint

    day = suite / "episodes" / "ep_0"
    fp = findingdory_day_fingerprint(day)
    recorded = json.loads((day / "episode.json").read_text())["fingerprint"]
    assert {k: fp[k] for k in recorded} == recorded  # the cache agrees: no note
    assert len(fp["video"]) == len(fp["content"]) == 64
    (day / "events.json").write_text("[]")  # other events: other content, same video
    again = findingdory_day_fingerprint(day)
    assert again["content"] != fp["content"] and again["video"] == fp["video"]
