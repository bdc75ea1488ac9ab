"""SceneMem's options, declared once: ``recallbench scenemem --NAME`` (the card's snake_case
spellings answer too) and ``recallbench run --scenemem-NAME`` are derived from them, and the
runner (``run.scenemem_runner``) receives their values as one ``ScenememOptions``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from recallbench.benchmarks.options import BENCHMARK_COMMAND, Option, check_declared, seed
from recallbench.benchmarks.scenemem.defaults import DEFAULT_MAX_STEPS

_OWN = (BENCHMARK_COMMAND,)  # what `recallbench run` decides itself (suite, agents, out, seed)

OPTIONS: tuple[Option, ...] = (
    Option("data_dir", "folder holding combo_* scenario folders", commands=_OWN),
    Option("policy", "module:Class, path/to/file.py:Class, an agent name (`recallbench list "
           "agents`), openpi://HOST:PORT (a policy served with openpi's protocol, e.g. by "
           "`recallbench serve-policy`; ws://HOST:PORT: the same, observations sent raw) or "
           "lerobot:FOLDER (a LeRobot checkpoint); docs/vla.md", commands=_OWN),
    Option("policy_arg", "served policies: obs_map=FILE|raw, replan_steps=N (default 5), "
           "memory=frames|paths|none, memory_frames=K (8), memory_size=PX (224); lerobot: "
           "device=cpu|cuda, obs_map=FILE (repeatable; docs/vla.md)", kind="pairs", default={},
           metavar="KEY=VALUE", commands=_OWN),
    Option("observation_only", "the policy's env offers observations, action_dim and "
           "action_spec only (always so for served and lerobot: policies); without it a "
           "card-interface policy gets the live simulator, and the run says so", kind="flag"),
    Option("out", "results.json path (the card's schema)", commands=_OWN),
    Option("filter", "only scenarios whose folder name has this"),
    Option("max_steps", f"steps per test (default: spec, else {DEFAULT_MAX_STEPS})", type=int,
           run_alias="--max-steps", positive=True),
    Option("workers", "worker processes (default: one per core)", type=int, commands=_OWN,
           positive=True),
    Option("test_timeout", "wall-clock limit per test, s", type=float,
           run_alias="--test-timeout", positive=True),
    Option("run_dir", "run folder (default: <out stem>_run/)", commands=_OWN),
    Option("resume", "finish the run in --run-dir (default: beside --out)", kind="flag",
           commands=_OWN),
    Option("overwrite", "start the run in --run-dir again, replacing its --out results.json",
           kind="flag", commands=_OWN),
    Option("seed", "run seed (default 0)", type=seed, commands=_OWN),
    Option("approach_dist", "default 1.2 (m)", type=float, positive=True),
    Option("open_qpos", "default 0.5 (rad or m)", type=float, positive=True),
    Option("camera_obs", "robosuite: no camera observations and no offscreen renderer (the "
           "card has both on); for policies that read no images, ~10x faster steps",
           kind="flag", const=False, flag="--no-camera-obs"),
    Option("env_factory", "module:function (or file.py:function) that builds each scenario's "
           "env; a suite itself may only name a factory registered under "
           "recallbench.env_factories"),
    Option("trust_suite", "let the scenarios' model files reference files outside their "
           "folders", kind="flag"),
    Option("trust_policy", "load a lerobot:FOLDER you trust as it is: its processor steps, "
           "policy type and files are not checked to be data (docs/vla.md)", kind="flag"),
)


@dataclass(frozen=True)
class ScenememOptions:
    """One SceneMem run's options as given (fields: ``OPTIONS``, in order); None is "not given":
    a new run takes the card's default, a resumed one the recorded value."""

    data_dir: str | None = None
    policy: str | None = None
    policy_arg: dict[str, Any] = field(default_factory=dict)
    observation_only: bool | None = None
    out: str | None = None
    filter: str | None = None
    max_steps: int | None = None
    workers: int | None = None
    test_timeout: float | None = None
    run_dir: str | None = None
    resume: bool | None = None
    overwrite: bool | None = None
    seed: int | None = None
    approach_dist: float | None = None
    open_qpos: float | None = None
    camera_obs: bool | None = None
    env_factory: str | None = None
    trust_suite: bool | None = None
    trust_policy: bool | None = None


check_declared(ScenememOptions, OPTIONS)
