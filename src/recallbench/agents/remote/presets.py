"""A checkpoint's conventions as data: named presets of an observation map and an action map,
and the user's map file (``--policy-arg preset=NAME``, ``--policy-arg map=FILE``; docs/vla.md).

An ``ActionMap`` puts each column of a reply chunk (H, width) into a named part of the env's
action (arm ``eef`` delta or arm ``joints``, ``gripper``, ``base``, ``torso``, ``mode``),
resolved per env (``benchmarks.scenemem.env_layout``: the built-in world's declared layout,
robosuite's composite-controller split indexes); parts no column fills are held at a fixed
value (base and torso still, the base mode flag set); a column may be binarised (DROID's
gripper position: > 0.5 closes). Images are stated in the orientation the checkpoint was
trained on, relative to an upright frame (``obs_map.applied_flip``). The presets mirror the
clients people serve checkpoints with:

- ``robocasa``: the env's own 12-dim PandaOmron action, the default observation map (what
  ``openpi://`` always sent);
- ``libero``: openpi's ``examples/libero/main.py`` and ``src/openpi/policies/libero_policy.py``:
  two images as openpi's client makes them (robosuite's OpenGL frame turned 180 degrees: an
  upright frame mirrored left-right), padded to 224, state 8 (eef pos, eef axis-angle, gripper
  qpos), a (10, 7) reply: eef delta 6 into ``eef``, gripper 1 into ``gripper``;
- ``droid``: openpi's ``examples/droid/main.py`` and ``src/openpi/policies/droid_policy.py``:
  ``joint_position`` (7) and ``gripper_position`` (1), a (15, 8) reply: joint velocity 7 into
  ``joints`` (robosuite's PandaOmron with a joint ``controller_configs``), gripper 1.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from recallbench.agents.remote.obs_map import (
    DEFAULT,
    FIELDS,
    RAW,
    Image,
    ObsMap,
    Vector,
    parse_obs_map,
    read_map_file,
)
from recallbench.benchmarks.scenemem.env_layout import PARTS

MAP_FIELDS = (*FIELDS, "preset", "actions")
ACTION_FIELDS = ("width", "env_dim", "slots", "parts", "held", "binarize", "clip")


class ChunkError(RuntimeError):
    """A reply chunk the action map cannot apply (its width): fails that test only."""


@dataclass(frozen=True)
class ActionMap:
    """Reply columns -> env action slots. ``width`` None: the reply is the env's action as is.

    ``parts``: the reply's columns in order fill named parts of the env's action (``eef``,
    ``joints``, ``gripper``, ``base``, ``torso``, ``mode``: ``env_layout``), each (part, count)
    its part's first ``count`` slots, resolved per env; else ``slots``: one env index per
    column. ``held``: a part name (all its slots) or an index -> a fixed value."""

    width: int | None = None
    env_dim: int | None = None
    slots: tuple[int, ...] = ()
    held: dict[int | str, float] = field(default_factory=dict)
    binarize: dict[int, float] = field(default_factory=dict)  # column -> threshold (-> +1/-1)
    clip: bool = False
    parts: tuple[tuple[str, int], ...] = ()

    @property
    def named(self) -> bool:
        """Whether the map places its columns by the env's named parts."""
        return bool(self.parts) or any(isinstance(k, str) for k in self.held)

    def describe(self) -> dict[str, Any]:
        if self.width is None:
            return {"width": "env"}
        placed: dict[str, Any] = ({"parts": dict(self.parts)} if self.parts
                                  else {"slots": list(self.slots)})
        return {"width": self.width, "env_dim": self.env_dim, **placed,
                "held": {str(k): v for k, v in self.held.items()},
                "binarize": {str(k): v for k, v in self.binarize.items()}, "clip": self.clip}

    def expected_width(self, env_dim: int) -> int:
        return env_dim if self.width is None else self.width

    def resolve(self, layout: dict[str, tuple[int, int]] | None
                ) -> tuple[tuple[int, ...], dict[int, float]]:
        """The env slot of each column and the held slots, on an env with ``layout`` (part ->
        (start, end)); ChunkError when the env has no such part or too few slots in it."""
        if not self.named:
            return self.slots, {int(k): v for k, v in self.held.items()}
        layout = layout or {}
        slots: list[int] = []
        for part, count in self.parts:
            start, end = _part(layout, part)
            if count > end - start:
                raise ChunkError(f"the action map puts {count} columns into the env's {part} "
                                 f"part, which has {end - start}")
            slots.extend(range(start, start + count))
        held: dict[int, float] = {}
        for key, value in self.held.items():
            if isinstance(key, int):
                held[key] = value
            elif key in layout:  # an env without that part (no torso): nothing to hold
                held.update(dict.fromkeys(range(*layout[key]), value))
        return tuple(slots), held

    def apply(self, chunk: np.ndarray, env_dim: int,
              layout: dict[str, tuple[int, int]] | None = None) -> np.ndarray:
        """The chunk (H, width) as env actions (H, env_dim), on an env with ``layout``."""
        if self.width is None:
            return chunk
        if self.env_dim is not None and env_dim != self.env_dim:
            raise ChunkError(f"the action map fills a {self.env_dim}-dim env action, the env's "
                             f"is {env_dim}-dim")
        slots, held = self.resolve(layout)
        if max((*slots, *held), default=-1) >= env_dim:
            raise ChunkError(f"the action map fills slots up to {max((*slots, *held))}, the "
                             f"env's action is {env_dim}-dim")
        out = np.zeros((chunk.shape[0], env_dim))
        for slot, value in held.items():
            out[:, slot] = value
        cols = chunk.copy()
        for col, threshold in self.binarize.items():
            cols[:, col] = np.where(cols[:, col] > threshold, 1.0, -1.0)
        if self.clip:
            cols = np.clip(cols, -1.0, 1.0)
        out[:, list(slots)] = cols
        return out


