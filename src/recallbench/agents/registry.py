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

Every entry also has a *kind* (``KINDS``): what its score means. Reports mark privileged agents,
measure memory agents' gains over a memoryless one, and the audits run the memoryless and random
ones. A class outside the registry declares its kind as a class attribute
(``agent_kind = "memoryless"``); without one it is a memory agent.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from recallbench.errors import InputError
from recallbench.loader import is_reference, load_attr

if TYPE_CHECKING:
    from importlib import metadata

ENTRY_POINT_GROUP = "recallbench.agents"
# role -> the methods a class needs to play it. A role is an agent interface, named after the
# benchmark that defined it; a benchmark's agents play one (tests/test_no_benchmark_branches.py
# allows these role tables, and REGISTRY's targets, as data).
ROLES: dict[str, tuple[str, ...]] = {
    "findingdory": ("select_frames",),
    "scenemem": ("reset", "get_action"),
    "navigation": ("reset", "act"),
}
SERVED_ROLES = ("scenemem",)  # the roles a served or LeRobot policy plays (docs/vla.md)


# What an agent's score means, by its kind (one line each; reports and audits read it).
KINDS: dict[str, str] = {
    "memory": "answers from what it watched: its score is a memory result",
    "memoryless": "never uses the video (a rule, a prior, search): the floor memory must beat",
    "privileged": "reads the ground truth: a ceiling, not a memory result",
    "random": "answers at random: chance level",
}
DEFAULT_KIND = "memory"  # a class that declares no kind
KIND_ATTRIBUTE = "agent_kind"  # the class attribute a third-party agent declares its kind with
NO_MEMORY_KINDS = ("memoryless", "random")  # the shortcuts a suite's audit runs


@dataclass(frozen=True)
class Entry:
    summary: str
    targets: Mapping[str, str]  # role -> "module:Class"
    kind: str  # one of KINDS


_B = "recallbench.agents.baselines"
_S = "recallbench.agents.scenemem_baselines"
_H = "recallbench.agents.hierarchical"
_L = "recallbench.agents.ll_policies"
REGISTRY: dict[str, Entry] = {
    "oracle": Entry("privileged ceiling: the annotated frames; the target fixture",
                    {"findingdory": f"{_B}:OracleAgent",
                     "scenemem": f"{_H}:HierarchicalPrivileged"}, "privileged"),
    "blind": Entry("no memory: frames by a fixed rule; searches fixture after fixture",
                   {"findingdory": f"{_B}:BlindAgent", "scenemem": f"{_S}:MemorylessSearchPolicy"},
                   "memoryless"),
    # (recency before random: the audits run the shortcuts in this order, as they always have)
    "recency": Entry("the last frames of the video", {"findingdory": f"{_B}:RecencyAgent"},
                     "memoryless"),
    "random": Entry("random frames; a random fixture",
                    {"findingdory": f"{_B}:RandomAgent", "scenemem": f"{_H}:HierarchicalRandom"},
                    "random"),
    "time-prior": Entry("no memory: a time in the question mapped by a linear 06:00-22:00 clock",
                        {"findingdory": "recallbench.agents.shortcuts:TimePriorAgent"},
                        "memoryless"),
    "question-only": Entry("no memory: frames by the whole question text's prior",
                           {"findingdory": "recallbench.agents.shortcuts:QuestionOnlyAgent"},
                           "memoryless"),
    "vlm": Entry("a vision-language model over OpenAI-compatible chat",
                 {"findingdory": "recallbench.agents.vlm:VLMAgent",
                  "scenemem": f"{_H}:HierarchicalVLM"}, "memory"),
    # memory agents; run on the suites' annotation captions they are also marked privileged
    # (report.viewer.sources.privileged_reason reads what the run recorded)
    "text-memory": Entry("captions of the video as memory, matched to the instruction",
                         {"findingdory": "recallbench.agents.text_memory:TextMemoryAgent",
                          "scenemem": f"{_H}:HierarchicalSubtasks"}, "memory"),
    "text-memory-embedding": Entry("text memory matched by sentence embeddings",
                                   {"scenemem": f"{_H}:HierarchicalSubtasksEmbedding"}, "memory"),
    "search": Entry("memoryless search: opens fixture after fixture",
                    {"scenemem": f"{_S}:MemorylessSearchPolicy"}, "memoryless"),
    "random-actions": Entry("uniform random actions", {"scenemem": f"{_S}:RandomActionPolicy"},
                            "random"),
    "do-nothing": Entry("zero actions: the floor (must score 0%)",
                        {"scenemem": f"{_S}:DoNothingPolicy"}, "memoryless"),
    "hierarchical": Entry("subtask memory + scripted controller",
                          {"scenemem": f"{_H}:HierarchicalSubtasks"}, "memory"),
    "hierarchical-embedding": Entry("subtask memory by embeddings + scripted controller",
                                    {"scenemem": f"{_H}:HierarchicalSubtasksEmbedding"}, "memory"),
    "hierarchical-privileged": Entry("the target fixture + scripted controller",
                                     {"scenemem": f"{_H}:HierarchicalPrivileged"}, "privileged"),
    "hierarchical-vlm": Entry("a VLM picks the fixture + scripted controller",
                              {"scenemem": f"{_H}:HierarchicalVLM"}, "memory"),
    # navigation: the greedy follower drives by the simulator's map and the frames' recorded
    # poses (the LL ceiling); STOP moves nowhere (its floor)
    "greedy": Entry("greedy geodesic drive to the chosen frame's pose",
                    {"navigation": f"{_L}:GreedyFramePolicy"}, "privileged"),
    "stop": Entry("STOP at once: the floor of LL-SR", {"navigation": f"{_L}:StopPolicy"},
                  "memoryless"),
}
DEFAULT_LL_POLICY = "greedy"  # FindingDory's navigation policy when none is named
# Earlier spellings, kept working; each means exactly what its target name means.
ALIASES = {"memoryless": "search", "privileged": "hierarchical-privileged",
           "scenemem-search": "search", "scenemem-random": "random",
           "scenemem-random-actions": "random-actions"}


