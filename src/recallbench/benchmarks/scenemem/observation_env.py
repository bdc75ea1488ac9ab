"""``--observation-only``: the env a policy sees holds only what the card promises a policy
needs, the observations, ``action_dim`` and the action spec, and how to read them: the image
convention and the action's named parts (``env_layout``; docs/vla.md).

The live env also exposes the answer (``env.world_meta[...]['initial_location']``, every body
pose in ``env.sim``); a policy that reaches for it fails its test saying so. The harness keeps
the real env for stepping and scoring.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from recallbench.benchmarks.scenemem.env_layout import action_parts, image_convention

OFFERED = ("_get_observations", "get_observations", "action_dim", "action_spec",
           "image_convention", "action_parts")
# What the console says of a run made without --observation-only (its manifest and summary.json
# record policy_simulator_access: true).
SIMULATOR_ACCESS_NOTE = ("policy had simulator access (a card-interface policy given the live "
                         "env; --observation-only gives it observations only)")


class SimulatorAccessError(AttributeError):
    """A policy under --observation-only asked the env for more than observations. An
    AttributeError, so ``hasattr(env, "sim")`` answers False instead of raising."""


class ObservationOnlyEnv:
    """A proxy over the live env: ``_get_observations()`` (robosuite's name; also
    ``get_observations``), ``action_dim``, ``action_spec``, ``image_convention`` and
    ``action_parts``; everything else is refused."""

    __slots__ = ("_env",)

    def __init__(self, env: Any) -> None:
        object.__setattr__(self, "_env", env)

    @property
    def action_dim(self) -> int:
        return int(self._env.action_dim)

    @property
    def action_spec(self) -> Any:
        """robosuite's (low, high) bounds; (-1, 1) per dimension for envs without one."""
        spec = getattr(self._env, "action_spec", None)
        if spec is None:
            ones = np.ones(self.action_dim)
            return -ones, ones
        return spec

    @property
    def image_convention(self) -> str:
        return image_convention(self._env)

    @property
    def action_parts(self) -> dict[str, tuple[int, int]]:
        return action_parts(self._env)

    def _get_observations(self, force_update: bool = False) -> dict[str, np.ndarray]:
        if force_update:
            try:
                return dict(self._env._get_observations(force_update=True))
            except TypeError:  # envs whose method takes no force_update
                pass
        return dict(self._env._get_observations())

    get_observations = _get_observations

    def __getattr__(self, name: str) -> Any:
        raise SimulatorAccessError(
            f"observation-only: the policy sees the env's observations, action_dim and "
            f"action_spec, not env.{name} (docs/vla.md; run without --observation-only to give "
            "a card-interface policy the simulator)")

    def __setattr__(self, name: str, value: Any) -> None:
        raise SimulatorAccessError(f"observation-only: the policy cannot set env.{name}")
