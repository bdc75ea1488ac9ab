"""What a served policy's preset must know of an env beyond its observations (docs/vla.md,
"Presets"): the orientation its camera frames are stored in, and where each part of the robot
sits in its action.

- ``image_convention``: ``upright`` (row 0 is the top of the view: the built-in world) or
  ``opengl`` (rows bottom-up: robosuite while ``robosuite.macros.IMAGE_CONVENTION`` is
  ``"opengl"``, its default; read at run time, so a private macros file counts);
- ``action_parts``: part name -> (start, end) in the env's action, robot 0's: ``eef`` (the arm
  driven by end-effector deltas) or ``joints`` (the arm under a joint controller), ``gripper``,
  ``base``, ``torso``, ``mode`` (the base-mode flag). The built-in world declares its layout;
  robosuite's is its composite controller's split indexes (vanilla robosuite 1.5.2 orders the
  parts otherwise than RoboCasa). Any other env may declare both as attributes.
"""

from __future__ import annotations

import sys
from typing import Any

CONVENTIONS = ("upright", "opengl")
PARTS = ("eef", "joints", "gripper", "base", "torso", "mode")
# robosuite's arm controllers by what their columns mean
EEF_CONTROLLERS = ("OperationalSpaceController", "InverseKinematicsController")
JOINT_CONTROLLERS = ("JointPositionController", "JointVelocityController",
                     "JointTorqueController")


def _builtin(env: Any) -> bool:
    world = sys.modules.get("recallbench.world.env")  # not loaded: not the built-in world
    home = getattr(world, "HomeEnv", None)
    return home is not None and isinstance(env, home)


def _robosuite(env: Any) -> bool:
    if "robosuite" not in sys.modules:
        return False
    from robosuite.environments.base import MujocoEnv

    return isinstance(env, MujocoEnv)


def image_convention(env: Any) -> str:
    """How ``env`` stores its camera frames: ``upright`` or ``opengl``."""
    declared = getattr(env, "image_convention", None)  # a wrapper or an env that says so
    if declared in CONVENTIONS:
        return str(declared)
    if _builtin(env):
        from recallbench.world.observations import IMAGE_CONVENTION

        return IMAGE_CONVENTION
    if _robosuite(env):
        from robosuite import macros

        return "opengl" if macros.IMAGE_CONVENTION == "opengl" else "upright"
    return "upright"


def action_parts(env: Any) -> dict[str, tuple[int, int]]:
    """Part name -> (start, end) in ``env``'s action; ValueError (one line) when the env says
    nothing of its layout."""
    declared = getattr(env, "action_parts", None)
    if isinstance(declared, dict):
        return {str(k): (int(v[0]), int(v[1])) for k, v in declared.items()}
    if _builtin(env):
        from recallbench.world.controls import ACTION_PARTS

        return dict(ACTION_PARTS)
    robots = getattr(env, "robots", None)
    if isinstance(robots, list) and robots and hasattr(robots[0], "composite_controller"):
        return robosuite_parts(robots[0])
    raise ValueError(f"the env {type(env).__name__} declares no action layout (an "
                     "action_parts attribute: part -> (start, end)); a preset places its reply "
                     "by named parts")


def robosuite_parts(robot: Any) -> dict[str, tuple[int, int]]:
    """A robosuite robot's parts from its composite controller's ``_action_split_indexes``
    (robosuite 1.5.2: part name -> (start, end); the arm ``right``, its gripper
    ``right_gripper``, ``base``, ``torso``); a HybridMobileBase's last column is the mode."""
    controller = robot.composite_controller
    split = dict(controller._action_split_indexes)
    arms = list(getattr(controller, "arms", None) or ["right"])
    parts: dict[str, tuple[int, int]] = {}
    for name, (start, end) in split.items():
        if end <= start:
            continue
        if name == arms[0]:
            kind = type(controller.part_controllers[name]).__name__
            parts["joints" if kind in JOINT_CONTROLLERS else "eef"] = (start, end)
        elif name == f"{arms[0]}_gripper":
            parts["gripper"] = (start, end)
        elif name in ("base", "torso"):
            parts[name] = (start, end)
    covered = max((end for _, end in split.values()), default=0)
    if int(robot.action_dim) == covered + 1:  # HybridMobileBase: all_action[-1] > 0 base mode
        parts["mode"] = (covered, covered + 1)
    return parts
