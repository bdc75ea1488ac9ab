"""FindingDory's options, declared once: ``recallbench findingdory --NAME`` and
``recallbench run --findingdory-NAME`` are derived from them, and the runner
(``run.findingdory_runner``) receives their values as one ``FindingDoryConfig``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.benchmarks.limits import DEFAULT_CASE_TIMEOUT
from recallbench.benchmarks.options import BENCHMARK_COMMAND, Option, check_declared, seed

_OWN = (BENCHMARK_COMMAND,)  # what `recallbench run` decides itself (suite, agents, out, seed)

OPTIONS: tuple[Option, ...] = (
    Option("data", "QA file (.json/.jsonl) or generated suite directory", commands=_OWN),
    Option("agent", "agent name (`recallbench list agents`) or module:Class", commands=_OWN),
    Option("agent_arg", "constructor argument for the agent (JSON value), repeatable",
           kind="pairs", default={}, metavar="KEY=VALUE", commands=_OWN),
    Option("frames", f"frame budget K (default {DEFAULT_FRAMES})", type=int, metavar="K",
           default=DEFAULT_FRAMES, run_alias="--frames"),
    Option("frames_sweep", f"comma-separated budgets, one run each: 24,48,{DEFAULT_FRAMES}",
           commands=_OWN),
    Option("out", "run directory", commands=_OWN),
    Option("videos", "directory that video paths resolve against"),
    Option("limit", "only the first N cases", type=int, run_alias="--limit", positive=True),
    Option("seed", "run seed", type=seed, default=0, commands=_OWN),
    Option("resume", "finish an interrupted run", kind="flag", default=False, commands=_OWN),
    Option("overwrite", "start --out again, discarding a run recorded there", kind="flag",
           default=False, commands=_OWN),
    Option("case_timeout", "wall-clock seconds per case before its agent is stopped and the "
           f"case failed (default {DEFAULT_CASE_TIMEOUT:.0f})", type=float,
           default=DEFAULT_CASE_TIMEOUT, run_alias="--test-timeout", positive=True),
    Option("workers", "agent worker processes (default 1: in order)", type=int, default=1,
           commands=_OWN, positive=True),
    Option("trust_suite", "let QA rows name videos outside the suite folder (absolute or ../ "
           "paths)", kind="flag", default=False),
    Option("scoring", "published definitions (default) or the official code's behaviour",
           default="published", choices=("published", "official")),
    Option("ll", "after frame selection, act the choices out in each episode's world (LL-SR, "
           "LL-SPL)", kind="flag", default=False),
    Option("ll_policy", "low-level policy: a navigation name (`recallbench list agents`; "
           "default: the one it marks as FindingDory's default) or module:Class"),
    Option("ll_policy_arg", "constructor argument for the LL policy (JSON value), e.g. "
           "goal_radius=0.25", kind="pairs", default={}, metavar="KEY=VALUE"),
)


@dataclass(frozen=True)
class FindingDoryConfig:
    """One FindingDory run's options (fields: ``OPTIONS``, in order). Under ``recallbench run``
    the options only the benchmark command offers keep their defaults."""

    data: str | None = None
    agent: str | None = None
    agent_arg: dict[str, Any] = field(default_factory=dict)
    frames: int = DEFAULT_FRAMES
    frames_sweep: str | None = None
    out: str | None = None
    videos: str | None = None
    limit: int | None = None
    seed: int = 0
    resume: bool = False
    overwrite: bool = False
    case_timeout: float = DEFAULT_CASE_TIMEOUT
    workers: int = 1
    trust_suite: bool = False
    scoring: str = "published"
    ll: bool = False
    ll_policy: str | None = None
    ll_policy_arg: dict[str, Any] = field(default_factory=dict)


check_declared(FindingDoryConfig, OPTIONS)
