"""What a ``--policy`` (SceneMem) or a ``run`` agent that names a policy runs as, read off the
transport table (``agents.transports``, docs/vla.md): a transport's ref (``openpi://HOST:PORT``,
``ws://HOST:PORT``, ``lerobot:FOLDER``, or a plugin's scheme) is checked, made and asked for its
images by its row; anything else is a card-interface class (``module:Class``), loaded by the
caller.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path
from typing import Any

from recallbench.agents.transports import policy_kind, transport_of, transports
from recallbench.errors import InputError, UsageError

__all__ = ["absolute_policy", "check_policy", "check_policy_cameras", "check_policy_env",
           "image_inputs", "make_policy", "policy_kind"]

CAMERA_SETTING = "env_kwargs.use_camera_obs"  # where a scenario's env_args.json turns cameras off


def check_policy(ref: str, args: dict[str, Any], flag: str = "--policy",
                 trusted: bool = False) -> dict[str, Any]:
    """Before any work: the transport's check (a server answers, a folder loads its config);
    returns what the manifest records about it. A one-line ValueError otherwise (a server's names
    ``flag`` and the address: `run` passes its agent's name)."""
    row = transport_of(ref)
    if row is not None:
        return {"kind": row.kind, **row.call(row.check, ref, args, flag=flag, trusted=trusted)}
    if args:
        schemes = ", ".join(s for t in transports() for s in t.schemes)
        raise ValueError(f"--policy-arg: only policies a transport serves ({schemes}) take "
                         f"arguments; got {sorted(args)}")
    return {"kind": policy_kind(ref)}


def make_policy(ref: str, args: dict[str, Any], trusted: bool = False) -> Any:
    """The policy instance for a transport's ``ref`` (a card class: None, the caller loads it);
    ``trusted``: --trust-policy."""
    row = transport_of(ref)
    return row.call(row.make, ref, args, trusted=trusted) if row else None


def image_inputs(ref: str, args: dict[str, Any]) -> list[str]:
    """The images a transport's policy asks of the env each step (a card class: none, its code
    reads what it wants)."""
    row = transport_of(ref)
    return list(row.call(row.images, ref, args) or []) if row else []


def absolute_policy(ref: str) -> str | None:
    """A transport's ref with its paths absolute (``lerobot:FOLDER``); None when it has none."""
    row = transport_of(ref)
    return row.call(row.absolute, ref) if row and row.absolute else None


def check_policy_env(ref: str, args: dict[str, Any], scenarios: Iterable[Any],
                     who: str | None = None) -> None:
    """Before any work: the transport refuses an env it cannot act in (a served policy's preset
    whose actions the scenario's env cannot take) in one line, from the env_args alone."""
    row = transport_of(ref)
    if row is not None:
        row.call(row.check_env, ref, args, scenarios, who)


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