def _part(layout: dict[str, tuple[int, int]], part: str) -> tuple[int, int]:
    if part not in layout:
        has = ", ".join(f"{k} {s}..{e - 1}" for k, (s, e) in layout.items())
        raise ChunkError(f"the action map fills the env's {part} part; the env's action has "
                         f"{has or 'no named parts'}")
    return layout[part]


@dataclass(frozen=True)
class Preset:
    obs_map: ObsMap
    actions: ActionMap
    replan_steps: int
    source: str  # the openpi files it mirrors
    needs: str = ""  # what the env must offer ("" anything that takes env.action_dim)


FRONT = "robot0_agentview_left_image|agentview_image"  # RoboCasa's name, else robosuite's
HELD: dict[int | str, float] = {"base": 0.0, "torso": 0.0, "mode": -1.0}  # still; mode: arm
PRESETS = {
    "robocasa": Preset(DEFAULT, ActionMap(), 5, "docs/world.md (RoboCasa's PandaOmron action)"),
    "libero": Preset(
        # trained on robosuite's OpenGL frames turned 180 degrees: upright ones mirrored
        ObsMap(images={"observation/image": Image(FRONT, "horizontal"),
                       "observation/wrist_image": Image("robot0_eye_in_hand_image",
                                                        "horizontal")},
               state={"observation/state": [Vector("robot0_eef_pos"),
                                            Vector("robot0_eef_quat", "axis_angle"),
                                            Vector("robot0_gripper_qpos")]}),
        ActionMap(7, held=HELD, parts=(("eef", 6), ("gripper", 1))), 5,
        "openpi examples/libero/main.py, src/openpi/policies/libero_policy.py"),
    "droid": Preset(
        ObsMap(images={"observation/exterior_image_1_left": Image(FRONT),
                       "observation/wrist_image_left": Image("robot0_eye_in_hand_image")},
               state={"observation/joint_position": [Vector("robot0_joint_pos")],
                      "observation/gripper_position": [Vector("robot0_gripper_qpos",
                                                              "gripper_closed")]}),
        ActionMap(8, held=HELD, binarize={7: 0.5}, clip=True,
                  parts=(("joints", 7), ("gripper", 1))), 8,
        "openpi examples/droid/main.py, src/openpi/policies/droid_policy.py",
        needs="a 7-joint arm with a joint controller (robosuite PandaOmron with a JOINT_VELOCITY "
              "or JOINT_POSITION arm in env_kwargs.controller_configs)"),
}
RAW_PRESET = Preset(RAW, ActionMap(), 5, "recallbench's env observations as they are")


def resolve(preset: str | None, map_file: str | None, obs_map: str | None,
            base: Preset) -> tuple[str, Preset]:
    """The preset's name and maps: ``base`` (the scheme's default), or the named ``preset``,
    overridden by a map file (its own ``preset`` field picks the base when no flag does)."""
    if map_file is not None and obs_map is not None:
        raise ValueError("--policy-arg: give map=FILE or obs_map=FILE, not both")
    name = "default"
    if preset is not None:
        name, base = preset, _named(preset, f"--policy-arg preset={preset}")
    path = map_file if map_file is not None else obs_map
    if path is None:
        return name, base
    flag = f"--policy-arg {'map' if map_file is not None else 'obs_map'}={path}"
    if path == "raw":
        return "raw", RAW_PRESET
    data = read_map_file(path, flag)
    unknown = sorted(set(data) - set(MAP_FIELDS))
    if unknown:
        raise ValueError(f"{flag}: unknown key(s) {unknown}; known: {', '.join(MAP_FIELDS)}")
    if "preset" in data and preset is None:
        if not isinstance(data["preset"], str):
            raise ValueError(f"{flag}: preset must be one of {', '.join(PRESETS)}")
        name, base = data["preset"], _named(data["preset"], f"{flag}: preset")
    actions = base.actions if "actions" not in data else parse_actions(data["actions"], flag)
    return f"{name}+{path}", Preset(parse_obs_map(data, base.obs_map, flag), actions,
                                   base.replan_steps, base.source, base.needs)


