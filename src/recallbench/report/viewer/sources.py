"""What a viewer is built from: one run folder, or a comparison folder and its agents' runs.

Also the facts the pages state about each agent that no metric shows: its kind (memory,
memoryless, privileged, random: ``agents.registry.KINDS``), why a privileged one is (it reads
ground truth), and which agent is the memoryless baseline the memory agents are measured against.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recallbench.agents.registry import DEFAULT_KIND, KINDS, known_kind
from recallbench.benchmarks.registry import BENCHMARKS
from recallbench.errors import InputError
from recallbench.io import read_json
from recallbench.run.manifest import read_manifest

PREFERRED_BASELINE = "blind"  # the memoryless baseline gains are measured from, when it ran
REASONS_SEP = "; "  # between the reasons one agent is privileged for (no reason holds it)


@dataclass
class RunRef:
    benchmark: str
    agent: str
    run_dir: Path | None
    status: str = "ok"
    note: str = ""
    target: str | None = None
    manifest: dict[str, Any] | None = None


@dataclass
class Source:
    kind: str  # "run" or "comparison"
    path: Path
    runs: list[RunRef]
    comparison: dict[str, Any] | None = None


def _run_agent(manifest: dict[str, Any]) -> str:
    if manifest.get("agent"):
        return str(manifest["agent"])
    policy = str((manifest.get("config") or {}).get("policy") or "policy")
    return policy.rpartition(":")[2] or policy


def load_source(path: str | Path) -> Source:
    """A comparison folder (comparison.json) or a run folder (manifest.json); else one error."""
    path = Path(path)
    if not path.exists():
        raise InputError(path, None, "not found")
    if (path / "comparison.json").is_file():
        comparison = read_json(path / "comparison.json")
        if not isinstance(comparison, dict):
            raise InputError(path / "comparison.json", None, "must be a JSON object")
        runs = []
        for bench, block in (comparison.get("benchmarks") or {}).items():
            for a in block.get("agents") or []:
                run_dir = Path(a["run_dir"]) if a.get("run_dir") else None
                if run_dir is not None and not run_dir.is_absolute():
                    run_dir = path / run_dir
                manifest = None
                if run_dir is not None and (run_dir / "manifest.json").is_file():
                    manifest = read_manifest(run_dir)
                runs.append(RunRef(bench, a["agent"], run_dir, a.get("status", "ok"),
                                   a.get("note") or "", a.get("target"), manifest))
        return Source("comparison", path, runs, comparison)
    if (path / "manifest.json").is_file():
        manifest = read_manifest(path)
        bench = manifest.get("benchmark")
        if bench not in BENCHMARKS:
            raise InputError(path / "manifest.json", "benchmark",
                             f"{bench!r} has no viewer ({' or '.join(BENCHMARKS)})")
        target = (manifest.get("config") or {}).get("policy")
        return Source("run", path, [RunRef(bench, _run_agent(manifest), path,
                                           target=target, manifest=manifest)])
    raise InputError(path, None, "neither a run folder (manifest.json) nor a comparison "
                     "(comparison.json)")


def run_kind(run: RunRef) -> str:
    """What the agent's score means: the kind its run recorded (``agent_kind``); for a run
    recorded before kinds were, told by the registry from its name or built-in target (a run
    that recorded itself privileged is), else memory."""
    m = run.manifest or {}
    recorded = m.get("agent_kind")
    if isinstance(recorded, str) and recorded in KINDS:
        return recorded
    if m.get("agent_privileged"):
        return "privileged"
    policy = (m.get("config") or {}).get("policy")
    return (known_kind(run.agent) or known_kind(run.target)
            or known_kind(policy if isinstance(policy, str) else None) or DEFAULT_KIND)


def privileged_reason(run: RunRef) -> str | None:
    """Why this agent's numbers are not a memory result (it reads ground truth, or its LL
    phase drove by the simulator's map), or None: told by what its run recorded (its kind,
    captions from annotations, its class, its navigation policy)."""
    reasons = [r for r in (_agent_reason(run), _navigation_reason(run)) if r]
    return REASONS_SEP.join(reasons) or None


def _navigation_reason(run: RunRef) -> str | None:
    """A privileged navigation policy (``greedy``: the simulator's map and the chosen frames'
    recorded poses) makes the LL numbers a navigation ceiling, whatever the agent."""
    policy = (run.manifest or {}).get("ll_policy")
    if isinstance(policy, str) and known_kind(policy) == "privileged":
        return (f"LL phase driven by {policy}, which navigates by the simulator's map "
                "(LL-SR and LL-SPL are a navigation ceiling)")
    return None


def _agent_reason(run: RunRef) -> str | None:
    m = run.manifest or {}
    target = run.target or ""
    settings = json.dumps(m.get("agent_kwargs") or {}) + json.dumps(m.get("agent_manifest") or {})
    if run_kind(run) == "privileged" and "Privileged" not in target:
        return "reads the ground-truth answers (privileged oracle)"
    if "annotation" in settings:
        return "its text memory is captions made from the episode's ground-truth annotations"
    if run_kind(run) == "privileged":
        return "reads the answer from eval_spec.json (the ceiling)"
    if "HierarchicalSubtasks" in target:
        return "its text memory is videos/subtasks.json, captions the generator wrote from " \
               "ground truth"
    return None


def baseline_of(kinds: Mapping[str, str]) -> str | None:
    """The memoryless agent gains are measured from (agent -> kind): blind when it ran, else
    the first memoryless one; None when none ran."""
    memoryless = [a for a, kind in kinds.items() if kind == "memoryless"]
    return PREFERRED_BASELINE if PREFERRED_BASELINE in memoryless else next(iter(memoryless), None)


def memory_agents(kinds: Mapping[str, str]) -> list[str]:
    """The agents whose scores are memory results, the only ones a gain is computed for."""
    return [a for a, kind in kinds.items() if kind == "memory"]
