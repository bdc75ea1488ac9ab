"""``--policy-arg preset=libero|droid`` against a real WebSocket server that holds each request
to the real openpi configs' contracts (support/openpi_contract.py): every test runs, the
request has the keys, shapes, dtypes and image orientation the checkpoint was trained on, and
the reply's columns land in the right slots of the env's applied actions."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from support.openpi_contract import DROID, GRIPPER, LIBERO, contract_server
from support.policy_server import ENV, RECALLBENCH
from support.scenemem_fixtures.build import mini_scenario, mini_test, write_scenario
from support.scenemem_fixtures.robosuite_door import door_test

pytest.importorskip("openpi_client")
pytestmark = pytest.mark.openpi
RECORDING = f"{Path(__file__).parents[2] / 'support/scenemem_fixtures/recording_env.py'}:make_env"
KITCHEN_KWARGS = {"seed": 0, "camera_names": ["robot0_agentview_left", "robot0_eye_in_hand"],
                  "camera_widths": 96, "camera_heights": 96}
# robosuite 1.5.2's JOINT_VELOCITY arm controller fails to build (it assigns a read-only
# property), so the 7-joint arm takes DROID's columns through its joint controller in delta mode
JOINT_ARM = {"type": "JOINT_POSITION", "input_max": 1, "input_min": -1, "output_max": 0.05,
             "output_min": -0.05, "kp": 50, "damping_ratio": 1, "impedance_mode": "fixed",
             "kp_limits": [0, 300], "damping_ratio_limits": [0, 10], "qpos_limits": None,
             "interpolation": None, "ramp_ratio": 0.2, "input_type": "delta",
             "gripper": {"type": "GRIP"}}


def kitchen_scenario(data: Path) -> tuple[Path, dict]:
    """The built-in kitchen with two probes and two cameras; returns it and its start obs."""
    from recallbench.world.env import make_env

    env = make_env("RecallbenchKitchen", **KITCHEN_KWARGS)
    env.reset()
    fixtures = {f["name"]: f for f in env.world_meta["fixtures"]}
    tests = [{"test_id": f"t_{fx}", "object": f"obj_{cat}_1", "category": cat,
              "fixture": {k: fixtures[fx][k] for k in ("name", "type", "body_name",
                                                       "joint_names")}}
             for cat, fx in (("bowl", "microwave"), ("mug", "fridge"))]
    root = write_scenario(data / "combo_0900_L0_S0_0", tests, env.xml,
                          env.sim.get_state().flatten(),
                          {"env_name": "RecallbenchKitchen", "env_kwargs": KITCHEN_KWARGS},
                          env.get_ep_meta())
    obs = env._get_observations()
    env.close()
    return root, obs


def door_scenario(data: Path, arm: dict | None = JOINT_ARM) -> tuple[Path, dict]:
    """robosuite's Door with PandaOmron, its arm under a joint controller (``arm``; None: the
    stock OSC arm), two 64x64 cameras."""
    import robosuite
    from robosuite.controllers import load_composite_controller_config

    config = load_composite_controller_config(robot="PandaOmron")
    if arm is not None:
        config["body_parts"]["right"] = arm
    kwargs = {"robots": "PandaOmron", "controller_configs": config, "control_freq": 20,
              "use_camera_obs": True, "camera_names": ["agentview", "robot0_eye_in_hand"],
              "camera_heights": 64, "camera_widths": 64}
    env = robosuite.make("Door", **kwargs, has_renderer=False, has_offscreen_renderer=True,
                         ignore_done=True)
    try:
        env.reset()
        state, xml = env.sim.get_state().flatten(), env.sim.model.get_xml()
        obs = env._get_observations(force_update=True)
        root = write_scenario(data / "combo_0001_L1_S1_0", [door_test("d0"), door_test("d1")],
                              xml, state, {"env_name": "Door", "env_kwargs": kwargs, "type": 1},
                              env.get_ep_meta() if hasattr(env, "get_ep_meta") else {})
    finally:
        env.close()
    return root, obs


def scenemem(tmp_path: Path, url: str, *args: str) -> tuple[subprocess.CompletedProcess, list]:
    log = tmp_path / "actions.jsonl"
    proc = subprocess.run(
        [RECALLBENCH, "scenemem", "--data_dir", str(tmp_path / "data"), "--out",
         str(tmp_path / "r.json"), "--policy", url.replace("ws://", "openpi://"),
         "--policy-arg", "memory=none", "--workers", "1", *args],
        env={**ENV, "RECALLBENCH_ACTION_LOG": str(log)}, capture_output=True, text=True,
        timeout=300)
    actions = [json.loads(line) for line in log.read_text().splitlines()] \
        if log.exists() else []
    return proc, actions


def recorded(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in
            (tmp_path / "r_run" / "runlog.jsonl").read_text().splitlines()]


@pytest.mark.slow
def test_libero_preset_meets_pi05_libero_on_the_built_in_world(tmp_path):
    from openpi_client import image_tools

    from recallbench.agents.remote.obs_map import axis_angle

    _, start = kitchen_scenario(tmp_path / "data")
    with contract_server(LIBERO) as (url, contract):
        proc, actions = scenemem(tmp_path, url, "--policy-arg", "preset=libero",
                                 "--max_steps", "10", "--env_factory", RECORDING)
    assert proc.returncode == 0, proc.stderr
    assert contract.violations == []
    records = recorded(tmp_path)
    assert len(records) == 2 and all(r["error"] is None and r["steps"] == 10 for r in records)
    assert [r["step"] for r in contract.requests] == [0, 5, 0, 5]  # replan 5 of each (10, 7)
    # the images as the checkpoint saw them: robosuite's OpenGL frame turned 180 degrees
    # (openpi's client) is an upright frame mirrored left-right, and the built-in world's
    # frames are upright; then padded to 224
    for key, camera in (("observation/image", "robot0_agentview_left_image"),
                        ("observation/wrist_image", "robot0_eye_in_hand_image")):
        want = image_tools.resize_with_pad(start[camera][:, ::-1], 224, 224)
        turned = image_tools.resize_with_pad(start[camera][::-1, ::-1], 224, 224)  # before
        for request in contract.requests[::2]:
            got = request[key].astype(int)
            assert np.abs(got - want).mean() < 1.0
            assert np.abs(got - turned).mean() > 5 * np.abs(got - want).mean() + 1
    state = contract.requests[0]["observation/state"]
    assert state.dtype == np.float32
    assert np.allclose(state, np.concatenate([start["robot0_eef_pos"],
                                              axis_angle(start["robot0_eef_quat"]),
                                              start["robot0_gripper_qpos"]]), atol=1e-5)
    # every applied action: the reply's 7 columns in the arm's slots, base/torso held at 0,
    # the mode flag -1; the gripper column as the server sent it for that chunk
    assert len(actions) == 20 and all(len(a) == 12 for a in actions)
    arm = [(j + 1) / 10 * (-1) ** j for j in range(6)]
    for i, action in enumerate(actions):
        assert np.allclose(action[:6], arm, atol=1e-6)
        assert action[6] == GRIPPER["libero"][i // 5 % 2]
        assert action[7:] == [0.0, 0.0, 0.0, 0.0, -1.0]
    manifest = json.loads((tmp_path / "r_run" / "manifest.json").read_text())
    assert manifest["policy"]["preset"] == "libero"
    assert manifest["policy"]["action_map"]["parts"] == {"eef": 6, "gripper": 1}
    images = manifest["policy"]["obs_map"]
    assert images["images"]["observation/image"]["flip"] == "horizontal"  # of an upright frame
    assert images["applied_flips"]["opengl"]["observation/image"] == "rot180"
    for record in records:  # what this env was: upright frames, the 12-dim RoboCasa layout
        assert record["policy_info"] == {
            "image_convention": "upright", "action_slots": list(range(7)),
            "image_flips": {"observation/image": "horizontal",
                            "observation/wrist_image": "horizontal"},
            "held": {"7": 0.0, "8": 0.0, "9": 0.0, "10": 0.0, "11": -1.0}}


@pytest.mark.slow
def test_libero_preset_on_robosuites_stock_panda_omron_indexes_its_split_parts(tmp_path):
    """robosuite 1.5.2's PandaOmron (OSC arm) orders its action arm 0..5, torso 6, base 7..9,
    gripper 10, mode 11 (its composite controller's split indexes), not RoboCasa's order."""
    pytest.importorskip("robosuite")
    from openpi_client import image_tools

    _, start = door_scenario(tmp_path / "data", arm=None)
    with contract_server(LIBERO) as (url, contract):
        proc, actions = scenemem(tmp_path, url, "--policy-arg", "preset=libero",
                                 "--max_steps", "10", "--env_factory", RECORDING)
    assert proc.returncode == 0, proc.stderr
    assert contract.violations == []
    records = recorded(tmp_path)
    assert len(records) == 2 and all(r["error"] is None and r["steps"] == 10 for r in records)
    assert len(actions) == 20 and all(len(a) == 12 for a in actions)
    arm = [(j + 1) / 10 * (-1) ** j for j in range(6)]
    for i, action in enumerate(actions):
        assert np.allclose(action[:6], arm, atol=1e-6)  # eef delta: the arm part
        assert action[6] == 0.0  # torso held
        assert action[7:10] == [0.0, 0.0, 0.0]  # base held
        assert action[10] == GRIPPER["libero"][i // 5 % 2]  # the gripper part
        assert action[11] == -1.0  # mode: arm
    # robosuite renders OpenGL frames (rows bottom-up): turned 180 degrees, as openpi's client
    want = image_tools.resize_with_pad(start["agentview_image"][::-1, ::-1], 224, 224)
    got = contract.requests[0]["observation/image"].astype(int)
    assert np.abs(got - want).mean() < 1.0
    assert records[0]["policy_info"]["image_convention"] == "opengl"
    assert records[0]["policy_info"]["image_flips"]["observation/image"] == "rot180"
    assert records[0]["policy_info"]["action_slots"] == [0, 1, 2, 3, 4, 5, 10]


@pytest.mark.slow
def test_droid_preset_meets_pi05_droid_on_robosuites_panda_omron(tmp_path):
    pytest.importorskip("robosuite")
    _, start = door_scenario(tmp_path / "data")
    with contract_server(DROID) as (url, contract):
        proc, actions = scenemem(tmp_path, url, "--policy-arg", "preset=droid",
                                 "--max_steps", "16", "--env_factory", RECORDING)
    assert proc.returncode == 0, proc.stderr
    assert contract.violations == []
    records = recorded(tmp_path)
    assert len(records) == 2 and all(r["error"] is None and r["steps"] == 16 for r in records)
    assert [r["step"] for r in contract.requests] == [0, 8, 0, 8]  # DROID's open loop: 8
    first = contract.requests[0]
    assert np.allclose(first["observation/joint_position"], start["robot0_joint_pos"], atol=1e-5)
    # DROID's gripper position: 0 open .. 1 closed; the Panda's fingers open 0.04 m each
    gap = np.abs(start["robot0_gripper_qpos"]).sum()
    closed = float(first["observation/gripper_position"][0])
    assert closed == pytest.approx(1 - gap / 0.08) and 0.3 < closed < 0.7  # half open
    assert first["observation/exterior_image_1_left"].shape == (224, 224, 3)
    # robosuite's action with a joint arm: arm 0..6, torso 7, base 8..10, gripper 11, mode 12
    assert len(actions) == 32 and all(len(a) == 13 for a in actions)
    joints = [(j + 1) / 10 * (-1) ** j for j in range(7)]
    for i, action in enumerate(actions):
        assert np.allclose(action[:7], joints, atol=1e-6)
        assert action[7:11] == [0.0, 0.0, 0.0, 0.0]
        assert action[11] == (1.0 if i // 8 % 2 == 0 else -1.0)  # 0.9 closes, 0.2 opens
        assert action[12] == -1.0


def test_droid_preset_on_the_built_in_world_is_one_line_before_work(tmp_path):
    kitchen_scenario(tmp_path / "data")
    with contract_server(DROID) as (url, contract):
        proc, actions = scenemem(tmp_path, url, "--policy-arg", "preset=droid")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("recallbench scenemem: error: --policy-arg preset=droid: "
                               "scenario combo_0900_L0_S0_0: the env RecallbenchKitchen (the "
                               "built-in world) has a 5-joint arm"), lines[0]
    assert "needs a 7-joint arm with a joint controller" in lines[0]
    assert contract.requests == [] and actions == []
    assert not (tmp_path / "r_run").exists()


def test_an_unknown_preset_is_one_line(tmp_path):
    mini_scenario(tmp_path / "data" / "combo_000_L1_S1_0001", [mini_test("t0", "bowl")])
    proc, _ = scenemem(tmp_path, "ws://127.0.0.1:9", "--policy-arg", "preset=aloha")
    assert proc.returncode == 2
    assert proc.stderr.splitlines() == ["recallbench scenemem: error: --policy-arg preset=aloha: "
                                        "unknown preset; known: robocasa, libero, droid"]
