"""Served and LeRobot policies checked before any work, in `run` as in `scenemem` (issue 34): a
dead server is one line naming the agent and its address; a suite without camera observations
is refused for a policy that needs images, naming the scenario's file and the setting. And an
error shown short is cut between whole items of its list, with a count of the rest."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from recallbench.errors import InputError
from support.policy_server import ENV, RECALLBENCH, free_port, start_server, stop
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test

pytest.importorskip("openpi_client")
pytestmark = pytest.mark.openpi


def suite(root: Path) -> Path:
    """One mini-kitchen scenario whose env_args.json says use_camera_obs: false."""
    mini_scenario(root / "combo_007_L3_S4_0001", [mini_test("t0", "obj0", "drawer")],
                  base_xy=(1.0, 0.5))
    return root


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([RECALLBENCH, *args], env=ENV, capture_output=True, text=True,
                          timeout=120)


@pytest.fixture(scope="module")
def server():
    port = free_port()
    proc = start_server("ObservationSeeker", port)
    yield port
    stop(proc)


def test_run_refuses_a_dead_served_agent_before_any_agent_runs(tmp_path):
    port = free_port()  # bound and released: nothing listens there
    out = tmp_path / "cmp"
    proc = cli("run", "--suite", str(suite(tmp_path / "data")), "--agents",
               f"do-nothing,openpi://127.0.0.1:{port}", "--out", str(out),
               "--scenemem-env-factory", MINI_FACTORY)
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    assert f"agent 'openpi://127.0.0.1:{port}' at ws://127.0.0.1:{port}" in line
    assert "no policy server answers" in line
    assert not out.exists()  # do-nothing never ran: nothing left behind


@pytest.mark.parametrize("command", ["scenemem", "run"])
def test_a_suite_without_cameras_is_refused_for_a_policy_that_needs_images(tmp_path, server,
                                                                            command):
    data = suite(tmp_path / "data")
    policy = f"openpi://127.0.0.1:{server}"  # openpi's default map sends three camera images
    if command == "scenemem":
        args = ["scenemem", "--data_dir", str(data), "--policy", policy,
                "--out", str(tmp_path / "r.json"), "--env_factory", MINI_FACTORY]
    else:
        args = ["run", "--suite", str(data), "--agents", f"do-nothing,{policy}",
                "--out", str(tmp_path / "cmp"), "--scenemem-env-factory", MINI_FACTORY]
    proc = cli(*args)
    assert proc.returncode == 2, proc.stderr
    (line,) = proc.stderr.strip().splitlines()
    spec = data / "combo_007_L3_S4_0001" / "env" / "env_args.json"
    assert f"{spec}: env_kwargs.use_camera_obs: false" in line
    assert "needs camera images (observation/image, " in line
    assert sorted(p.name for p in tmp_path.iterdir()) == ["data"]  # nothing written


def test_a_policy_that_reads_no_images_runs_on_such_a_suite(tmp_path, server):
    """The refusal is about images: a served policy whose obs_map sends none is not refused,
    neither is one of LeRobot's without image features; one with them is."""
    from recallbench.agents.vla import check_policy_cameras
    from recallbench.benchmarks.scenemem.spec import load_scenario

    data = suite(tmp_path / "data")
    scenario = load_scenario(data / "combo_007_L3_S4_0001", MINI_FACTORY)
    no_images = tmp_path / "map.toml"
    no_images.write_text('images = {}\nstate = {}\npass = ["base_pos"]\n')
    check_policy_cameras(f"openpi://127.0.0.1:{server}", {"obs_map": str(no_images)},
                         [scenario], camera_obs=True)
    folder = tmp_path / "act"
    folder.mkdir()
    (folder / "model.safetensors").write_bytes(b"")
    features = {"observation.state": {"type": "STATE", "shape": [4]}}
    (folder / "config.json").write_text(json.dumps({"type": "act", "input_features": features}))
    check_policy_cameras(f"lerobot:{folder}", {}, [scenario], camera_obs=True)
    features["observation.images.robot0_eye_in_hand"] = {"type": "VISUAL", "shape": [3, 8, 8]}
    (folder / "config.json").write_text(json.dumps({"type": "act", "input_features": features}))
    with pytest.raises(InputError, match=r"observation\.images\.robot0_eye_in_hand"):
        check_policy_cameras(f"lerobot:{folder}", {}, [scenario], camera_obs=True)


def test_errors_are_cut_between_whole_items_with_a_count():
    from recallbench.benchmarks.seam import first_error
    from recallbench.errors import shorten

    keys = [f"robot0_observation_{i:02d}" for i in range(40)]
    message = f"obs_map: 'observation/image' needs 'robot0_agentview_left_image'; env has {keys}"
    shown = first_error({"error": message})
    assert shown is not None and len(shown) <= 320
    listed = shown.partition("env has [")[2]
    items, _, note = listed.rpartition(", ... and ")
    assert note.endswith(" more]")
    kept = [k.strip("'") for k in items.split(", ")]
    assert kept == keys[:len(kept)] and int(note.split()[0]) == len(keys) - len(kept)
    text = "word " * 100
    assert shorten(text, 60).endswith(f"... ({len(text) - shorten(text, 60).index(' ...')} "
                                      "more characters)")
