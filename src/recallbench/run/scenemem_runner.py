"""SceneMem's runner: the one way a SceneMem run is prepared and run, for ``recallbench
scenemem`` (one policy: its --out and --run-dir, new or resumed) and each agent of ``recallbench
run`` (its agent folder); also how a folder's recorded settings are read and shards joined."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from recallbench.agents.vla import check_policy, check_policy_cameras, policy_kind
from recallbench.benchmarks.registry import get_benchmark
from recallbench.benchmarks.scenemem.backend import check_factory_reference
from recallbench.benchmarks.scenemem.options import ScenememConfig
from recallbench.benchmarks.scenemem.spec import discover_scenarios, load_scenario
from recallbench.errors import InputError, UsageError
from recallbench.executor.shards import Shard
from recallbench.io import read_json, write_json_atomic
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
from recallbench.run.scenemem import run_scenemem
from recallbench.run.scenemem_config import (
    default_run_dir,
    normalise,
    record,
    resume_config,
)


class ScenememRunner(BenchmarkRunner):
    name = "scenemem"
    config_type = ScenememConfig
    run_subdir = "run"
    settings_in = "config"

    def prepare(self, suite: Path, config: ScenememConfig,
                flags: Flags = kebab_flags) -> Prepared:
        """The options that would fail every agent alike, checked once before any of them runs
        (else each agent's run fails on them in turn and the comparison says so only per agent):
        a --filter no scenario folder matches, a --env-factory that does not import."""
        if config.filter and not discover_scenarios(suite, config.filter):
            raise InputError(suite, None, f"no scenario folders matching {flags('filter')} "
                                          f"{config.filter!r}")
        if config.env_factory:
            try:
                check_factory_reference(config.env_factory, flags("env_factory"))
            except ValueError as exc:
                raise UsageError("", str(exc)) from None  # the message names the flag
        return Prepared(Path(suite), config)

    def check_agents(self, prepared: Prepared, planned: list[Planned],
                     flags: Flags = kebab_flags) -> None:
        """Served and LeRobot policies, before any agent runs, as `recallbench scenemem` checks
        its --policy: a server answers (one request), the suite has the images it needs. Else
        the agents before it run for minutes, and then each of its tests fails."""
        policies = [p for p in planned
                    if p.skip is None and p.target and policy_kind(p.target) != "card"]
        if not policies:
            return
        options: ScenememConfig = prepared.config
        scenarios = _loadable(prepared.suite_path, options)
        for p in policies:
            assert p.target is not None
            try:
                check_policy(p.target, p.kwargs, flag=f"agent {p.agent!r} at",
                             trusted=bool(options.trust_policy))
                check_policy_cameras(p.target, p.kwargs, scenarios,
                                     options.camera_obs is not False, who=f"agent {p.agent!r}",
                                     camera_flag=flags("camera_obs"))
            except (InputError, UsageError):
                raise  # each names its file or flag
            except ValueError as exc:  # the policy's own words name --policy-arg
                why = str(exc).replace("--policy-arg", f"--agent-arg {p.agent}.")
                raise UsageError("--agents", why) from None

    def paths(self, config: ScenememConfig, agent_dir: Path) -> tuple[Path, Path]:
        """Where a run writes: results.json and its run folder. `recallbench scenemem`'s --out
        and --run-dir (default: beside --out), else the comparison's agent folder."""
        if config.out:
            out = Path(config.out)
            return out, (Path(config.run_dir) if config.run_dir
                         else default_run_dir(out.resolve()))
        return agent_dir / "results.json", self.run_dir(agent_dir)

    def _config(self, prepared: Prepared, planned: Planned, agent_dir: Path) -> ScenememConfig:
        """The agent's new run: the options as given, the planned policy, the card's defaults.
        Its policy arguments: the command's --policy-arg, else a served or lerobot: policy's
        --agent-arg NAME.KEY=VALUE."""
        assert planned.target is not None  # the plan resolved it
        config: ScenememConfig = prepared.config
        args = config.policy_args or (
            planned.kwargs if policy_kind(planned.target) != "card" else {})
        return normalise(replace(config, data_dir=str(prepared.suite_path),
                                 policy=planned.target, policy_args=args,
                                 out=str(self.paths(config, agent_dir)[0])))

    def run(self, prepared: Prepared, planned: Planned, agent_dir: Path,
            ctx: RunContext) -> AgentRun:
        """Run the agent, or finish its run (``ctx.resume``; None: when its folder has a run
        log) with the recorded config, every setting given again checked against it."""
        _, run_dir = self.paths(prepared.config, agent_dir)
        resume = (run_dir / RUN_LOG).exists() if ctx.resume is None else ctx.resume
        config = self._config(prepared, planned, agent_dir)
        if resume:  # an earlier run of this agent: finish it, but only with the same settings
            config = resume_config(run_dir, config)
        if ctx.resume is None:  # a comparison's agent (the benchmark command says its own)
            ctx.console.print(f"[bold]scenemem[/bold] {planned.agent} ({planned.target})"
                              + (" resuming" if resume else ""))
        status = run_scenemem(config, run_dir, ctx.execution.workers, resume=resume,
                              console=ctx.console, execution=ctx.execution,
                              overwrite=ctx.overwrite)
        result = AgentRun(planned.agent, planned.target, "ok", run_dir=str(run_dir),
                          exit_status=status)
        if status != 0:
            result.note = "some scenarios failed to load or tests are missing (see the run folder)"
        return result

    def resumed(self, given: ScenememConfig, run_dir: Path, flags: Flags = kebab_flags
                ) -> ScenememConfig:
        """`recallbench scenemem --resume`: the recorded run's options (its --out and
        --run-dir), every one given again checked against it."""
        return replace(resume_config(run_dir, given, flags), run_dir=str(run_dir), resume=True)

    def settings(self, prepared: Prepared, planned: Planned) -> dict[str, Any]:
        config = record(self._config(prepared, planned, Path("-")))
        return {k: config.get(k) for k in get_benchmark(self.name).run_settings}

    def merge(self, runs: list[tuple[Path, dict[str, Any], Shard]],
              records: dict[str, dict[str, Any]], manifest: dict[str, Any], out: Path) -> None:
        """results.json (the card's schema) and the runner's summary.json, as a run writes
        them: each scenario is in exactly one shard, so its card entry is taken whole."""
        from recallbench.benchmarks.scenemem.results import breakdown, card_problem
        from recallbench.benchmarks.scenemem.spec import discover_scenarios

        config = dict(manifest["config"])
        roots = discover_scenarios(config["data_dir"], config.get("filter"))
        entries: dict[str, dict[str, Any]] = {}
        errors: dict[str, str] = {}
        missing: list[str] = []
        scenarios: list[str] = []
        for d, m, shard in runs:
            summary = runner_summary(d)
            ran = set(m.get("scenarios") or []) | set(summary.get("scenario_errors") or {})
            if ran != {r.name for r in roots if shard.picks(r.name)}:
                raise InputError(d / "manifest.json", "scenarios",
                                 f"not shard {shard}'s part of {config['data_dir']} (the suite "
                                 "changed since this shard ran?)")
            results_path = Path(m["config"]["out"])
            if not results_path.is_file():
                raise InputError(results_path, None, "missing: finish the shard with --resume")
            card = read_json(results_path)
            problem = card_problem(card)  # each test's fields too: they are summed below
            if problem is not None:
                raise InputError(results_path, *problem)
            for entry in card["results"]:
                entries[entry["scenario"]] = entry
            errors.update(summary.get("scenario_errors") or {})
            missing += summary.get("missing_tests") or []
            scenarios += m.get("scenarios") or []
        results = [entries[name] for name in sorted(entries)]
        kept = [records[k] for k in sorted(records)]  # a run's card lists every recorded test
        config.update(out=str((out / "results.json").resolve()), shard=None)
        manifest.update(config=config, scenarios=sorted(scenarios))
        total = sum(len(e["tests"]) for e in results)
        memory = sum(t["memory"] for e in results for t in e["tests"])
        write_json_atomic(out / "results.json",
                          {"results": results, "summary": {"total": total, "memory": memory}})
        write_json_atomic(out / "summary.json", {
            "by_fixture_type": breakdown(kept, "fixture_type"),
            "by_task": breakdown(kept, "task"),
            "scenario_errors": dict(sorted(errors.items())),
            "missing_tests": sorted(missing),
        })


def _loadable(suite: Path, options: ScenememConfig) -> list[Any]:
    """The suite's scenarios that load (one that does not is the run's to report, per test)."""
    out = []
    for root in discover_scenarios(suite, options.filter):
        try:
            out.append(load_scenario(root, options.env_factory, bool(options.trust_suite)))
        except InputError:
            continue
    return out


def runner_summary(d: Path) -> dict[str, Any]:
    """What a finished shard's runner wrote to its summary.json."""
    path = d / "summary.json"
    if not path.is_file():
        raise InputError(path, None, "missing: the shard never finished (finish it with "
                                     "--resume first)")
    summary = read_json(path)
    if not isinstance(summary, dict):
        raise InputError(path, None, "must be a JSON object")
    return summary


RUNNER = ScenememRunner()
