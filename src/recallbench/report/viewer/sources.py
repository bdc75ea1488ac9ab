"""What a viewer is built from: one run folder, or a comparison folder and its agents' runs.

Also the two facts the pages state about each agent that no metric shows: whether it reads
ground truth (privileged), and which agent is the memoryless baseline the memory agents are
measured against.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from recallbench.benchmarks.registry import BENCHMARKS
from recallbench.errors import InputError
from recallbench.io import read_json
from recallbench.run.manifest import read_manifest

# Agents that do not use the video; "blind" is the memoryless baseline gains are measured from.
BASELINES = ("blind", "memoryless", "search")
NOT_MEMORY = {*BASELINES, "random", "recency", "do-nothing", "random-actions"}


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


def privileged_reason(run: RunRef) -> str | None:
    """Why this agent's numbers are not a memory result (it reads ground truth), or None: told
    by what its run recorded (a privileged flag, captions from annotations, its class)."""
    m = run.manifest or {}
    target = run.target or ""
    settings = json.dumps(m.get("agent_kwargs") or {}) + json.dumps(m.get("agent_manifest") or {})
    if m.get("agent_privileged"):
        return "reads the ground-truth answers (privileged oracle)"
    if "annotation" in settings:
        return "its text memory is captions made from the episode's ground-truth annotations"
    if "Privileged" in target:
        return "reads the answer from eval_spec.json (the ceiling)"
    if "HierarchicalSubtasks" in target:
        return "its text memory is videos/subtasks.json, captions the generator wrote from " \
               "ground truth"
    return None


def baseline_of(agents: list[str]) -> str | None:
    return next((a for a in BASELINES if a in agents), None)


def memory_agents(agents: list[str]) -> list[str]:
    return [a for a in agents if a not in NOT_MEMORY]
