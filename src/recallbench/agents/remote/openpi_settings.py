"""A served policy's settings (``OpenpiSettings``) from ``--policy openpi://HOST:PORT`` or
``ws://HOST:PORT`` and its ``--policy-arg`` values, checked in one line (docs/vla.md): the
preset or map file, the replan steps and how the probe's memory is sent."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recallbench.agents.remote.obs_map import ObsMap
from recallbench.agents.remote.presets import PRESETS, RAW_PRESET, ActionMap, resolve

OPENPI_SCHEME = "openpi://"  # the others (ws://, wss://): agents.transports
DEFAULT_REPLAN_STEPS = 5  # openpi's LIBERO/RoboCasa clients run 5 of each chunk open-loop
DEFAULT_MEMORY_FRAMES = 8
MEMORY_MODES = ("frames", "paths", "none")
POLICY_ARGS = ("preset", "map", "obs_map", "replan_steps", "memory", "memory_frames",
               "memory_size")


@dataclass(frozen=True)
class OpenpiSettings:
    url: str  # ws://HOST:PORT
    obs_map: ObsMap
    replan_steps: int = DEFAULT_REPLAN_STEPS
    memory: str = "frames"
    memory_frames: int = DEFAULT_MEMORY_FRAMES
    memory_size: int = 224
    action_map: ActionMap = ActionMap()  # reply columns -> env slots (presets.py)
    preset: str = "default"

    def describe(self) -> dict[str, Any]:
        """What the manifest records (beside the server's metadata)."""
        return {"url": self.url, "preset": self.preset, "obs_map": self.obs_map.describe(),
                "action_map": self.action_map.describe(),
                "replan_steps": self.replan_steps, "memory": self.memory,
                "memory_frames": self.memory_frames, "memory_size": self.memory_size}


def openpi_settings(ref: str, args: dict[str, Any]) -> OpenpiSettings:
    """``--policy`` and its ``--policy-arg`` values, checked (one-line ValueError)."""
    unknown = sorted(set(args) - set(POLICY_ARGS))
    if unknown:
        raise ValueError(f"--policy-arg: unknown key(s) {unknown} for a served policy; known: "
                         f"{', '.join(POLICY_ARGS)}")
    url = "ws://" + ref.removeprefix(OPENPI_SCHEME) if ref.startswith(OPENPI_SCHEME) else ref
    openpi = ref.startswith(OPENPI_SCHEME)
    name, preset = resolve(_text(args, "preset"), _text(args, "map"), _text(args, "obs_map"),
                           PRESETS["robocasa"] if openpi else RAW_PRESET)
    # ws:// keeps what recallbench's own protocol always sent: the paths (same file system)
    memory = args.get("memory", "frames" if openpi else "paths")
    if memory not in MEMORY_MODES:
        raise ValueError(f"--policy-arg memory={memory}: one of {', '.join(MEMORY_MODES)}")
    ints = {}
    for arg, default, low in (("replan_steps", preset.replan_steps, 1),
                               ("memory_frames", DEFAULT_MEMORY_FRAMES, 1),
                               ("memory_size", 224, 8)):
        value = args.get(arg, default)
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= 4096:
            raise ValueError(f"--policy-arg {arg}={value}: an integer in {low}..4096")
        ints[arg] = value
    return OpenpiSettings(url, preset.obs_map, memory=memory, action_map=preset.actions,
                          preset=name, **ints)


def _text(args: dict[str, Any], name: str) -> str | None:
    return None if args.get(name) is None else str(args[name])
