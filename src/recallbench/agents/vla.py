"""The three kinds of SceneMem policy a ``--policy`` names (docs/vla.md):

- ``openpi://HOST:PORT`` / ``ws://HOST:PORT``: served with openpi's protocol (``remote.openpi``);
- ``lerobot:PATH``: a LeRobot ``PreTrainedPolicy`` folder (``lerobot_policy``);
- anything else: a card-interface class (``module:Class``), loaded by the caller.

openpi-client and lerobot cannot share a virtualenv, so each kind imports its package only in
its own module, and only when used.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recallbench.errors import InputError, UsageError

LEROBOT_SCHEME = "lerobot:"
CAMERA_SETTING = "env_kwargs.use_camera_obs"  # where a scenario's env_args.json turns cameras off


def policy_kind(ref: str) -> str:
    """"served", "lerobot" or "card"."""
    from recallbench.agents.remote.openpi import is_served_policy

    if is_served_policy(ref):
        return "served"
    if ref.startswith(LEROBOT_SCHEME):
        return "lerobot"
    return "card"


def check_policy(ref: str, args: dict[str, Any], flag: str = "--policy",
                 trusted: bool = False) -> dict[str, Any]:
    """Before any work: the policy answers (served) or loads its config (LeRobot); returns what
    the manifest records about it. A one-line ValueError otherwise (a server's names ``flag``
    and the address: `run` passes its agent's name)."""
    kind = policy_kind(ref)
    if kind == "served":
        from recallbench.agents.remote.openpi import openpi_settings, server_metadata

        settings = openpi_settings(ref, args)
        return {"kind": kind, **settings.describe(),
                "server_metadata": server_metadata(settings, flag=flag)}
    if kind == "lerobot":
        from recallbench.agents.lerobot_policy import check_lerobot

        # a LeRobot folder is data unless the user trusts it (--trust-policy)
        return {"kind": kind, **check_lerobot(ref.removeprefix(LEROBOT_SCHEME), args, trusted)}
    if args:
        raise ValueError(f"--policy-arg: only served (openpi://, ws://) and lerobot: policies "
                         f"take arguments; got {sorted(args)}")
    return {"kind": kind}


def make_policy(ref: str, args: dict[str, Any], trusted: bool = False) -> Any:
    """The policy instance for a served or LeRobot ``ref`` (a card class: None, the caller
    loads it); ``trusted``: --trust-policy."""
    kind = policy_kind(ref)
    if kind == "served":
        from recallbench.agents.remote.openpi import OpenpiPolicy, openpi_settings

        return OpenpiPolicy(openpi_settings(ref, args))
    if kind == "lerobot":
        from recallbench.agents.lerobot_policy import LeRobotPolicy

        return LeRobotPolicy(ref.removeprefix(LEROBOT_SCHEME), **args, trusted=trusted)
    return None


def image_inputs(ref: str, args: dict[str, Any]) -> list[str]:
    """The images a served or LeRobot policy asks of the env each step: its obs_map's image keys
    (openpi:// sends three cameras by default; ws:// and an obs_map with ``images = {}`` none),
    a LeRobot policy's ``observation.images.*`` features. A card class: none (its code reads
    what it wants)."""
    kind = policy_kind(ref)
    if kind == "served":
        from recallbench.agents.remote.openpi import openpi_settings

        return sorted(openpi_settings(ref, args).obs_map.images)
    if kind == "lerobot":
        from recallbench.agents.lerobot_policy import IMAGE_PREFIX, check_lerobot

        # its features only (check_policy checks the folder, --trust-policy or not)
        features = check_lerobot(ref.removeprefix(LEROBOT_SCHEME), args,
                                 trusted=True)["input_features"]
        return [f for f in features if f.startswith(IMAGE_PREFIX)]
    return []


def check_policy_env(ref: str, args: dict[str, Any], scenarios: Iterable[Any],
                     who: str | None = None) -> None:
    """Before any work: a served policy's preset whose actions the scenario's env cannot take
    (``droid`` on the built-in world's 5-joint arm) is refused in one line naming the preset and
    the env, read from the scenario's env_args alone (no env is built)."""
    if policy_kind(ref) != "served":
        return
    from recallbench.agents.remote.openpi import openpi_settings
    from recallbench.agents.remote.presets import PRESETS, env_refusal
    from recallbench.benchmarks.scenemem.backend import BUILTIN_PREFIX, env_kwargs

    settings = openpi_settings(ref, args)
    preset = PRESETS.get(settings.preset.split("+")[0])
    if preset is None or settings.action_map != preset.actions:
        return  # a map file's own actions: its author knows the env
    for scenario in scenarios:
        name, kwargs, _ = env_kwargs(scenario, True)
        factory = scenario.env_factory or scenario.env_args.get("env_factory")
        why = env_refusal(settings.preset, preset, name, kwargs,
                          builtin=not factory and name.startswith(BUILTIN_PREFIX))
        if why:
            flag = f"{who + ' ' if who else ''}--policy-arg preset={settings.preset}"
            raise UsageError(flag, f"scenario {Path(scenario.root).name}: {why}")


def check_policy_cameras(ref: str, args: dict[str, Any], scenarios: Iterable[Any],
                         camera_obs: bool, who: str | None = None,
                         camera_flag: str = "--no-camera-obs") -> None:
    """Before any work: a policy that needs images is refused on scenarios whose env has no
    camera observations (else every test fails on a missing image, after the run started). One
    line naming the scenario's env_args.json and its ``use_camera_obs``, or ``camera_flag``
    when the command turned a robosuite env's cameras off."""
    check_policy_env(ref, args, scenarios, who)
    images = image_inputs(ref, args)
    if not images:
        return
    from recallbench.benchmarks.scenemem.backend import env_kwargs

    off: list[tuple[Any, bool]] = []  # (scenario, whether the command's flag turned them off)
    for scenario in scenarios:
        _, kwargs, robosuite = env_kwargs(scenario, camera_obs)
        if kwargs.get("use_camera_obs", True) is False:
            off.append((scenario, robosuite))
    if not off:
        return
    wants = f"{who or '--policy ' + ref} needs camera images ({', '.join(images)})"
    if any(flagged for _, flagged in off):
        raise UsageError(camera_flag, f"turns the env's cameras off, and {wants}: drop it")
    first = off[0][0]
    more = f" (so do {len(off) - 1} more scenario(s))" if len(off) > 1 else ""
    raise InputError(Path(first.root) / "env" / "env_args.json", CAMERA_SETTING,
                     f"false: this scenario records no camera observations{more}, and {wants}; "
                     "generate the suite without --no-camera-obs, or give the policy an "
                     "obs_map without images")
