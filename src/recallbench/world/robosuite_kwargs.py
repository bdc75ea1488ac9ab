"""robosuite's ``make`` keyword arguments translated to ``HomeEnv``'s, so a SceneMem scenario
(or any caller written for ``robosuite.make``) builds the built-in world with the same call.

robosuite names cameras with parallel lists (``camera_names`` + ``camera_widths`` / ...) and
switches them with ``use_camera_obs``; ``HomeEnv`` takes ``cameras`` and per-camera sizes.
Display-only and robot-configuration arguments mean nothing here (rendering is always
offscreen, the robot is fixed) and are dropped; anything else unknown still fails in
``HomeEnv`` with a TypeError naming it.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

# accepted and dropped: display, renderer, reward and robot-configuration switches
IGNORED = frozenset({
    "has_renderer", "has_offscreen_renderer", "render_camera", "render_collision_mesh",
    "render_visual_mesh", "render_gpu_device_id", "renderer", "renderer_config",
    "hard_reset", "reward_shaping", "reward_scale", "use_object_obs", "robots",
    "controller_configs", "gripper_types", "initialization_noise", "base_types",
    "lite_physics", "translucent_robot", "obj_registries", "obj_instance_split",
    "generative_textures", "randomize_cameras", "enable_render",
})
CAMERA_KEYS = ("use_camera_obs", "camera_names", "camera_widths", "camera_heights",
               "camera_depths", "camera_segmentations")


def _per_camera(value: Any, names: list[str], key: str) -> list[int]:
    """robosuite allows one int for all cameras or one per camera."""
    if isinstance(value, Sequence) and not isinstance(value, str):
        if len(value) != len(names):
            raise ValueError(f"{key} has {len(value)} entries for {len(names)} camera_names")
        return [int(v) for v in value]
    return [int(value)] * len(names)


def _segmentation(value: Any) -> bool:
    """HomeEnv's segmentation is per body instance (``<cam>_segmentation_instance``)."""
    values = value if isinstance(value, (list, tuple)) else [value]
    if any(v not in (None, False, True, "instance") for v in values):
        raise ValueError(f"camera_segmentations must be None or 'instance', got {value!r}")
    return any(v not in (None, False) for v in values)


def translate(kwargs: dict[str, Any]) -> dict[str, Any]:
    """``HomeEnv`` keyword arguments for robosuite-style ``kwargs`` (HomeEnv's own pass through).

    ``use_camera_obs`` (robosuite's default True) + ``camera_names`` -> ``cameras`` with their
    ``camera_sizes``; ``camera_depths`` (bool or per camera) -> any; ``ignore_done=True`` ->
    no horizon (max_steps, not the env, ends a rollout)."""
    kw = {k: v for k, v in kwargs.items() if k not in IGNORED}
    if kw.pop("ignore_done", False):
        kw["horizon"] = None
    if not any(k in kw for k in CAMERA_KEYS):
        return kw
    if "cameras" in kw:
        raise ValueError("give either cameras (HomeEnv) or camera_names (robosuite), not both")
    use = bool(kw.pop("use_camera_obs", True))
    raw = kw.pop("camera_names", [])
    names = [raw] if isinstance(raw, str) else [str(n) for n in raw]
    widths = kw.pop("camera_widths", None)
    heights = kw.pop("camera_heights", None)
    depths = kw.pop("camera_depths", False)
    seg = kw.pop("camera_segmentations", None)
    if not use:
        kw["cameras"] = []
        return kw
    kw["cameras"] = names
    if widths is not None or heights is not None:
        w = _per_camera(widths if widths is not None else kw.get("camera_width", 256), names,
                        "camera_widths")
        h = _per_camera(heights if heights is not None else kw.get("camera_height", 256),
                        names, "camera_heights")
        sizes = {n: (wi, hi) for n, wi, hi in zip(names, w, h, strict=True)}
        kw["camera_sizes"] = {**sizes, **kw.get("camera_sizes", {})}
    kw["camera_depths"] = bool(any(depths) if isinstance(depths, (list, tuple)) else depths)
    kw["camera_segmentations"] = _segmentation(seg)
    return kw


__all__ = ["IGNORED", "translate"]
