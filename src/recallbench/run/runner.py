"""One runner per benchmark (issue 24): what every command that runs, resumes or merges a
benchmark's agents goes through.

A benchmark names its runner in its declaration (``Benchmark.runner``, ``module:attr``); the
runner builds one typed config object from the benchmark's declared options, checks a suite and
its agents before any work, runs one agent into a run folder, says which recorded settings a
folder must share to be resumed, and how shard folders join. ``recallbench <benchmark>``,
``recallbench run`` (``run.compare``) and ``recallbench merge`` (``run.merge``) all use it; none
of them, and nothing here, reads the command line: values arrive as the config object.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rich.console import Console

from recallbench.benchmarks.options import RUN_COMMAND, Option, build_config
from recallbench.benchmarks.registry import get_benchmark
from recallbench.errors import InputError
from recallbench.executor import ExecutorSettings
from recallbench.executor.shards import Shard
from recallbench.io import read_json
from recallbench.loader import load_attr

# How a command spells an option in its messages: option name -> "--flag".
Flags = Callable[[str], str]


def kebab_flags(name: str) -> str:
    """The benchmark command's spelling of an option: ``ll_policy`` -> ``--ll-policy``."""
    return "--" + name.replace("_", "-")


@dataclass
class AgentRun:
    """One agent on one benchmark: status ok / skipped / failed, and where its run lives."""

    agent: str
    target: str | None
    status: str
    note: str = ""
    run_dir: str | None = None
    seconds: float = 0.0
    exit_status: int = 0  # 1: some cases unloadable or left unrecorded (the command's exit)
    # cases left for a resume (a server or input that may recover), one line each; ``note``
    # joins them for a comparison
    warnings: list[str] = field(default_factory=list)


@dataclass
class Planned:
    """One agent on one benchmark, decided before any work: run it (with ``instance`` already
    built when its runner ``builds_agents``) or skip it with a note."""

    agent: str
    skip: str | None = None
    instance: Any = None
    target: str | None = None  # the module:Class it runs as (recallbench.agents.registry)
    kwargs: dict[str, Any] = field(default_factory=dict)  # its constructor arguments


@dataclass
class Prepared:
    """A suite checked and loaded for one config, before any agent runs."""

    suite_path: Path
    config: Any
    suite: Any = None
    extra: dict[str, Any] = field(default_factory=dict)  # runner-specific (e.g. an LL policy)


@dataclass
class RunContext:
    """How a command wants its agents run (where, resumed or not); never what they compute."""

    execution: ExecutorSettings = field(default_factory=ExecutorSettings)
    console: Console = field(default_factory=lambda: Console(stderr=True))
    # True/False: the command said; None: finish a run recorded in the folder, else start one
    resume: bool | None = None
    overwrite: bool = False
    shard: Shard | None = None
    # progress bars: on this console (None: ``console``), removed when done
    progress_console: Console | None = None
    transient: bool = False


class BenchmarkRunner:
    """The base every benchmark's runner extends; ``name`` is its benchmark's."""

    name: str = ""
    config_type: Callable[..., Any] = dict
    run_subdir = ""  # the run folder inside an agent's folder of a comparison
    settings_in = ""  # the manifest key holding the run settings ("" = top level)
    builds_agents = False  # the command builds each agent before work (its refusals first)

    @property
    def options(self) -> tuple[Option, ...]:
        return get_benchmark(self.name).options

    def config(self, values: Mapping[str, Any]) -> Any:
        """The typed config from option values (unset ones default)."""
        return build_config(self.config_type, self.options, values)

    def prepare(self, suite: Path, config: Any, flags: Flags = kebab_flags) -> Prepared:
        """Check (and load) the suite for ``config`` before any work."""
        return Prepared(Path(suite), config)

    def check_agents(self, prepared: Prepared, planned: list[Planned],
                     flags: Flags = kebab_flags) -> None:
        """Checks of the planned agents against the suite, before any work."""

    def run(self, prepared: Prepared, planned: Planned, agent_dir: Path,
            ctx: RunContext) -> AgentRun:
        raise NotImplementedError

    def settings(self, prepared: Prepared, planned: Planned) -> dict[str, Any]:
        """What an agent folder's recorded settings must equal to be resumed, not redone."""
        raise NotImplementedError

    def execution(self, execution: ExecutorSettings) -> ExecutorSettings:
        """Where a comparison runs this benchmark's cases, given where it was asked to."""
        return execution

    def merge(self, runs: list[tuple[Path, dict[str, Any], Shard]],
              records: dict[str, dict[str, Any]], manifest: dict[str, Any], out: Path) -> None:
        """What joining shard folders needs beyond the union of their records."""

    def run_options(self, config: Any) -> dict[str, Any]:
        """The options ``recallbench run`` offers, with their values: what a comparison
        records for this benchmark."""
        return {o.name: getattr(config, o.name) for o in self.options if o.offered(RUN_COMMAND)}

    def run_dir(self, agent_dir: Path) -> Path:
        return agent_dir / self.run_subdir if self.run_subdir else agent_dir

    def recorded_settings(self, agent_dir: Path) -> dict[str, Any] | None:
        """The settings an agent folder was run with (None when it holds no run yet)."""
        path = self.run_dir(agent_dir) / "manifest.json"
        if not path.is_file():
            return None
        try:
            manifest = read_json(path)
        except (OSError, InputError):
            return {"manifest": "unreadable"}
        if not isinstance(manifest, dict):
            return {"manifest": "unreadable"}
        settings = (manifest.get(self.settings_in) or {}) if self.settings_in else manifest
        return {k: settings.get(k) for k in get_benchmark(self.name).run_settings}


def runner_for(bench: str) -> BenchmarkRunner:
    """The runner a benchmark's declaration names."""
    ref = get_benchmark(bench).runner
    if not ref:
        raise ValueError(f"benchmark {bench!r} names no runner")
    runner = load_attr(ref)
    if not isinstance(runner, BenchmarkRunner):
        raise TypeError(f"{ref} is not a recallbench.run.runner.BenchmarkRunner")
    return runner
