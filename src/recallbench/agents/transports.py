"""The policy transports a ``--policy`` (SceneMem) or a ``run`` agent can name, as one table
(docs/vla.md keeps a generated copy): each row is one scheme family, its checks, its maker, the
extra to install and a doc line. Everything that depends on a policy's kind reads it here.

A ref that no row's scheme starts is a card-interface class (``module:Class``), loaded by the
caller. Other packages add rows under the entry-point group ``recallbench.policy_transports``
(value ``module:attr``, a ``Transport``): a transport is one module plus that one line.

Rows name their functions as ``module:attr`` so this table imports nothing: openpi-client and
lerobot cannot share a virtualenv, so each transport imports its package only when used.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any

from recallbench.errors import InputError
from recallbench.loader import load_attr, plugins

ENTRY_POINT_GROUP = "recallbench.policy_transports"
CARD = "card"  # the kind of a ref no transport claims: a card-interface class


@dataclass(frozen=True)
class Transport:
    """One kind of policy a ref names by its scheme. The functions, as ``module:attr``:

    ``check(ref, args, flag, trusted) -> dict``: before any work, the policy answers or loads
    (a one-line ValueError/UsageError otherwise); what the run manifest records about it.
    ``make(ref, args, trusted) -> policy``: the instance (``reset``, ``get_action``) a worker runs.
    ``images(ref, args) -> list[str]``: the camera images it asks of the env each step.
    ``check_env(ref, args, scenarios, who) -> None``: refuses an env it cannot act in.
    ``absolute(ref) -> str``: the ref with its paths absolute, so a resume works from anywhere.
    """

    kind: str  # what a manifest records ("served", "lerobot", ...)
    schemes: tuple[str, ...]  # the prefixes that name it ("openpi://", ...)
    usage: str  # how a ref is spelled, e.g. openpi://HOST:PORT
    doc: str  # one line for the table in docs/vla.md
    check: str
    make: str
    extra: str = ""  # the pip extra that installs what it imports ("" = none)
    images: str | None = None  # None: no images
    check_env: str | None = None  # None: any env
    absolute: str | None = None  # None: the ref is not a path

    def claims(self, ref: str) -> bool:
        return ref.startswith(self.schemes)

    def call(self, function: str | None, *args: Any, **kwargs: Any) -> Any:
        """Load and call one of the row's functions (``None``: the row has none)."""
        found: Callable[..., Any] | None = load_attr(function) if function else None
        return found(*args, **kwargs) if found else None


BUILTIN: tuple[Transport, ...] = (
    Transport(
        kind="served", schemes=("openpi://", "ws://", "wss://"),
        usage="openpi://HOST:PORT, ws://HOST:PORT",
        doc="a policy server speaking openpi's protocol (`openpi serve_policy` or `recallbench "
            "serve-policy`); ws:// sends observations raw (docs/remote-policy.md)",
        check="recallbench.agents.remote.served:check_served",
        make="recallbench.agents.remote.served:make_served",
        extra="openpi",
        images="recallbench.agents.remote.served:served_images",
        check_env="recallbench.agents.remote.served:check_served_env",
    ),
    Transport(
        kind="lerobot", schemes=("lerobot:",), usage="lerobot:FOLDER",
        doc="a LeRobot PreTrainedPolicy saved in a local folder (config.json, "
            "model.safetensors), run in-process",
        check="recallbench.agents.lerobot_policy:check_folder",
        make="recallbench.agents.lerobot_policy:make_folder",
        extra="lerobot",
        images="recallbench.agents.lerobot_policy:folder_images",
        absolute="recallbench.agents.lerobot_policy:absolute_folder",
    ),
)


@cache
def _plugins() -> tuple[Transport, ...]:
    found: list[Transport] = []
    taken = {s for t in BUILTIN for s in t.schemes}
    for where, row in plugins(ENTRY_POINT_GROUP, Transport):
        clash = sorted(taken & set(row.schemes))
        if clash:  # never shadows another
            raise InputError(where, ENTRY_POINT_GROUP, f"scheme {clash[0]!r} is already taken")
        taken |= set(row.schemes)
        found.append(row)
    return tuple(found)


def transports() -> tuple[Transport, ...]:
    """Every row: the built-ins, then the entry points' (scanned on first use)."""
    return (*BUILTIN, *_plugins())


def transport_of(ref: str | None) -> Transport | None:
    """The row whose scheme starts ``ref``; None for a card class (or no ref). The installed
    distributions are scanned only for a ref no built-in claims."""
    if not ref:
        return None
    for row in BUILTIN:
        if row.claims(ref):
            return row
    return next((row for row in _plugins() if row.claims(ref)), None)


def policy_kind(ref: str) -> str:
    """The kind of policy ``ref`` names: a transport's (``served``, ``lerobot``...) or ``card``."""
    row = transport_of(ref)
    return row.kind if row else CARD


def table(rows: Iterable[Transport] | None = None) -> str:
    """The transports (default: all) as a Markdown table; docs/vla.md holds the built-ins'
    (a test keeps it so)."""
    lines = ["| `--policy` | kind | extra | what it is |", "|---|---|---|---|"]
    for row in transports() if rows is None else rows:
        spelled = ", ".join(f"`{u.strip()}`" for u in row.usage.split(","))
        extra = f"`.[{row.extra}]`" if row.extra else "-"
        lines.append(f"| {spelled} | {row.kind} | {extra} | {row.doc} |")
    lines.append(f"| `module:Class`, `file.py:Class` | {CARD} | - | a class with the card's "
                 "`reset` and `get_action(env)`, run in-process |")
    return "\n".join(lines) + "\n"
