"""The ``served`` transport's functions (``agents.transports``): ``--policy openpi://HOST:PORT``
or ``ws://HOST:PORT``, a policy server speaking openpi's protocol (``remote.openpi``)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recallbench.agents.remote.openpi import OpenpiPolicy
from recallbench.agents.remote.openpi_connection import server_metadata
from recallbench.agents.remote.openpi_settings import openpi_settings
from recallbench.errors import UsageError


def check_served(ref: str, args: dict[str, Any], flag: str = "--policy",
                 trusted: bool = False) -> dict[str, Any]:
    """The settings are valid and the server answers now; its settings and metadata."""
    settings = openpi_settings(ref, args)
    return {**settings.describe(), "server_metadata": server_metadata(settings, flag=flag)}


def make_served(ref: str, args: dict[str, Any], trusted: bool = False) -> OpenpiPolicy:
    return OpenpiPolicy(openpi_settings(ref, args))


def served_images(ref: str, args: dict[str, Any]) -> list[str]:
    """Its obs_map's image keys (openpi:// sends three cameras by default; ws:// and an obs_map
    with ``images = {}`` none)."""
    return sorted(openpi_settings(ref, args).obs_map.images)


def check_served_env(ref: str, args: dict[str, Any], scenarios: Iterable[Any],
                     who: str | None = None) -> None:
    """A preset whose actions the scenario's env cannot take (``droid`` on the built-in world's
    5-joint arm) is refused in one line naming the preset and the env, read from the scenario's
    env_args alone (no env is built)."""
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
