"""Find agents by name: built-ins, ``recallbench.agents`` entry points, or a direct reference.

A spec is one of: a built-in name (``oracle``), an entry-point name registered by an installed
package under the group ``recallbench.agents``, ``package.module:Class``, or
``path/to/file.py:Class``. Built-ins win over entry points of the same name.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from recallbench.errors import InputError

ENTRY_POINT_GROUP = "recallbench.agents"

# name -> "module:Class". Other areas add theirs here (vlm, text-memory, acting policies).
BUILTIN_AGENTS: dict[str, str] = {
    "oracle": "recallbench.agents.baselines:OracleAgent",
    "random": "recallbench.agents.baselines:RandomAgent",
    "blind": "recallbench.agents.baselines:BlindAgent",
    "recency": "recallbench.agents.baselines:RecencyAgent",
    "time-prior": "recallbench.agents.shortcuts:TimePriorAgent",
    "question-only": "recallbench.agents.shortcuts:QuestionOnlyAgent",
    "vlm": "recallbench.agents.vlm:VLMAgent",
    "text-memory": "recallbench.agents.text_memory:TextMemoryAgent",
    # SceneMem acting policies (built-in world): baselines and the hierarchical agent
    "scenemem-search": "recallbench.agents.scenemem_baselines:MemorylessSearchPolicy",
    "scenemem-random-actions": "recallbench.agents.scenemem_baselines:RandomActionPolicy",
    "scenemem-random": "recallbench.agents.hierarchical:HierarchicalRandom",
    "hierarchical": "recallbench.agents.hierarchical:HierarchicalSubtasks",
    "hierarchical-embedding": "recallbench.agents.hierarchical:HierarchicalSubtasksEmbedding",
    "hierarchical-privileged": "recallbench.agents.hierarchical:HierarchicalPrivileged",
    "hierarchical-vlm": "recallbench.agents.hierarchical:HierarchicalVLM",
    # the floor of generated SceneMem suites: must score 0% (the ceiling is hierarchical-privileged)
    "do-nothing": "recallbench.agents.scenemem_baselines:DoNothingPolicy",
}


def _entry_points() -> dict[str, metadata.EntryPoint]:
    return {ep.name: ep for ep in metadata.entry_points(group=ENTRY_POINT_GROUP)}


def list_agents() -> dict[str, dict[str, str]]:
    """name -> {"target": "module:Class", "source": "builtin" | "entry point (dist)"}."""
    out = {name: {"target": t, "source": "builtin"} for name, t in BUILTIN_AGENTS.items()}
    for name, ep in sorted(_entry_points().items()):
        if name not in out:
            dist = ep.dist.name if ep.dist is not None else "?"
            out[name] = {"target": ep.value, "source": f"entry point ({dist})"}
    return out


def _load_from_file(path: Path, attr: str) -> Any:
    if not path.is_file():
        raise ValueError(f"agent file not found: {path}")
    module_name = f"recallbench_user_agent_{abs(hash(str(path.resolve())))}"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise ValueError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return _attr(module, attr, str(path))


def _attr(module: Any, attr: str, where: str) -> Any:
    obj = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise ValueError(f"{where} has no attribute {attr!r}")
        obj = getattr(obj, part)
    return obj


def resolve_agent(spec: str) -> Any:
    """The class (or factory) a spec names, without instantiating it."""
    if spec in BUILTIN_AGENTS:
        spec_target = BUILTIN_AGENTS[spec]
    else:
        eps = _entry_points()
        if spec in eps:
            return eps[spec].load()
        spec_target = spec
    if ":" not in spec_target:
        known = ", ".join(sorted(list_agents()))
        raise ValueError(
            f"unknown agent {spec!r}: use one of [{known}], module:Class or path/to/file.py:Class"
        )
    target, attr = spec_target.rsplit(":", 1)
    if target.endswith(".py") or "/" in target or "\\" in target:
        return _load_from_file(Path(target), attr)
    try:
        module = importlib.import_module(target)
    except ModuleNotFoundError as exc:
        raise ValueError(f"cannot import module {target!r} for agent {spec!r}: {exc}") from exc
    return _attr(module, attr, target)


def load_agent(spec: str, **kwargs: Any) -> Any:
    """Instantiate the agent a spec names, passing ``kwargs`` to its constructor."""
    factory = resolve_agent(spec)
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
        params = {}
    takes_any = not params or any(p.kind is p.VAR_KEYWORD for p in params.values())
    unknown = sorted(set(kwargs) - set(params)) if not takes_any else []
    if unknown:  # a typo must not become a TypeError traceback after a long setup
        name = getattr(factory, "__name__", str(factory))
        known = ", ".join(n for n in params if n != "self")
        raise InputError("--agent-arg", unknown[0], f"{name} has no such setting (has: {known})")
    if "seed" in params and "seed" not in kwargs:
        kwargs["seed"] = seed
    return factory(**kwargs)
