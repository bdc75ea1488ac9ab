"""Build the built-in env from robosuite-style kwargs, as the SceneMem harness passes them.

The harness calls ``factory(env_name, **env_kwargs, has_renderer=..., has_offscreen_renderer=...,
use_camera_obs=..., ignore_done=True)``; ``HomeEnv`` takes cameras by name instead. This maps
the robosuite names (camera_names, camera_widths/heights, use_camera_obs) to HomeEnv's and drops
the ones that mean nothing here, so generated suites name the built-in env in env_args.json.
"""

from __future__ import annotations

from typing import Any

# robosuite arguments with no meaning for the built-in world (rendering is always offscreen).
IGNORED = ("has_renderer", "has_offscreen_renderer", "ignore_done", "render_camera",
           "renderer", "robots", "controller_configs", "reward_shaping", "hard_reset")


def make_env(env_name: str, **kwargs: Any) -> Any:
    """``recallbench.world.env.make_env`` with robosuite's camera arguments translated."""
    from recallbench.world.env import make_env as world_make_env

    kw = {k: v for k, v in kwargs.items() if k not in IGNORED}
    use_cameras = bool(kw.pop("use_camera_obs", True))
    names = kw.pop("camera_names", [])
    names = [names] if isinstance(names, str) else list(names)
    width = kw.pop("camera_widths", None)
    height = kw.pop("camera_heights", None)
    kw["cameras"] = names if use_cameras else []
    if width is not None:
        kw["camera_width"] = int(width)
    if height is not None:
        kw["camera_height"] = int(height)
    return world_make_env(env_name, **kw)
