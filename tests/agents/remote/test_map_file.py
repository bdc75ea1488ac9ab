"""A user's map file (``--policy-arg map=FILE``): a preset as its base, nested request keys,
C x H x W images, state transforms, an action map; each mistake one line naming the field."""

from __future__ import annotations

import json

import numpy as np
import pytest

from recallbench.agents.remote.obs_map import axis_angle
from recallbench.agents.remote.openpi_settings import openpi_settings
from recallbench.agents.remote.presets import PRESETS

pytest.importorskip("openpi_client")
pytestmark = pytest.mark.openpi


def obs() -> dict:
    rng = np.random.default_rng(0)
    return {"robot0_agentview_left_image": rng.integers(0, 255, (32, 48, 3), dtype=np.uint8),
            "robot0_eye_in_hand_image": rng.integers(0, 255, (32, 32, 3), dtype=np.uint8),
            "robot0_eef_pos": np.array([0.1, 0.2, 0.3]),
            "robot0_eef_quat": np.array([0.0, 0.0, np.sin(0.25), np.cos(0.25)]),  # 0.5 rad, z
            "robot0_gripper_qpos": np.array([0.01, -0.01])}


def test_an_aloha_style_nested_chw_request_from_a_map_file(tmp_path):
    path = tmp_path / "aloha.toml"
    path.write_text('image_size = 64\nprompt = "prompt"\n'
                    '[images]\n"images.cam_high" = {source = "robot0_agentview_left_image", '
                    'layout = "CHW", flip = "vertical"}\n'
                    '[state]\nstate = ["robot0_eef_pos", {source = "robot0_eef_quat", '
                    'transform = "axis_angle"}, {source = "robot0_gripper_qpos", '
                    'transform = "gripper_closed"}]\n'
                    '[actions]\nwidth = 4\nenv_dim = 12\nslots = [0, 1, 2, 6]\n'
                    'held = {"11" = -1.0}\nbinarize = {"3" = 0.5}\nclip = true\n')
    settings = openpi_settings("openpi://127.0.0.1:1", {"map": str(path)})
    request = settings.obs_map.request(obs(), "open it")
    assert sorted(request) == ["images", "prompt", "state"]
    cam = request["images"]["cam_high"]
    assert cam.shape == (3, 64, 64) and cam.dtype == np.uint8
    from openpi_client import image_tools
    flipped = image_tools.resize_with_pad(obs()["robot0_agentview_left_image"][::-1], 64, 64)
    assert np.array_equal(cam, flipped.transpose(2, 0, 1))
    assert np.allclose(request["state"][3:6], [0, 0, 0.5], atol=1e-6)  # axis z, 0.5 rad
    assert request["state"][6] == pytest.approx(0.75)  # a 0.02 m gap of 0.08: 3/4 closed
    chunk = np.array([[2.0, -0.3, 0.1, 0.7], [0.0, 0.0, 0.0, 0.1]])
    env = settings.action_map.apply(chunk, 12)
    assert env.shape == (2, 12)
    assert env[0].tolist() == [1.0, -0.3, 0.1, 0, 0, 0, 1.0, 0, 0, 0, 0, -1.0]
    assert env[1, 6] == -1.0  # 0.1 <= 0.5: open
    assert settings.preset == f"default+{path}"
    assert settings.describe()["action_map"]["slots"] == [0, 1, 2, 6]


def test_a_map_file_on_a_preset_keeps_the_rest_of_the_preset(tmp_path):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"preset": "libero", "images": {
        "observation/image": {"source": "robot0_agentview_left_image", "flip": "rot180"}}}))
    settings = openpi_settings("openpi://127.0.0.1:1", {"map": str(path)})
    assert settings.action_map == PRESETS["libero"].actions
    assert settings.replan_steps == 5 and settings.preset == f"libero+{path}"
    request = settings.obs_map.request(obs(), "x")
    assert sorted(request) == ["observation/image", "observation/state", "prompt"]
    o = obs()
    assert np.allclose(request["observation/state"],
                       np.concatenate([o["robot0_eef_pos"], axis_angle(o["robot0_eef_quat"]),
                                       o["robot0_gripper_qpos"]]))


@pytest.mark.parametrize("actions,expected", [
    ({"width": 0}, "actions.width must be an integer >= 1"),
    ({"width": 2, "slots": [0, 0]}, "actions.slots must list 2 distinct"),
    ({"width": 2, "env_dim": 3, "slots": [0, 3]}, "actions.slots must list 2 distinct"),
    ({"width": 1, "held": {"0": 1.0}}, "actions.held names slots the reply fills: [0]"),
    ({"width": 1, "binarize": {"x": 1}}, "actions.binarize: 'x' = 1"),
    ({"width": 1, "scale": 2}, "actions must be a table of width, env_dim"),
])
def test_a_bad_action_map_is_one_line_naming_the_field(tmp_path, actions, expected):
    path = tmp_path / "m.json"
    path.write_text(json.dumps({"actions": actions}))
    with pytest.raises(ValueError) as info:
        openpi_settings("openpi://127.0.0.1:1", {"map": str(path)})
    message = str(info.value)
    assert message.startswith(f"--policy-arg map={path}: ") and expected in message
    assert "\n" not in message


def test_a_reply_of_the_wrong_width_for_the_preset_fails_naming_it():
    from recallbench.agents.remote.openpi_connection import ProtocolError, check_chunk

    with pytest.raises(ProtocolError, match=r"width 12, the action map \(preset libero\) "
                                            r"takes 7"):
        check_chunk({"actions": np.zeros((10, 12))}, 7, "the action map (preset libero) takes")
    with pytest.raises(ValueError, match="give map=FILE or obs_map=FILE, not both"):
        openpi_settings("openpi://h:1", {"map": "a.json", "obs_map": "b.json"})