class NoMeaning(ValueError):
    """The spec names something that does not run in the asked role."""


def _entry_points() -> dict[str, metadata.EntryPoint]:
    from importlib import metadata  # on first use: `recallbench --help` does not need it

    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def list_agents() -> dict[str, dict[str, Any]]:
    """name -> {"targets": {role: "module:Class"}, "summary", "source", "kind"}; entry points'
    roles are told by the methods their class offers, their kind by its ``agent_kind``."""
    out: dict[str, dict[str, Any]] = {
        name: {"targets": dict(e.targets), "summary": e.summary, "source": "builtin",
               "kind": e.kind}
        for name, e in REGISTRY.items()}
    for name, ep in sorted(_entry_points().items()):
        if name in out:
            continue
        dist = ep.dist.name if ep.dist is not None else "?"
        try:
            factory = ep.load()
            roles, kind = roles_of(factory), declared_kind(factory, name)
        except Exception:  # noqa: BLE001 - a broken plugin is listed, not fatal
            roles, kind = [], "?"
        out[name] = {"targets": {r: ep.value for r in roles}, "summary": "",
                     "source": f"entry point ({dist})", "kind": kind}
    return out


def roles_of(factory: Any) -> list[str]:
    """The roles a class (or factory) can play, by the methods it offers."""
    roles = [role for role, methods in ROLES.items()
             if all(callable(getattr(factory, m, None)) for m in methods)]
    if not roles and callable(factory) and not isinstance(factory, type):
        roles = ["findingdory"]  # a plain factory function builds a frame selector
    return roles


def _known(role: str) -> str:
    """The registered names that run in ``role`` (listing others would offer names that fail
    there too, e.g. a frame selector as a navigation policy)."""
    return ", ".join(sorted(valid_names(role)) or sorted(REGISTRY))


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
        raise ValueError(f"unknown agent {spec!r}: use one of [{_known(role)}] (what runs on "
                         f"{role}), module:Class or path/to/file.py:Class")
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
    if role in SERVED_ROLES:
        from recallbench.agents.transports import transport_of

        if transport_of(spec) is not None:  # openpi://, ws://, lerobot:... (agents.transports)
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


def names_of_kind(role: str, kinds: tuple[str, ...]) -> tuple[str, ...]:
    """The registered names that run in ``role`` and are of one of ``kinds``, in registry
    order (e.g. the shortcuts an audit runs: ``NO_MEMORY_KINDS``)."""
    return tuple(name for name in valid_names(role) if REGISTRY[name].kind in kinds)


def known_kind(spec: str | None) -> str | None:
    """The kind the registry alone tells for a name, an alias or a built-in target
    (``module:Class``, what a run manifest records), loading nothing; None when it does not."""
    if not spec:
        return None
    name = ALIASES.get(spec, spec)
    if name in REGISTRY:
        return REGISTRY[name].kind
    return next((e.kind for e in REGISTRY.values() if name in e.targets.values()), None)


def declared_kind(factory: Any, spec: str) -> str:
    """The kind a class (or factory) declares with ``agent_kind``, else ``DEFAULT_KIND``; a value
    that is not a kind is one error naming the spec."""
    kind = getattr(factory, KIND_ATTRIBUTE, DEFAULT_KIND)
    if kind not in KINDS:
        raise InputError(spec, KIND_ATTRIBUTE, f"{kind!r} is not a kind (use one of: "
                                               f"{', '.join(KINDS)})")
    return str(kind)


def agent_kind(spec: str) -> str:
    """The kind of whatever ``spec`` names: a registered name's (or built-in target's), else
    the ``agent_kind`` its class declares (an entry point, ``module:Class``, ``file.py:Class``),
    else memory (also a served or LeRobot policy, which declares nothing)."""
    known = known_kind(spec)
    if known is not None:
        return known
    eps = _entry_points()
    if spec in eps:
        return declared_kind(eps[spec].load(), spec)
    if is_reference(spec):
        from recallbench.agents.transports import transport_of

        if transport_of(spec) is None:  # a transport's policy (agents.transports) declares none
            return declared_kind(load_attr(spec), spec)
    return DEFAULT_KIND


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
