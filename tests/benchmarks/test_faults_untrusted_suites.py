"""Fault injection (issue 14), untrusted suites: a suite is data and runs no code, its files
stay inside its folder, and bad input is one line naming the file and field before any work.
Real processes, real MuJoCo, real videos. Every test failed on the code before the fix.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from support.fault_support import cli, error_lines, fd_rows, records, set_env_args, squash
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy


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


@pytest.mark.slow
def test_builtins_exec_through_recallbench_run_is_refused(tmp_path):
    marker = tmp_path / "pwned"
    scen = mini_scenario(tmp_path / "suite" / "combo_1", [mini_test("t", "bowl")])
    code = f"open({str(marker)!r}, 'w').write('x')"
    set_env_args(scen, env_factory="builtins:exec", env_name=code, env_kwargs={})
    proc = cli("run", "--suite", str(tmp_path / "suite"), "--agents", "do-nothing",
               "--out", str(tmp_path / "cmp"), "--workers", "1")
    assert not marker.exists()
    assert "env_args.json: env_factory: 'builtins:exec'" in proc.stderr


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
    if where == "absolute":  # refused whole, before the env is built: one line
        [line] = error_lines(proc.stderr)
        assert "unified_model.xml: <include file=" in line and "outside the scenario" in line
        assert "env loading failed" not in line
    else:  # resolved inside the scenario's env/ folder, where no such file exists: the env
        # fails to load (its test is recorded as failed), instead of reading ./outside.xml
        assert "env/outside.xml" in squash(proc.stderr) or "outside.xml" in proc.stderr
        assert "produced no answer" in error_lines(proc.stderr)[-1]


@pytest.mark.slow
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

    suite = fd_rows(tmp_path, **override)
    assert main(["findingdory", "--data", str(suite), "--agent", "random",
                 "--out", str(tmp_path / "run"), "--frames", "8"]) == 2
    # One message (the console wraps it; the lead's shared printer will keep it one line).
    out = squash("".join(capsys.readouterr()))
    assert out.count("error:") == 1 and "Traceback" not in out, out
    assert f"{field}:" in out and "qa.json:row" in out, out
    assert not (tmp_path / "run" / "runlog.jsonl").exists()  # refused before any work


def test_a_symlinked_video_leaving_the_suite_is_refused(tmp_path):
    from recallbench.benchmarks.findingdory.data import load_suite, resolve_video
    from recallbench.errors import InputError

    suite_dir = fd_rows(tmp_path)
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


# ------------------------------------------------------------------- finding 10: bad inputs
@pytest.mark.parametrize("damage", ["garbage", "truncated"])
@pytest.mark.slow
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
    # nothing ran; the scenario's test counts in the totals as failed, saying why (issue 23)
    [record] = records(tmp_path / "r_run")
    assert record["error"].startswith("pre-flight check failed: ")
    assert "not a readable video" in record["error"]


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

    suite = fd_rows(tmp_path)
    (suite / "videos" / "ep_b.mp4").write_bytes(b"\x00garbage" * 500)
    assert main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                 "--out", str(tmp_path / "run")]) == 2
    out = squash("".join(capsys.readouterr()))  # the console wraps long paths anywhere
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

    suite = fd_rows(tmp_path)
    preds = tmp_path / "preds.jsonl"
    preds.write_bytes(content)
    assert main(["findingdory", "score", "--data", str(suite), "--predictions", str(preds),
                 "--frames", "8"]) == 2
    out = squash("".join(capsys.readouterr()))
    assert out.count("error:") == 1 and "preds.jsonl" in out and squash(field) in out, out


@pytest.mark.slow
def test_a_full_disk_mid_run_is_one_line_and_nothing_recorded_is_lost(tmp_path, capsys,
                                                                      monkeypatch):
    import errno

    import recallbench.run.runlog as runlog
    from recallbench.cli import main

    suite = fd_rows(tmp_path)
    run = tmp_path / "run"
    real_fsync, calls = os.fsync, []

    def fsync(fd: int) -> None:
        calls.append(fd)
        if len(calls) > 5:  # the sixth record does not fit on the disk
            raise OSError(errno.ENOSPC, "No space left on device")
        real_fsync(fd)

    monkeypatch.setattr(runlog.os, "fsync", fsync)
    monkeypatch.setattr(runlog, "SYNC_INTERVAL", 0.0)  # every record fsynced: the 6th meets it
    args = ["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
            "--out", str(run)]
    assert main(args) == 2
    out = squash("".join(capsys.readouterr()))
    assert squash("runlog.jsonl: cannot append a record: No space left on device") in out
    kept = [r["key"] for r in records(run)]
    assert len(kept) >= 5
    monkeypatch.setattr(runlog.os, "fsync", real_fsync)  # space freed
    assert main([*args, "--resume"]) == 0
    keys = [r["key"] for r in records(run)]
    assert keys[:5] == kept[:5] and len(keys) == len(set(keys)) == 12


def test_a_read_only_run_folder_is_one_line(tmp_path, capsys, monkeypatch):
    import errno

    from recallbench.cli import main

    suite = fd_rows(tmp_path)
    run = tmp_path / "run"
    args = ["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
            "--out", str(run), "--limit", "4"]
    assert main(args) == 0
    before = (run / "runlog.jsonl").read_bytes()
    real_open = os.open

    def read_only(path, flags, *rest, dir_fd=None):  # the folder was remounted read-only
        # (root ignores chmod); run-folder files are opened by name inside a folder's fd
        where = str(path) if dir_fd is None else os.path.join(
            os.readlink(f"/proc/self/fd/{dir_fd}"), path)
        if where.startswith(str(run)) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT):
            raise OSError(errno.EROFS, "Read-only file system", where)
        return real_open(path, flags, *rest, dir_fd=dir_fd)

    monkeypatch.setattr(os, "open", read_only)
    capsys.readouterr()
    assert main([*args[:-2], "--resume"]) == 2
    out = squash("".join(capsys.readouterr()))
    assert "Read-onlyfilesystem" in out and out.count("error") == 1, out
    assert squash(f"{run}: cannot write the run folder") in out, out  # names the folder
    monkeypatch.undo()
    assert (run / "runlog.jsonl").read_bytes() == before
