"""``--env_factory`` for tests: the built-in world or robosuite, as the harness builds them, with
every action the rollout applies appended (one JSON list a line) to $RECALLBENCH_ACTION_LOG."""

from __future__ import annotations

import json
import os
from typing import Any


def make_env(env_name: str, **kwargs: Any) -> Any:
    if env_name.startswith("Recallbench"):
        from recallbench.world.env import make_env as make_world

        env, method = make_world(env_name, **kwargs), "advance"  # what the rollout steps with
    else:
        import robosuite

        cameras = kwargs.get("use_camera_obs", True)
        env = robosuite.make(env_name, **{**kwargs, "has_renderer": False,
                                          "has_offscreen_renderer": cameras,
                                          "ignore_done": True})
        method = "step"
    inner, log = getattr(env, method), os.environ["RECALLBENCH_ACTION_LOG"]

    def recorded(action: Any) -> Any:
        with open(log, "a") as f:
            f.write(json.dumps([float(a) for a in action]) + "\n")
        return inner(action)

    setattr(env, method, recorded)
    return env
