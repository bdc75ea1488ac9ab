"""The executor's handler: one case in a worker process (the agent built there by name)."""

from __future__ import annotations

from typing import Any

from recallbench.agents.registry import construct_seeded
from recallbench.loader import load_attr


def answer(payload: dict[str, Any]) -> dict[str, Any]:
    agent = construct_seeded(load_attr(payload["agent"]), dict(payload["kwargs"]),
                             payload["seed"])
    return {"frame": int(agent.pick_frame(list(payload["frames"]), payload["target"]))}
