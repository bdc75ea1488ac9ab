"""The one registry of everything that can be run, by name, on every benchmark.

A name means one thing in every command. Each entry says what it runs as in each *role*:

    findingdory   a frame selector (``select_frames``), for FindingDory's HL phase
    scenemem      an acting policy (``reset`` + ``get_action(env)``), the SceneMem card's interface
    navigation    a FindingDory low-level policy (``reset(env)`` + ``act(pose, goal)``)

``oracle`` is the privileged ceiling in both benchmarks (the right frames; the right fixture),
``blind`` the memoryless floor (no video; search fixture after fixture), ``random`` a random
answer (random frames; a random fixture). Besides names, a spec can be an entry-point name
(group ``recallbench.agents``), ``package.module:Class`` or ``path/to/file.py:Class``; such a
reference runs in a role when the class offers that role's methods.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from recallbench.errors import InputError
from recallbench.loader import is_reference, load_attr

ENTRY_POINT_GROUP = "recallbench.agents"
ROLES: dict[str, tuple[str, ...]] = {  # role -> the methods a class needs to play it
    "findingdory": ("select_frames",),
    "scenemem": ("reset", "get_action"),
    "navigation": ("reset", "act"),
}


@dataclass(frozen=True)
class Entry:
    summary: str
    targets: Mapping[str, str]  # role -> "module:Class"


_B = "recallbench.agents.baselines"
_S = "recallbench.agents.scenemem_baselines"
_H = "recallbench.agents.hierarchical"
_L = "recallbench.agents.ll_policies"
REGISTRY: dict[str, Entry] = {
    "oracle": Entry("privileged ceiling: the annotated frames; the target fixture",
                    {"findingdory": f"{_B}:OracleAgent",
                     "scenemem": f"{_H}:HierarchicalPrivileged"}),
    "blind": Entry("no memory: frames by a fixed rule; searches fixture after fixture",
                   {"findingdory": f"{_B}:BlindAgent", "scenemem": f"{_S}:MemorylessSearchPolicy"}),
    "random": Entry("random frames; a random fixture",
                    {"findingdory": f"{_B}:RandomAgent", "scenemem": f"{_H}:HierarchicalRandom"}),
    "recency": Entry("the last frames of the video", {"findingdory": f"{_B}:RecencyAgent"}),
    "time-prior": Entry("no memory: a time in the question mapped by a linear 06:00-22:00 clock",
                        {"findingdory": "recallbench.agents.shortcuts:TimePriorAgent"}),
    "question-only": Entry("no memory: frames by the whole question text's prior",
                           {"findingdory": "recallbench.agents.shortcuts:QuestionOnlyAgent"}),
    "vlm": Entry("a vision-language model over OpenAI-compatible chat",
                 {"findingdory": "recallbench.agents.vlm:VLMAgent",
                  "scenemem": f"{_H}:HierarchicalVLM"}),
    "text-memory": Entry("captions of the video as memory, matched to the instruction",
                         {"findingdory": "recallbench.agents.text_memory:TextMemoryAgent",
                          "scenemem": f"{_H}:HierarchicalSubtasks"}),
    "text-memory-embedding": Entry("text memory matched by sentence embeddings",
                                   {"scenemem": f"{_H}:HierarchicalSubtasksEmbedding"}),
    "search": Entry("memoryless search: opens fixture after fixture",
                    {"scenemem": f"{_S}:MemorylessSearchPolicy"}),
    "random-actions": Entry("uniform random actions", {"scenemem": f"{_S}:RandomActionPolicy"}),
    "do-nothing": Entry("zero actions: the floor (must score 0%)",
                        {"scenemem": f"{_S}:DoNothingPolicy"}),
    "hierarchical": Entry("subtask memory + scripted controller",
                          {"scenemem": f"{_H}:HierarchicalSubtasks"}),
    "hierarchical-embedding": Entry("subtask memory by embeddings + scripted controller",
                                    {"scenemem": f"{_H}:HierarchicalSubtasksEmbedding"}),
    "hierarchical-privileged": Entry("the target fixture + scripted controller",
                                     {"scenemem": f"{_H}:HierarchicalPrivileged"}),
    "hierarchical-vlm": Entry("a VLM picks the fixture + scripted controller",
                              {"scenemem": f"{_H}:HierarchicalVLM"}),
    "greedy": Entry("greedy geodesic drive to the chosen frame's pose",
                    {"navigation": f"{_L}:GreedyFramePolicy"}),
    "stop": Entry("STOP at once: the floor of LL-SR", {"navigation": f"{_L}:StopPolicy"}),
}
DEFAULT_LL_POLICY = "greedy"  # FindingDory's navigation policy when none is named
# Earlier spellings, kept working; each means exactly what its target name means.
ALIASES = {"memoryless": "search", "privileged": "hierarchical-privileged",
           "scenemem-search": "search", "scenemem-random": "random",
           "scenemem-random-actions": "random-actions"}


class NoMeaning(ValueError):
    """The spec names something that does not run in the asked role."""


def _entry_points() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def list_agents() -> dict[str, dict[str, Any]]:
    """name -> {"targets": {role: "module:Class"}, "summary", "source"}; entry points' roles are
    told by the methods their class offers."""
    out: dict[str, dict[str, Any]] = {
        name: {"targets": dict(e.targets), "summary": e.summary, "source": "builtin"}
        for name, e in REGISTRY.items()}
    for name, ep in sorted(_entry_points().items()):
        if name in out:
            continue
        dist = ep.dist.name if ep.dist is not None else "?"
        try:
            roles = roles_of(ep.load())
        except Exception:  # noqa: BLE001 - a broken plugin is listed, not fatal
            roles = []
        out[name] = {"targets": {r: ep.value for r in roles}, "summary": "",
                     "source": f"entry point ({dist})"}
    return out


def roles_of(factory: Any) -> list[str]:
    """The roles a class (or factory) can play, by the methods it offers."""
    roles = [role for role, methods in ROLES.items()
             if all(callable(getattr(factory, m, None)) for m in methods)]
    if not roles and callable(factory) and not isinstance(factory, type):
        roles = ["findingdory"]  # a plain factory function builds a frame selector
    return roles


def _known() -> str:
    return ", ".join(sorted(REGISTRY))


def resolve(spec: str, role: str) -> Any:
    """The class (or factory) ``spec`` runs as in ``role``, without instantiating it. Raises
    ``NoMeaning`` when it has none there, ``ValueError`` when it names nothing."""
    name = ALIASES.get(spec, spec)
    if name in REGISTRY:
        target = REGISTRY[name].targets.get(role)
        if target is None:
            runs_on = ", ".join(REGISTRY[name].targets)
            raise NoMeaning(f"agent {spec!r} does not run on {role} (it runs on: {runs_on})")
        return load_attr(target)
    eps = _entry_points()
    if name in eps:
        factory = eps[name].load()
    elif is_reference(name):
        factory = load_attr(name)
    else:
        raise ValueError(f"unknown agent {spec!r}: use one of [{_known()}], module:Class or "
                         "path/to/file.py:Class")
    if role not in roles_of(factory) and not _plays(factory, role):
        methods = " and ".join(f"{m}()" for m in role_methods(role))
        raise NoMeaning(f"{spec} has no {methods}, so it does not run on {role}")
    return factory


def role_methods(role: str) -> tuple[str, ...]:
    """The methods a class needs to play ``role``: a built-in role's, or those a registered
    benchmark declares for its agents (``Benchmark.agent_methods``, e.g. a plugin's)."""
    if role in ROLES:
        return ROLES[role]
    from recallbench.benchmarks.registry import BENCHMARKS

    bench = BENCHMARKS.get(role)
    return bench.agent_methods if bench is not None else ()


def _plays(factory: Any, role: str) -> bool:
    methods = () if role in ROLES else role_methods(role)
    return bool(methods) and all(callable(getattr(factory, m, None)) for m in methods)


def target(spec: str, role: str) -> str:
    """The ``module:Class`` reference ``spec`` runs as in ``role`` (what a run manifest records
    and a worker process loads)."""
    name = ALIASES.get(spec, spec)
    if name in REGISTRY and role in REGISTRY[name].targets:
        return REGISTRY[name].targets[role]
    if role == "scenemem":
        from recallbench.agents.vla import policy_kind

        if policy_kind(spec) != "card":  # openpi://, ws://, lerobot:FOLDER (docs/vla.md)
            return spec
    factory = resolve(spec, role)
    if is_reference(name):
        return name
    return f"{factory.__module__}:{factory.__qualname__}"


def meaning(spec: str, role: str) -> str | None:
    """``target(spec, role)``, or None when ``spec`` does not run in ``role`` or names nothing."""
    try:
        return target(spec, role)
    except (ValueError, ImportError):
        return None


def valid_names(role: str) -> list[str]:
    return [name for name, e in REGISTRY.items() if role in e.targets]


def load_agent(spec: str, role: str = "findingdory", **kwargs: Any) -> Any:
    """Instantiate what ``spec`` runs as in ``role``, passing ``kwargs`` to its constructor."""
    factory = resolve(spec, role)
    if not callable(factory):
        raise ValueError(f"agent {spec!r} is not a class or factory")
    return factory(**kwargs)


def construct_seeded(factory: Any, kwargs: dict[str, Any], seed: int) -> Any:
    """Call ``factory(**kwargs)``, adding the run seed when it takes a ``seed`` the caller did
    not set, so seeded agents (random, blind) follow ``--seed``."""
    kwargs = dict(kwargs)
    try:
        params = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        params = {}  # type: ignore[assignment]
    takes_any = not params or any(p.kind is p.VAR_KEYWORD for p in params.values())
    unknown = sorted(set(kwargs) - set(params)) if not takes_any else []
    if unknown:  # a typo must not become a TypeError traceback after a long setup
        name = getattr(factory, "__name__", str(factory))
        known = ", ".join(n for n in params if n != "self")
        raise InputError("--agent-arg", unknown[0], f"{name} has no such setting (has: {known})")
    if "seed" in params and "seed" not in kwargs:
        kwargs["seed"] = seed
    return factory(**kwargs)
