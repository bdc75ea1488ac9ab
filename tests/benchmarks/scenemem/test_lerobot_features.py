"""The one LeRobot naming of SceneMem's cameras, state and action (export and loader share it):
its parts exist in the built-in world's observations, in the order the generator records them,
and a recorded state is read by column name, not position."""

from __future__ import annotations

import numpy as np
import pytest

from recallbench.benchmarks.scenemem import lerobot_features as naming
from recallbench.generate.recorder import SCENEMEM_VIEWS, STATE_KEYS


def test_the_naming_matches_what_the_generator_records_and_the_env_observes():
    from recallbench.world.env import make_env

    assert tuple(naming.CAMERAS.values()) == SCENEMEM_VIEWS  # the recorded videos
    assert naming.STATE_PARTS == STATE_KEYS  # trajectory.npz's state, in order
    env = make_env("RecallbenchKitchen", seed=0, cameras=["robot0_agentview_left"],
                   camera_width=16, camera_height=16)
    try:
        env.reset()
        obs = env._get_observations()
    finally:
        env.close()
    assert naming.env_keys("observation.images.agentview_left") == [
        "robot0_agentview_left_image"]
    assert obs["robot0_agentview_left_image"].shape == (16, 16, 3)
    state = naming.state_vector(obs)
    assert state.dtype == np.float32 and state.shape == (13,)  # 3 + 3 + 5 + 2
    names = naming.state_names({k: len(obs[k]) for k in naming.STATE_PARTS})
    assert len(names) == 13 and names[0] == "robot0_base_pose_0"
    assert len(naming.ACTION_NAMES) == env.action_dim


def test_a_recorded_state_is_picked_by_name():
    names = ["robot0_gripper_qpos_1", "robot0_gripper_qpos_0", "robot0_base_pose_0",
             "robot0_extra_0", "robot0_base_to_eef_pos_0", "robot0_arm_qpos_0"]
    assert naming.state_columns(names) == [2, 4, 5, 1, 0]
    with pytest.raises(ValueError, match="no robot0_arm_qpos_<i>"):
        naming.state_columns(names[:5])
