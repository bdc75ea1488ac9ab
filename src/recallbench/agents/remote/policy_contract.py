"""What recallbench's policy server asks of a policy class and what it hands one.

A class is served through one of two interfaces (``policy_interface``): SceneMem's
(``get_action(env)``, or the batched ``get_action_batch(requests)``) or an LL navigation
policy's (``reset(env)`` + ``act(pose, goal)``). Its declared ``action_horizon`` and
``action_dim`` fix every reply's shape (``served_shape``). A batched policy receives
``ActionRequest``s; a card-interface one an ``ObservationEnv`` holding the client's observations.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from recallbench.agents.remote.wire import MAX_HORIZON

BATCH_METHOD = "get_action_batch"
MAX_ACTION_DIM = 1024
# The action width when a request does not say (openpi's own clients send no recallbench/*
# keys) and the policy declares none: the SceneMem envs' (docs/world.md).
SUITE_ACTION_DIM = 12


class NoChunks(ValueError):
    """More actions per reply than the policy declares it returns."""


def _declared(policy_class: type, name: str, high: int) -> int | None:
    value = getattr(policy_class, name, None)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= high:
        raise ValueError(f"{policy_class.__name__}.{name} must be an integer in 1..{high}, got "
                         f"{value!r}")
    return value


def served_shape(policy_class: type, action_horizon: int | None) -> tuple[int | None, int]:
    """(action_horizon, action_dim) of every reply: the horizon ``--action-horizon`` asks for,
    else the policy's declared ``action_horizon`` (else None: the rows the policy returns);
    the width its declared ``action_dim``, else the suite's. A horizon over 1 needs a policy
    that declares chunks at least that long: repeating or re-stepping a one-action policy on one
    observation would send a plan the policy never made (NoChunks, one line)."""
    declared = _declared(policy_class, "action_horizon", MAX_HORIZON)
    dim = _declared(policy_class, "action_dim", MAX_ACTION_DIM) or SUITE_ACTION_DIM
    horizon = action_horizon or declared
    if horizon is not None and horizon > (declared or 1):
        raise NoChunks(f"{horizon} actions per reply, but {policy_class.__name__} declares "
                         + (f"chunks of {declared}" if declared else "no action_horizon (it "
                            "returns one action per call)")
                         + f": give it action_horizon = {horizon} and return (horizon, "
                           "action_dim) chunks (docs/remote-policy.md)")
    return horizon, dim


def policy_interface(policy_class: type) -> str:
    """"scenemem" (``get_action(env)`` or the batched method) or "ll" (``act(pose, goal)``,
    FindingDory's navigation interface); anything else is refused."""
    if callable(getattr(policy_class, BATCH_METHOD, None)) or callable(
        getattr(policy_class, "get_action", None)
    ):
        return "scenemem"
    if callable(getattr(policy_class, "act", None)) and callable(
        getattr(policy_class, "reset", None)
    ):
        return "ll"
    raise ValueError(f"{policy_class.__name__} has neither get_action(env) (SceneMem) nor "
                     "reset(env) + act(pose, goal) (an LL navigation policy)")


@dataclass
class ActionRequest:
    """One env worker's request for one step, as a batched policy receives it."""

    session: int  # the env worker's connection
    instruction: str
    video_paths: list[str]
    seed: int  # drawn from the test's seeded generator; for stochastic policies
    step: int  # 0 on a rollout's first step
    action_dim: int
    observations: dict[str, np.ndarray]
    state: dict[str, Any] = field(default_factory=dict)  # per rollout, kept between steps


class ObservationEnv:
    """The ``env`` a served card-interface policy sees: observations and ``action_dim`` only."""

    def __init__(self, observations: dict[str, np.ndarray], action_dim: int) -> None:
        self.observations = observations
        self.action_dim = action_dim

    def _get_observations(self, force_update: bool = False) -> dict[str, np.ndarray]:
        return self.observations

    get_observations = _get_observations

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"a served policy sees only the env's observations and action_dim, "
                             f"not env.{name} (docs/remote-policy.md)")
