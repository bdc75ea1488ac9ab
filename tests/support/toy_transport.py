"""A policy transport as a plugin (issue 39): ``--policy toy://idle`` runs a policy that sends
zero actions; any other ``toy://NAME`` is refused by its check. One module plus one entry-point
line (group ``recallbench.policy_transports``, ``toy = toy_transport:TRANSPORT``), nothing in
recallbench edited for it; the tests register it with a ``dist-info`` folder on PYTHONPATH."""

from __future__ import annotations

from typing import Any

import numpy as np

from recallbench.agents.transports import Transport

SCHEME = "toy://"
POLICIES = ("idle",)


def check(ref: str, args: dict[str, Any], flag: str = "--policy",
          trusted: bool = False) -> dict[str, Any]:
    name = ref.removeprefix(SCHEME)
    if name not in POLICIES:
        raise ValueError(f"{flag} {ref}: no toy policy {name!r} (known: {', '.join(POLICIES)})")
    return {"toy": name, "args": sorted(args)}


class Idle:
    """The card's interface: zero actions."""

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.instruction = instruction

    def get_action(self, env: Any) -> np.ndarray:
        return np.zeros(env.action_dim)


def make(ref: str, args: dict[str, Any], trusted: bool = False) -> Idle:
    return Idle()


TRANSPORT = Transport(kind="toy", schemes=(SCHEME,), usage="toy://NAME",
                      doc="a test transport: zero actions", check="toy_transport:check",
                      make="toy_transport:make")
