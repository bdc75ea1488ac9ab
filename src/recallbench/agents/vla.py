"""The three kinds of SceneMem policy a ``--policy`` names (docs/vla.md):

- ``openpi://HOST:PORT`` / ``ws://HOST:PORT``: served with openpi's protocol (``remote.openpi``);
- ``lerobot:PATH``: a LeRobot ``PreTrainedPolicy`` folder (``lerobot_policy``);
- anything else: a card-interface class (``module:Class``), loaded by the caller.

openpi-client and lerobot cannot share a virtualenv, so each kind imports its package only in
its own module, and only when used.
"""

from __future__ import annotations

from typing import Any

LEROBOT_SCHEME = "lerobot:"


def policy_kind(ref: str) -> str:
    """"served", "lerobot" or "card"."""
    from recallbench.agents.remote.openpi import is_served_policy

    if is_served_policy(ref):
        return "served"
    if ref.startswith(LEROBOT_SCHEME):
        return "lerobot"
    return "card"


def check_policy(ref: str, args: dict[str, Any], trusted: bool = False) -> dict[str, Any]:
    """Before any work: the policy answers (served) or loads its config (LeRobot); returns what
    the manifest records about it. A one-line ValueError otherwise."""
    kind = policy_kind(ref)
    if kind == "served":
        from recallbench.agents.remote.openpi import openpi_settings, server_metadata

        settings = openpi_settings(ref, args)
        return {"kind": kind, **settings.describe(),
                "server_metadata": server_metadata(settings)}
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
