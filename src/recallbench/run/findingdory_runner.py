"""FindingDory's runner: the one orchestration of a FindingDory run, for ``recallbench
findingdory`` (one agent, one or a sweep of frame budgets) and ``recallbench run`` (each agent of
a comparison). Ask the agent about every case (``run.findingdory.run_cases``), then, with the
``ll`` option, act its choices out (``run.findingdory.run_ll``); the command scores the folders.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, cast

from recallbench.agents.registry import DEFAULT_LL_POLICY
from recallbench.agents.remote import RemoteLLPolicy, check_server, is_remote_policy
from recallbench.benchmarks.findingdory.checks import check_frames, check_videos
from recallbench.benchmarks.findingdory.data import Suite, load_suite
from recallbench.benchmarks.findingdory.defaults import DEFAULT_FRAMES
from recallbench.benchmarks.findingdory.metrics import Scoring
from recallbench.benchmarks.findingdory.options import FindingDoryConfig
from recallbench.benchmarks.findingdory.seam import planned_cases
from recallbench.benchmarks.registry import get_benchmark
from recallbench.console import tracker
from recallbench.errors import InputError, UsageError
from recallbench.executor import ExecutorSettings
from recallbench.run.findingdory import TransientCases, agent_manifest, run_cases, run_ll, start_run
from recallbench.run.findingdory_worker import AgentSpec
from recallbench.run.lock import run_folder_lock
from recallbench.run.runlog import RUN_LOG
from recallbench.run.runner import (
    AgentRun,
    BenchmarkRunner,
    Flags,
    Planned,
    Prepared,
    RunContext,
    kebab_flags,
)


def budgets(config: FindingDoryConfig) -> list[int]:
    """The frame budgets to run: ``frames``, or each of ``frames_sweep`` (one folder each)."""
    if not config.frames_sweep:
        return [config.frames]
    try:
        return [int(k) for k in config.frames_sweep.split(",") if k.strip()]
    except ValueError:
        raise UsageError("--frames-sweep", f"expected numbers like 24,48,{DEFAULT_FRAMES}, got "
                                           f"{config.frames_sweep!r}") from None


def budget_dirs(config: FindingDoryConfig, out: Path) -> dict[int, Path]:
    """budget -> its run folder: ``out`` itself, or ``out/K<k>/`` per budget of a sweep."""
    ks = budgets(config)
    return {k: out / f"K{k}" for k in ks} if config.frames_sweep else {ks[0]: out}


class FindingDoryRunner(BenchmarkRunner):
    name = "findingdory"
    config_type = FindingDoryConfig
    builds_agents = True  # frame selectors are built (and refuse bad arguments) before work

    def prepare(self, suite: Path, config: FindingDoryConfig,
                flags: Flags = kebab_flags) -> Prepared:
        for name in ("ll_policy", "ll_policy_arg"):  # else silently unused
            if getattr(config, name) and not config.ll:
                raise UsageError(flags(name), f"applies to the LL phase, which is off: add "
                                              f"{flags('ll')}, or drop this option")
        if config.videos and not Path(config.videos).is_dir():  # else only a watcher says so
            raise UsageError(flags("videos"), f"{config.videos} is not a folder")
        loaded = load_suite(suite, trusted=config.trust_suite)
        flag = flags("frames_sweep") if config.frames_sweep else flags("frames")
        for k in budgets(config):
            check_frames(k, loaded.cases, flag)
        return Prepared(Path(suite), config, loaded)

    def check_agents(self, prepared: Prepared, planned: list[Planned],
                     flags: Flags = kebab_flags) -> None:
        """Videos for the agents that watch them; then the LL policy (and its server)."""
        config: FindingDoryConfig = prepared.config
        suite: Suite = prepared.suite
        cases = suite.cases[: config.limit] if config.limit else suite.cases
        for p in planned:
            if p.skip is None:
                check_videos(p.agent, p.instance, suite, cases, config.videos, flags("videos"))
        if config.ll and "ll_policy" not in prepared.extra:
            prepared.extra["ll_policy"] = self._ll_policy(prepared, flags)

    def _ll_policy(self, prepared: Prepared, flags: Flags) -> Any:
        """Check the suite can be acted out and load the LL policy, before any agent call."""
        config: FindingDoryConfig = prepared.config
        if not prepared.suite.generated:
            raise InputError(prepared.suite_path, flags("ll"),
                             "the LL phase needs a generated suite with episode worlds")
        name = ll_policy_name(config)
        policy: Any
        if is_remote_policy(name):  # served by `recallbench serve-policy`
            try:
                check_server(name, "ll", flags("ll_policy"))
            except ValueError as exc:
                raise UsageError("", str(exc)) from None
            policy = RemoteLLPolicy(name)
        else:
            # here, not at the top: the navigation policies import scipy (~1 s), which only the LL
            # phase needs, and every FindingDory run imports this module
            from recallbench.agents.ll_policies import PolicyArgumentError, load_ll_policy

            try:
                policy = load_ll_policy(name, **config.ll_policy_arg)
            except PolicyArgumentError as exc:
                raise UsageError(flags("ll_policy_arg"), str(exc)) from None
            except (ValueError, TypeError, ImportError) as exc:
                raise UsageError(flags("ll_policy"), str(exc)) from None
        check_worlds(prepared.suite, config.limit, flags("ll"))
        return policy

    def _run_one(self, prepared: Prepared, planned: Planned, budget: int, run_dir: Path,
                 ctx: RunContext) -> list[str]:
        config: FindingDoryConfig = prepared.config
        suite: Suite = prepared.suite
        privileged = bool(getattr(planned.instance, "privileged", False))
        start_run(
            run_dir,
            must_match=_resume_keys(),
            benchmark=self.name,
            data=str(prepared.suite_path.resolve()),
            **self._recorded(prepared, planned, budget),
            agent_privileged=privileged,
            agent_manifest=agent_manifest(planned.instance),
            limit=config.limit,
            cases=len(planned_cases(suite, config.limit, ctx.shard)),
            shard=str(ctx.shard) if ctx.shard else None,
            executor=ctx.execution.manifest(),
            resume=True if ctx.resume is None else ctx.resume,
            overwrite=ctx.overwrite,
        )
        resume = (run_dir / RUN_LOG).exists() if ctx.resume is None else ctx.resume
        warnings = []
        try:
            run_cases(suite, AgentSpec(planned.agent, planned.kwargs, config.seed),
                      privileged=privileged, execution=ctx.execution, shard=ctx.shard,
                      case_timeout=config.case_timeout, budget=budget, run_dir=run_dir,
                      limit=config.limit, resume=resume, videos_dir=Path(config.videos)
                      if config.videos else None,
                      progress=_progress(ctx, f"{planned.agent} K={budget}"))
        except TransientCases as exc:  # the rest is recorded and scored; a resume finishes
            warnings.append(f"K={budget}: {exc}")
        if config.ll:
            try:
                self._run_ll(prepared, run_dir, ctx)
            except TransientCases as exc:
                warnings.append(f"K={budget} LL: {exc}")
        return warnings

    def _run_ll(self, prepared: Prepared, run_dir: Path, ctx: RunContext) -> None:
        """The low-level phase: act every recorded frame choice out in its episode's world, in
        the executor's workers (each builds the policy from its name and arguments); a served
        policy is driven from here, its server doing the work."""
        config: FindingDoryConfig = prepared.config
        name = ll_policy_name(config)
        served = is_remote_policy(name)
        run_ll(prepared.suite, run_dir, prepared.extra.get("ll_policy"),
               scoring=cast(Scoring, config.scoring),
               limit=config.limit, progress=_progress(ctx, f"LL {name}"),
               policy_spec=None if served else (name, config.ll_policy_arg),
               execution=ctx.execution)

    def run(self, prepared: Prepared, planned: Planned, agent_dir: Path,
            ctx: RunContext) -> AgentRun:
        """Run the agent at every frame budget, into ``budget_dirs(config, agent_dir)``; the
        warnings are the cases left for a resume."""
        if ctx.resume is None:  # a comparison's agent (the benchmark command says its own)
            ctx.console.print(f"[bold]findingdory[/bold] {planned.agent}"
                              + (" resuming" if (agent_dir / RUN_LOG).exists() else ""))
        warnings: list[str] = []
        for k, run_dir in budget_dirs(prepared.config, agent_dir).items():
            with run_folder_lock(run_dir):  # a second writer is refused before the manifest
                warnings += self._run_one(prepared, planned, k, run_dir, ctx)
        factory = type(planned.instance)
        return AgentRun(planned.agent, f"{factory.__module__}:{factory.__name__}", "ok",
                        note="; ".join(warnings), run_dir=str(agent_dir), warnings=warnings)

    def _recorded(self, prepared: Prepared, planned: Planned, frames: int) -> dict[str, Any]:
        """The manifest's settings that move an agent's answers at one frame budget (among
        them every ``resume`` key of the options)."""
        config: FindingDoryConfig = prepared.config
        return {"data_sha256": prepared.suite.sha256,
                "videos": str(Path(config.videos).resolve()) if config.videos else None,
                "agent": planned.agent, "agent_kwargs": planned.kwargs, "frames": frames,
                "seed": config.seed, "scoring": config.scoring,
                "ll_policy": ll_policy_name(config) if config.ll else None,
                "ll_policy_kwargs": config.ll_policy_arg if config.ll else None}

    def settings(self, prepared: Prepared, planned: Planned) -> dict[str, Any]:
        recorded = self._recorded(prepared, planned, prepared.config.frames)
        return {k: recorded[k] for k in get_benchmark(self.name).run_settings}

    def execution(self, execution: ExecutorSettings) -> ExecutorSettings:
        # a comparison asks one local agent at a time, in order; a cluster: its workers
        return execution if execution.kind != "local" else ExecutorSettings("local", 1)

    def merge(self, runs: list[Any], records: dict[str, dict[str, Any]],
              manifest: dict[str, Any], out: Path) -> None:
        manifest["cases"] = sum(m.get("cases") or 0 for _, m, _ in runs)


def _resume_keys() -> tuple[str, ...]:
    """What finishing a run in its folder must match: the declared resume settings and the
    shard, but not the agent's constructor arguments, which may name where its model is served
    (a resume after the server moved goes on; ``agent_manifest`` records what moves the
    answers). A comparison reusing an agent folder checks them too (``settings``)."""
    return (*(k for k in get_benchmark("findingdory").run_settings if k != "agent_kwargs"),
            "shard")


def check_worlds(suite: Suite, limit: int | None, flag: str) -> None:
    """Every episode the run asks about has its saved world, before the HL phase's work (the
    LL phase would fail on the first one missing only after every answer was recorded)."""
    cases = suite.cases[:limit] if limit else suite.cases
    for ep_id in dict.fromkeys(c.ep_id for c in cases):
        world = suite.episode_dir(ep_id) / "world"
        if not (world / "model.xml").is_file():
            raise InputError(world, flag, "episode has no saved world: cannot run the LL phase")


def ll_policy_name(config: FindingDoryConfig) -> str:
    return config.ll_policy or DEFAULT_LL_POLICY


def _progress(ctx: RunContext, description: str) -> Callable[[Iterable[Any], int], Iterable[Any]]:
    # on the command's console unless told otherwise: stderr when stdout carries --format rows
    return tracker(description, ctx.progress_console or ctx.console, transient=ctx.transient)


RUNNER = FindingDoryRunner()
