"""Counts that mean nothing are refused in one line naming the flag, before any work (issue 34):
`--workers 0`, `generate strip --frames 0` or more frames than a strip holds or than the probe's
part of the video has, and a FindingDory `--frames` above every video's length."""

from __future__ import annotations

import json

import pytest

from recallbench.cli import main
from support.findingdory_suite import F, build_suite


def refused(argv: list[str], capsys) -> str:
    """The one error line of a command refused at parsing or before work (exit 2)."""
    try:
        status = main(argv)
    except SystemExit as exc:  # argparse's refusal
        status = exc.code
    assert status == 2
    (line,) = capsys.readouterr().err.strip().splitlines()
    return line


@pytest.mark.parametrize("argv", [
    ["generate", "scenemem", "--n", "1", "--workers", "0"],
    ["generate", "findingdory", "--n", "1", "--workers", "0"],
    ["audit", "SUITE", "--workers", "0"],
    ["export", "SUITE", "--dataset-format", "lerobot", "--workers", "0", "--out", "OUT2"],
])
def test_workers_0_is_refused_naming_the_flag(argv, tmp_path, capsys):
    out = tmp_path / "out"
    argv = [str(out) if a == "SUITE" else str(tmp_path / a) if a == "OUT2" else a for a in argv]
    if argv[0] == "generate":
        argv += ["--out", str(out)]
    assert "argument --workers: must be >= 1, got 0" in refused(argv, capsys)
    assert not out.exists() and not (tmp_path / "OUT2").exists()


def _scenario(root, end_frame: int):
    """A scenario's spec and subtasks, all a strip reads before it decodes a frame."""
    (root / "videos").mkdir(parents=True)
    fixture = {"name": "cab", "type": "cabinet", "body_name": "cab", "joint_names": ["h"]}
    (root / "eval_spec.json").write_text(json.dumps({"tests": [
        {"test_id": "t0", "task": "find_target", "subtask": 0, "category": "bowl",
         "object": "bowl_1", "fixture": fixture}]}))
    (root / "videos" / "subtasks.json").write_text(json.dumps({"tasks": [
        {"instruction": "put the bowl away", "start_frame": 0, "end_frame": end_frame,
         "skills": [{"skill": "place", "success": True, "start_frame": 0,
                     "end_frame": end_frame}]}]}))
    return root


@pytest.mark.parametrize("frames", ["0", "1", "5000"])
def test_strip_frames_outside_what_a_strip_shows_are_refused(frames, tmp_path, capsys):
    scenario = _scenario(tmp_path / "combo_0000", 600)
    line = refused(["generate", "strip", str(scenario), "--frames", frames], capsys)
    assert f"argument --frames: must be 2..32, got {frames}" in line
    assert not (scenario / "strip.png").exists()


def test_strip_frames_beyond_the_probes_part_of_the_video_are_refused(tmp_path, capsys):
    scenario = _scenario(tmp_path / "combo_0000", 10)  # a 10-frame probe
    line = refused(["generate", "strip", str(scenario), "--frames", "32"], capsys)
    assert line.startswith("recallbench generate: error: --frames: 32 frames per probe, but "
                           f"tests[0] in {scenario / 'eval_spec.json'} spans ")
    assert line.endswith("frames of its video (3-9): ask for fewer")  # from a third of the way in
    assert not (scenario / "strip.png").exists()


@pytest.mark.parametrize("command", ["findingdory", "run"])
def test_findingdory_frames_above_every_video_are_refused(command, tmp_path, capsys):
    from recallbench.benchmarks.findingdory.data import load_suite
    from recallbench.cli.checks import check_frames

    suite = build_suite(tmp_path / "fd")
    out = tmp_path / "out"
    argv = (["findingdory", "--data", str(suite), "--agent", "random"] if command == "findingdory"
            else ["run", "--suite", str(suite), "--agents", "random"])
    line = refused([*argv, "--frames", "5000", "--out", str(out)], capsys)
    assert f"--frames: 5000 frames, more than any video of this suite has (the longest: {F})" \
        in line
    assert not out.exists()
    check_frames(F, load_suite(suite).cases)  # every frame, asked for as such: fine
