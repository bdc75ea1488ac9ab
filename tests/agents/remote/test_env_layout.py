"""A preset states the orientation its checkpoint was trained on relative to an upright frame,
and each env its own convention: the flip applied is what turns that env's frame into the
checkpoint's (LIBERO: rot180 of robosuite's OpenGL frame, a left-right flip of an upright one).
Its reply lands in named parts of the env's action, resolved per env."""

from __future__ import annotations

import numpy as np
import pytest

from recallbench.agents.remote.obs_map import applied_flip
from recallbench.agents.remote.presets import PRESETS, ChunkError
from recallbench.benchmarks.scenemem.env_layout import action_parts, image_convention
from recallbench.benchmarks.scenemem.observation_env import ObservationOnlyEnv

pytest.importorskip("openpi_client")
pytestmark = pytest.mark.openpi


def upright_frame() -> np.ndarray:
    """A 224 x 224 frame whose top-left quadrant alone is bright (no resize: flips exact)."""
    image = np.zeros((224, 224, 3), dtype=np.uint8)
    image[:112, :112] = 200
    return image


def libero_request(frame: np.ndarray, convention: str) -> np.ndarray:
    obs = {"robot0_agentview_left_image": frame, "robot0_eye_in_hand_image": frame,
           "robot0_eef_pos": np.zeros(3), "robot0_eef_quat": np.array([0, 0, 0, 1.0]),
           "robot0_gripper_qpos": np.zeros(2)}
    request = PRESETS["libero"].obs_map.request(obs, "x", convention)
    return request["observation/image"]


def test_libero_sees_the_same_view_from_an_upright_env_and_an_opengl_env():
    upright = upright_frame()
    opengl = upright[::-1].copy()  # robosuite's default: rows bottom-up
    # what openpi's LIBERO client makes of robosuite's frame: img[::-1, ::-1]
    trained = opengl[::-1, ::-1]
    assert np.array_equal(libero_request(opengl, "opengl"), trained)
    assert np.array_equal(libero_request(upright, "upright"), trained)
    assert np.array_equal(trained, upright[:, ::-1])  # an upright frame mirrored left-right
    assert PRESETS["libero"].obs_map.flips("upright") == {
        "observation/image": "horizontal", "observation/wrist_image": "horizontal"}
    assert PRESETS["libero"].obs_map.flips("opengl")["observation/image"] == "rot180"


@pytest.mark.parametrize("wanted,convention,applied", [
    ("horizontal", "opengl", "rot180"), ("horizontal", "upright", "horizontal"),
    ("none", "opengl", "vertical"), ("rot180", "opengl", "horizontal"),
    ("vertical", "upright", "vertical"), ("vertical", "opengl", "none")])
def test_the_applied_flip_composes_the_wanted_view_with_the_env_convention(wanted, convention,
                                                                            applied):
    assert applied_flip(wanted, convention) == applied


class DeclaredEnv:
    """An env that declares its layout (any factory env may): a fixed-base arm, no mode."""

    action_dim = 8
    image_convention = "opengl"
    action_parts = {"gripper": (0, 1), "eef": (1, 7), "torso": (7, 8)}


def test_a_libero_reply_lands_in_the_parts_the_env_declares_through_observation_only():
    seen = ObservationOnlyEnv(DeclaredEnv())
    assert image_convention(seen) == "opengl"
    layout = action_parts(seen)
    chunk = np.array([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 1.0]])
    out = PRESETS["libero"].actions.apply(chunk, 8, layout)
    # gripper first, the eef after it, the torso held still; no base, no mode to hold
    assert out.tolist() == [[1.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.0]]
    with pytest.raises(ChunkError, match="fills the env's joints part; the env's action has "
                                         "gripper 0..0, eef 1..6, torso 7..7"):
        PRESETS["droid"].actions.apply(np.zeros((1, 8)), 8, layout)


def test_the_built_in_world_declares_upright_frames_and_robocasas_layout():
    from recallbench.world.env import make_env

    env = make_env("RecallbenchKitchen", seed=0)
    try:
        assert image_convention(env) == "upright"
        assert action_parts(env) == {"eef": (0, 6), "gripper": (6, 7), "base": (7, 10),
                                     "torso": (10, 11), "mode": (11, 12)}
    finally:
        env.close()


def test_an_env_without_a_layout_is_refused_naming_what_it_lacks():
    class Bare:
        action_dim = 12

    with pytest.raises(ValueError, match="the env Bare declares no action layout"):
        action_parts(Bare())


def test_a_map_files_named_parts_resolve_per_env_and_bad_ones_are_one_line(tmp_path):
    from recallbench.agents.remote.openpi_settings import openpi_settings

    path = tmp_path / "m.toml"
    path.write_text('[actions]\nwidth = 4\nparts = {gripper = 1, eef = 3}\n'
                    'held = {mode = 1.0, "9" = 0.5}\n')
    actions = openpi_settings("openpi://127.0.0.1:1", {"map": str(path)}).action_map
    robocasa = {"eef": (0, 6), "gripper": (6, 7), "base": (7, 10), "mode": (11, 12)}
    out = actions.apply(np.array([[1.0, 0.1, 0.2, 0.3]]), 12, robocasa)
    assert out.tolist() == [[0.1, 0.2, 0.3, 0, 0, 0, 1.0, 0, 0, 0.5, 0, 1.0]]
    assert actions.describe()["parts"] == {"gripper": 1, "eef": 3}
    path.write_text('[actions]\nwidth = 4\nparts = {eef = 3, arm = 1}\n')
    with pytest.raises(ValueError, match=r"actions.parts must be a table of part -> column "
                                         r"count \(parts: eef, joints, gripper"):
        openpi_settings("openpi://127.0.0.1:1", {"map": str(path)})
    path.write_text('[actions]\nwidth = 1\nparts = {gripper = 1}\nheld = {gripper = 1.0}\n')
    with pytest.raises(ValueError, match=r"actions.held names slots the reply fills: "
                                         r"\['gripper'\]"):
        openpi_settings("openpi://127.0.0.1:1", {"map": str(path)})
