"""Checks every command runs before it starts work: cheap (well under 2 s), and each failure is a
``UsageError`` naming the flag, so a typo never costs a finished oracle run first.

What is checked: numbers in range, agent names for each benchmark (listing the valid ones),
``module:Class`` targets, agent arguments (unknown keys, required ones missing, and the
constructor's own refusals such as a VLM without a model), and the frame budget against the
suite.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

# FindingDory's input checks, named here for the commands
from recallbench.benchmarks.findingdory.checks import check_frames as check_frames
from recallbench.benchmarks.findingdory.checks import check_videos as check_videos
from recallbench.cli.errors import UsageError


def check_positive(flag: str, value: float | None, *, allow_zero: bool = False) -> None:
    """``value`` is None (unset) or a finite number > 0 (>= 0 with ``allow_zero``)."""
    if value is None:
        return
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        bound = ">= 0" if allow_zero else "> 0"
        raise UsageError(flag, f"must be a finite number {bound}, got {value}")


def split_names(value: str | None) -> list[str]:
    """``a, b,c`` -> [a, b, c]; empty items dropped."""
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def parse_key_values(flag: str, pairs: Iterable[str]) -> dict[str, Any]:
    """``KEY=VALUE`` pairs (values JSON when they parse, else strings) -> dict."""
    import json

    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise UsageError(flag, f"expected KEY=VALUE, got {pair!r}")
        try:
            out[key.strip()] = json.loads(value)
        except json.JSONDecodeError:
            out[key.strip()] = value
    return out


def check_agent_kwargs(agent: str, factory: Any, kwargs: Mapping[str, Any], flag: str,
                       prefix: str = "") -> None:
    """Unknown keys and missing required arguments of ``factory``, before it is called.

    ``prefix`` is how a key is spelled on the command line (``vlm.`` under ``run``)."""
    import inspect  # on use: `recallbench --help` does not load it

    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        return  # a builtin or C callable: its own call will say
    named = {n: p for n, p in params.items()
             if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD) and n != "self"}
    takes_any = any(p.kind is p.VAR_KEYWORD for p in params.values())
    unknown = sorted(set(kwargs) - set(named)) if not takes_any else []
    if unknown:
        raise UsageError(flag, f"agent {agent!r} has no argument {unknown[0]!r} "
                               f"(it takes: {', '.join(sorted(named)) or 'none'})")
    missing = [n for n, p in named.items()
               if p.default is p.empty and n not in kwargs and n != "seed"]
    if missing:
        raise UsageError(flag, f"agent {agent!r} needs {flag} {prefix}{missing[0]}=VALUE")


def construct_agent(agent: str, factory: Any, kwargs: Mapping[str, Any], seed: int, flag: str,
                    prefix: str = "") -> Any:
    """Build an agent now, so a refusal (no model, no captioner) is a one-line user error."""
    from recallbench.agents.registry import construct_seeded

    check_agent_kwargs(agent, factory, kwargs, flag, prefix)
    try:
        return construct_seeded(factory, dict(kwargs), seed)
    except (ValueError, TypeError, ImportError) as exc:
        raise UsageError(flag, f"agent {agent!r} cannot be built: {exc}") from None


def check_agent_server(agent_name: str, agent: Any, flag: str = "--agent-arg",
                       prefix: str = "") -> None:
    """An agent's model server that is not running is one line before any work (one request,
    seconds), not minutes of retries per case. The last check: local ones come first."""
    check_server = getattr(agent, "check_server", None)
    if not callable(check_server):
        return
    why = check_server()
    if why:
        why = why.replace("--agent-arg base_url", f"{flag} {prefix}base_url")
        raise UsageError(flag, f"agent {agent_name!r}: {why}")


def valid_names(bench: str) -> list[str]:
    """Names that mean something for ``bench``, for error messages."""
    from recallbench.agents.registry import valid_names as registered

    return sorted(registered(bench))


def plan_agents(benches: Iterable[str], agents: list[str], by_bench: Mapping[str, list[str]],
                agent_args: Mapping[str, Mapping[str, Any]], seed: int,
                build: Iterable[str] = ()) -> dict[str, list[Any]]:
    """Resolve every agent name for every benchmark and build the frame selectors, before any
    work. A name that means nothing anywhere is an error listing the valid names; a name from
    ``--agents`` that means nothing for one benchmark is skipped there with a note (it ran on
    another); a name listed for one benchmark alone must mean something there. The agents of
    the benchmarks in ``build`` (whose runners ``builds_agents``) are built now."""
    from recallbench.agents.registry import agent_kind, meaning, resolve
    from recallbench.run.runner import Planned

    benches = list(benches)
    meanings = {(b, n): meaning(n, b) for b in benches
                for n in by_bench.get(b, agents)}
    plan: dict[str, list[Planned]] = {}
    for bench in benches:
        explicit = bench in by_bench
        flag = f"--{bench}-agents" if explicit else "--agents"
        plan[bench] = []
        for name in (by_bench[bench] if explicit else agents):
            if meanings[(bench, name)] is not None:
                plan[bench].append(Planned(name, target=meanings[(bench, name)],
                                           kwargs=dict(agent_args.get(name, {}))))
                continue
            elsewhere = [b for b in benches if b != bench and meanings.get((b, name)) is not None]
            if elsewhere and not explicit:
                plan[bench].append(Planned(name, skip=f"no {bench} meaning (runs on "
                                                      f"{', '.join(elsewhere)})"))
                continue
            raise UsageError(flag, f"unknown agent {name!r} for {bench}: use one of "
                                   f"{', '.join(valid_names(bench))}, or module:Class")
    used = {p.agent for ps in plan.values() for p in ps if p.skip is None}
    for planned in (p for ps in plan.values() for p in ps if p.skip is None):
        agent_kind(planned.target or planned.agent)  # a kind that is none: one error, now
    for name in agent_args:
        if name not in used:
            raise UsageError("--agent-arg", f"no agent {name!r} among the agents run "
                                            f"({', '.join(sorted(used))})")
    for bench in build:
        for planned in plan.get(bench, []):
            if planned.skip is None:
                factory = resolve(planned.agent, bench)
                planned.instance = construct_agent(planned.agent, factory,
                                                   agent_args.get(planned.agent, {}), seed,
                                                   "--agent-arg", f"{planned.agent}.")
    return plan
