"""ToyBench's runner: every case in the executor's workers, one run-log record each."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from toybench.options import ToyConfig
from toybench.seam import planned
from toybench.suite import load_suite

from recallbench.executor import Task, executor_for
from recallbench.executor.shards import parse_shard
from recallbench.run.manifest import build_manifest, read_manifest, write_manifest
from recallbench.run.runlog import RUN_LOG, RunLog, completed
from recallbench.run.runner import (
    AgentRun,
    BenchmarkRunner,
    Flags,
    Planned,
    Prepared,
    RunContext,
    kebab_flags,
)
from recallbench.seeding import case_seed

HANDLER = "toybench.worker:answer"


class ToyRunner(BenchmarkRunner):
    name = "toybench"
    config_type = ToyConfig

    def prepare(self, suite: Path, config: ToyConfig, flags: Flags = kebab_flags) -> Prepared:
        parse_shard(config.shard, flags("shard"))  # a bad I/N: before any work
        return Prepared(Path(suite), config, load_suite(suite))

    def _settings(self, prepared: Prepared, planned_agent: Planned) -> dict[str, Any]:
        config: ToyConfig = prepared.config
        return {"data": str(prepared.suite_path.resolve()), "agent": planned_agent.agent,
                "target_colour": config.target, "seed": config.seed, "limit": config.limit,
                "shard": config.shard}

    def settings(self, prepared: Prepared, planned_agent: Planned) -> dict[str, Any]:
        return self._settings(prepared, planned_agent)

    def run(self, prepared: Prepared, planned_agent: Planned, agent_dir: Path,
            ctx: RunContext) -> AgentRun:
        config: ToyConfig = prepared.config
        cases = planned(prepared.suite, config.limit, config.shard)
        agent_dir.mkdir(parents=True, exist_ok=True)
        if not (agent_dir / "manifest.json").is_file():
            write_manifest(agent_dir, build_manifest(
                benchmark=self.name, **self._settings(prepared, planned_agent),
                agent_target=planned_agent.target, cases=len(cases),
                executor=ctx.execution.manifest()))
        read_manifest(agent_dir)
        done = completed(agent_dir / RUN_LOG)
        executor = executor_for(ctx.execution, HANDLER, timeout=60,
                                log_path=agent_dir / "workers.log")
        for case in cases:
            if case["id"] not in done:
                executor.submit(Task(case["id"], {
                    "agent": planned_agent.target, "kwargs": planned_agent.kwargs,
                    "seed": case_seed(config.seed, case["id"]), "frames": case["frames"],
                    "target": config.target}))
        with RunLog(agent_dir / RUN_LOG) as log, executor:
            for result in executor.results():
                value = result.value or {}
                log.append({"key": result.key, "frame": value.get("frame"),
                            "error": result.error})
        return AgentRun(planned_agent.agent, planned_agent.target, "ok",
                        run_dir=str(agent_dir))

    def merge(self, runs: list[Any], records: dict[str, dict[str, Any]],
              manifest: dict[str, Any], out: Path) -> None:
        manifest["cases"] = sum(m.get("cases") or 0 for _, m, _ in runs)


RUNNER = ToyRunner()