def _named(name: str, where: str) -> Preset:
    if name not in PRESETS:
        raise ValueError(f"{where}: unknown preset; known: {', '.join(PRESETS)}")
    return PRESETS[name]


def parse_actions(data: Any, flag: str) -> ActionMap:
    """A map file's ``actions`` table, checked (one-line ValueError naming the field)."""
    where = f"{flag}: actions"
    if not isinstance(data, dict) or set(data) - set(ACTION_FIELDS):
        raise ValueError(f"{where} must be a table of {', '.join(ACTION_FIELDS)}")
    width, env_dim = data.get("width"), data.get("env_dim")
    if not isinstance(width, int) or not _int(width, 1):
        raise ValueError(f"{where}.width must be an integer >= 1 (the reply's columns)")
    if env_dim is not None and not _int(env_dim, 1):
        raise ValueError(f"{where}.env_dim must be an integer >= 1 (the env's action size)")
    top = env_dim if env_dim is not None else 1024
    parts = _parts(data.get("parts"), width, where) if "parts" in data else ()
    if parts and "slots" in data:
        raise ValueError(f"{where}: give slots (env indexes) or parts (named), not both")
    slots = data.get("slots", [] if parts else list(range(width)))
    if not parts and not (isinstance(slots, list) and len(slots) == width
                          and all(_int(s, 0, top - 1) for s in slots)
                          and len(set(slots)) == width):
        raise ValueError(f"{where}.slots must list {width} distinct env action indexes "
                         f"(0..{top - 1}), one per reply column")
    held = _numbers(data.get("held", {}), f"{where}.held", top - 1, named=True)
    filled = set(held) & ({*slots} | {p for p, _ in parts})
    if filled:
        raise ValueError(f"{where}.held names slots the reply fills: {sorted(filled, key=str)}")
    binarize = {int(k): v for k, v in
                _numbers(data.get("binarize", {}), f"{where}.binarize", width - 1).items()}
    clip = data.get("clip", False)
    if not isinstance(clip, bool):
        raise ValueError(f"{where}.clip must be true or false")
    return ActionMap(width, env_dim, tuple(slots), held, binarize, clip, parts)


def _parts(value: Any, width: int, where: str) -> tuple[tuple[str, int], ...]:
    """``parts``: a table part -> column count, in the reply's column order, summing to width."""
    if not (isinstance(value, dict) and value and set(value) <= set(PARTS)
            and all(_int(n, 1) for n in value.values())
            and sum(value.values()) == width):
        raise ValueError(f"{where}.parts must be a table of part -> column count (parts: "
                         f"{', '.join(PARTS)}), in the reply's column order, summing to "
                         f"width {width}")
    return tuple((str(k), int(n)) for k, n in value.items())


def _int(value: Any, low: int, high: int = 1024) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _numbers(value: Any, where: str, top: int, named: bool = False) -> dict[int | str, float]:
    """A table of index (as text: JSON and TOML keys are strings), or of part name when
    ``named``, -> number."""
    if not isinstance(value, dict):
        raise ValueError(f"{where} must be a table of index -> number")
    out: dict[int | str, float] = {}
    for key, number in value.items():
        index = str(key).isdigit() and int(key) <= top
        if not ((index or (named and key in PARTS)) and isinstance(number, (int, float))
                and not isinstance(number, bool) and np.isfinite(number)):
            keys = f"indexes 0..{top}" + (f" or parts ({', '.join(PARTS)})" if named else "")
            raise ValueError(f"{where}: {key!r} = {number!r}: keys are {keys}, values finite "
                             "numbers")
        out[int(key) if index else str(key)] = float(number)
    return out


def env_refusal(preset_name: str, preset: Preset, env_name: str, env_kwargs: dict[str, Any],
                builtin: bool) -> str | None:
    """Why an env cannot take this preset's actions (one line's text), or None. Read from the
    scenario's env_args alone, before any env is built."""
    if not preset.needs:
        return None
    if builtin:
        return (f"the env {env_name} (the built-in world) has a 5-joint arm driven by "
                f"end-effector deltas; preset {preset_name} needs {preset.needs} (docs/world.md, "
                "'A 7-joint arm')")
    robots = env_kwargs.get("robots")
    robot = robots[0] if isinstance(robots, list) and robots else robots
    arm = _arm_controller(env_kwargs.get("controller_configs"))
    if robot != "PandaOmron" or arm not in ("JOINT_VELOCITY", "JOINT_POSITION"):
        return (f"the env {env_name} has robots={robot!r} with the arm controller "
                f"{arm or 'robosuite defaults to (OSC_POSE)'}; preset {preset_name} needs "
                f"{preset.needs}")
    return None


def _arm_controller(configs: Any) -> str | None:
    if not isinstance(configs, dict):
        return None
    parts = configs.get("body_parts", configs)
    arm = parts.get("right", parts.get("arms", {}).get("right")) if isinstance(parts, dict) \
        else None
    return arm.get("type") if isinstance(arm, dict) else None
