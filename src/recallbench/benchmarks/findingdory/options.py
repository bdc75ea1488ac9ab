"""FindingDory's options, declared once as the fields of ``FindingDoryConfig``:
``recallbench findingdory --NAME`` and ``recallbench run --findingdory-NAME`` are derived from
them, the runner (``run.findingdory_runner``) receives their values as one ``FindingDoryConfig``,
and a resumed run must match the settings marked ``resume`` (the manifest keys they are recorded
under)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.benchmarks.limits import DEFAULT_CASE_TIMEOUT
from recallbench.benchmarks.options import BENCHMARK_COMMAND, option, options_of, seed

_OWN = (BENCHMARK_COMMAND,)  # what `recallbench run` decides itself (suite, agents, out, seed)


@dataclass(frozen=True)
class FindingDoryConfig:
    """One FindingDory run's options. Under ``recallbench run`` the options only the benchmark
    command offers keep their defaults."""

    data: str | None = option("QA file (.json/.jsonl) or generated suite directory",
                              commands=_OWN, resume="data_sha256")
    agent: str | None = option("agent name (`recallbench list agents`) or module:Class",
                               commands=_OWN, resume=True)
    agent_arg: dict[str, Any] = option(
        "constructor argument for the agent (JSON value), repeatable", kind="pairs",
        default_factory=dict, metavar="KEY=VALUE", commands=_OWN, resume="agent_kwargs")
    frames: int = option(f"frame budget K (default {DEFAULT_FRAMES})", type=int, metavar="K",
                         default=DEFAULT_FRAMES, run_alias="--frames", resume=True)
    frames_sweep: str | None = option(
        f"comma-separated budgets, one run each: 24,48,{DEFAULT_FRAMES}", commands=_OWN)
    out: str | None = option("run directory", commands=_OWN)
    videos: str | None = option("directory that video paths resolve against", resume=True)
    limit: int | None = option("only the first N cases", type=int, run_alias="--limit",
                               positive=True)
    seed: int = option("run seed", type=seed, default=0, commands=_OWN, resume=True)
    resume: bool = option("finish an interrupted run", kind="flag", default=False,
                          commands=_OWN)
    overwrite: bool = option("start --out again, discarding a run recorded there", kind="flag",
                             default=False, commands=_OWN)
    case_timeout: float = option(
        "wall-clock seconds per case before its agent is stopped and the case failed (default "
        f"{DEFAULT_CASE_TIMEOUT:.0f})", type=float, default=DEFAULT_CASE_TIMEOUT,
        run_alias="--test-timeout", positive=True)
    workers: int = option("agent worker processes (default 1: in order)", type=int, default=1,
                          commands=_OWN, positive=True)
    trust_suite: bool = option("let QA rows name videos outside the suite folder (absolute or "
                               "../ paths)", kind="flag", default=False)
    scoring: str = option("published definitions (default) or the official code's behaviour",
                          default="published", choices=("published", "official"), resume=True)
    ll: bool = option("after frame selection, act the choices out in each episode's world "
                      "(LL-SR, LL-SPL)", kind="flag", default=False)
    ll_policy: str | None = option(
        "low-level policy: a navigation name (`recallbench list agents`; default: the one it "
        "marks as FindingDory's default) or module:Class", resume=True)
    ll_policy_arg: dict[str, Any] = option(
        "constructor argument for the LL policy (JSON value), e.g. goal_radius=0.25",
        kind="pairs", default_factory=dict, metavar="KEY=VALUE", resume="ll_policy_kwargs")


OPTIONS = options_of(FindingDoryConfig)
# its generator (Benchmark.generator) and its command (Benchmark.command), declared here so
# `generate --help` and `recallbench --help` load no seam
GENERATOR = "recallbench.generate.registry:FINDINGDORY"
COMMAND = "recallbench.cli.findingdory:register"
