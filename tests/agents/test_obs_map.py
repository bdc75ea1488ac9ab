"""The openpi observation map on the built-in world's real observations, the memory frames of
real videos, and the one-line errors of a bad map file or a bad observation."""

from __future__ import annotations

import subprocess

import numpy as np
import pytest

from recallbench.agents.remote.obs_map import DEFAULT, RAW, load_obs_map
from support.policy_server import ENV, RECALLBENCH, free_port
from support.scenemem_fixtures.build import mini_scenario, mini_test, write_video

pytest.importorskip("openpi_client")
pytestmark = pytest.mark.openpi


def test_the_default_map_on_the_built_in_worlds_observations():
    from recallbench.world.env import make_env

    env = make_env("RecallbenchKitchen", seed=0, cameras=["robot0_agentview_left",
                   "robot0_agentview_right", "robot0_eye_in_hand"], camera_width=96,
                   camera_height=64)
    try:
        env.reset()
        obs = env._get_observations()
    finally:
        env.close()
    request = DEFAULT.request(obs, "Show me where the bowl is placed.")
    assert sorted(request) == ["observation/image", "observation/image_right",
                               "observation/state", "observation/wrist_image", "prompt"]
    for key in ("observation/image", "observation/image_right", "observation/wrist_image"):
        assert request[key].shape == (224, 224, 3) and request[key].dtype == np.uint8
    image = request["observation/image"]  # 96x64 padded to square: black bands top and bottom
    assert image[:30].max() == 0 and image[100:120].max() > 0
    assert request["observation/state"].dtype == np.float32
    assert request["observation/state"].shape == (16,)
    assert np.allclose(request["observation/state"][:3], obs["robot0_base_pos"])
    assert request["prompt"] == "Show me where the bowl is placed."
    raw = RAW.request(obs, "x")
    assert set(raw) == {k for k, v in obs.items() if isinstance(v, np.ndarray)} | {"prompt"}


def test_bad_observations_fail_in_one_line():
    with pytest.raises(ValueError, match="needs the env observation 'robot0_agentview_left_image"):
        DEFAULT.request({"base_pos": np.zeros(3)}, "x")
    bad = load_obs_map(None, DEFAULT)
    with pytest.raises(ValueError, match=r"shape \(8, 8\), an image is H x W x 3"):
        bad.request({**{k: np.zeros((8, 8, 3), np.uint8) for k in DEFAULT.images.values()},
                     "robot0_agentview_left_image": np.zeros((8, 8))}, "x")
    with pytest.raises(ValueError, match="dtype <U1, state must be numeric"):
        images = {k: np.zeros((8, 8, 3), np.uint8) for k in
                  ("robot0_agentview_left_image", "robot0_agentview_right_image",
                   "robot0_eye_in_hand_image")}
        DEFAULT.request({**images, "robot0_base_pos": np.array(["a"])}, "x")


@pytest.mark.parametrize("text,suffix,expected", [
    ('{"imagez": {}}', ".json", "unknown key(s) ['imagez']"),
    ('{"images": {"a": 3}}', ".json", "images must map request keys"),
    ('image_size = 3', ".toml", "image_size must be an int or [height, width]"),
    ('pass = "all"', ".toml", 'pass must be "*"'),
    ('{"images": ', ".json", "not valid json"),
])
def test_a_bad_map_file_is_one_line_before_any_work(tmp_path, text, suffix, expected):
    mini_scenario(tmp_path / "data" / "combo_000_L1_S1_0001", [mini_test("t0", "bowl")])
    path = tmp_path / f"map{suffix}"
    path.write_text(text)
    proc = subprocess.run(
        [RECALLBENCH, "scenemem", "--data_dir", str(tmp_path / "data"), "--out",
         str(tmp_path / "r.json"), "--policy", f"openpi://127.0.0.1:{free_port()}",
         "--policy-arg", f"obs_map={path}"], env=ENV, capture_output=True, text=True,
        timeout=60)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"--policy-arg obs_map={path}" in lines[0], proc.stderr
    assert expected in lines[0]
    assert not (tmp_path / "r_run").exists()


def test_memory_frames_are_k_padded_frames_per_camera(tmp_path):
    from recallbench.agents.remote.openpi import memory_frames

    paths = []
    for name in ("robot0_agentview_left", "robot0_eye_in_hand"):
        write_video(tmp_path / f"{name}.mp4", frames=12, size=32)
        paths.append(str(tmp_path / f"{name}.mp4"))
    memory = memory_frames(paths, 5, 48)
    assert sorted(memory) == ["memory/robot0_agentview_left", "memory/robot0_eye_in_hand"]
    for frames in memory.values():
        assert frames.shape == (5, 48, 48, 3) and frames.dtype == np.uint8
    assert not np.array_equal(memory["memory/robot0_agentview_left"][0],
                              memory["memory/robot0_agentview_left"][-1])
