"""SceneMem's one config, ``ScenememConfig``: its option fields are declared once here
(``recallbench scenemem --NAME``, the card's snake_case spellings too, and ``recallbench run
--scenemem-NAME`` are derived from them), the runner (``run.scenemem_runner``) receives their
values as one ``ScenememConfig``, and the run folder records it (``run.scenemem_config``): a
resumed run must match the fields marked ``resume``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from recallbench.benchmarks.options import BENCHMARK_COMMAND, option, options_of, seed
from recallbench.benchmarks.scenemem.defaults import DEFAULT_MAX_STEPS

_OWN = (BENCHMARK_COMMAND,)  # what `recallbench run` decides itself (suite, agents, out, seed)


@dataclass(frozen=True)
class ScenememConfig:
    """One SceneMem run. An option field None is "not given": a new run takes the card's
    default (``run.scenemem_config.normalise``), a resumed one the recorded value. The fields
    after the options are what a run records beside them (no flag sets them)."""

    data_dir: str | None = option("folder holding combo_* scenario folders", commands=_OWN,
                                  resume=True)
    policy: str | None = option(
        "module:Class, path/to/file.py:Class, an agent name (`recallbench list agents`), "
        "openpi://HOST:PORT (a policy served with openpi's protocol, e.g. by `recallbench "
        "serve-policy`; ws://HOST:PORT: the same, observations sent raw) or lerobot:FOLDER (a "
        "LeRobot checkpoint); docs/vla.md", commands=_OWN, resume=True)
    # recorded as `policy_args`, the card's --policy_arg KEY=VALUE
    policy_args: dict[str, Any] = option(
        "served policies: obs_map=FILE|raw, replan_steps=N (default 5), memory=frames|paths|"
        "none, memory_frames=K (8), memory_size=PX (224); lerobot: device=cpu|cuda, "
        "obs_map=FILE (repeatable; docs/vla.md)", kind="pairs", default_factory=dict,
        metavar="KEY=VALUE", commands=_OWN, flag="--policy-arg")
    observation_only: bool | None = option(
        "the policy's env offers observations, action_dim and action_spec only (always so for "
        "served and lerobot: policies); without it a card-interface policy gets the live "
        "simulator, and the run says so", kind="flag", resume=True)
    out: str | None = option("results.json path (the card's schema)", commands=_OWN)
    filter: str | None = option("only scenarios whose folder name has this", resume=True)
    max_steps: int | None = option(f"steps per test (default: spec, else {DEFAULT_MAX_STEPS})",
                                   type=int, run_alias="--max-steps", positive=True,
                                   resume=True)
    workers: int | None = option("worker processes (default: one per core)", type=int,
                                 commands=_OWN, positive=True)
    test_timeout: float | None = option("wall-clock limit per test, s", type=float,
                                        run_alias="--test-timeout", positive=True, resume=True)
    run_dir: str | None = option("run folder (default: <out stem>_run/)", commands=_OWN)
    resume: bool | None = option("finish the run in --run-dir (default: beside --out)",
                                 kind="flag", commands=_OWN)
    overwrite: bool | None = option(
        "start the run in --run-dir again, replacing its --out results.json", kind="flag",
        commands=_OWN)
    seed: int | None = option("run seed (default 0)", type=seed, commands=_OWN, resume=True)
    # both recorded in the run's `thresholds` (with the card's restore_dist)
    approach_dist: float | None = option("default 1.2 (m)", type=float, positive=True,
                                         resume="thresholds")
    open_qpos: float | None = option("default 0.5 (rad or m)", type=float, positive=True,
                                     resume="thresholds")
    camera_obs: bool | None = option(
        "robosuite: no camera observations and no offscreen renderer (the card has both on); "
        "for policies that read no images, ~10x faster steps", kind="flag", const=False,
        flag="--no-camera-obs", resume=True)
    env_factory: str | None = option(
        "module:function (or file.py:function) that builds each scenario's env; a suite itself "
        "may only name a factory registered under recallbench.env_factories", resume=True)
    trust_suite: bool | None = option(
        "let the scenarios' model files reference files outside their folders", kind="flag",
        resume=True)
    trust_policy: bool | None = option(
        "load a lerobot:FOLDER you trust as it is: its processor steps, policy type and files "
        "are not checked to be data (docs/vla.md)", kind="flag", resume=True)
    # recorded beside the options: where the policy's imports resolve, the card's eval dirs,
    # and this run's part of the scenarios ("i/N", the command's --shard)
    policy_paths: list[str] = field(default_factory=list)
    eval_dirs: list[str] = field(default_factory=list)
    shard: str | None = None


OPTIONS = options_of(ScenememConfig)
# its generator (Benchmark.generator) and its command (Benchmark.command), declared here so
# `generate --help` and `recallbench --help` load no seam
GENERATOR = "recallbench.generate.registry:SCENEMEM"
COMMAND = "recallbench.cli.scenemem:register"
