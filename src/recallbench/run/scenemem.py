"""Running a SceneMem evaluation: plan, execute in workers, log each test, resume, report.

Run folder (default ``<out stem>_run/`` beside --out):
  manifest.json   versions, command, config, seeds, start time (and each resume)
  runlog.jsonl    one record per finished test, flushed as it ends (key scenario/test)
  summary.json    breakdowns by fixture type and task, scenario errors (written at the end)
  workers.log     the worker processes' stdout/stderr (simulator chatter, tracebacks)
results.json (--out) is the card's schema exactly, rebuilt from the run log at the end.
"""

from __future__ import annotations

import math
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from recallbench.agents.registry import agent_kind
from recallbench.agents.vla import check_policy, check_policy_cameras, policy_kind
from recallbench.benchmarks.scenemem.backend import check_factory_reference, robocasa_available
from recallbench.benchmarks.scenemem.observation_env import SIMULATOR_ACCESS_NOTE
from recallbench.benchmarks.scenemem.options import ScenememConfig
from recallbench.benchmarks.scenemem.policy import load_policy_class
from recallbench.benchmarks.scenemem.results import (
    breakdown,
    card_results,
    recorded_plan,
    test_key,
)
from recallbench.benchmarks.scenemem.spec import (
    EvalSpec,
    Scenario,
    discover_scenarios,
    load_scenario,
    parse_eval_spec,
)
from recallbench.console import progress as progress_bar
from recallbench.errors import InputError, print_problem
from recallbench.executor import ExecutorSettings, Task, TaskResult, executor_for
from recallbench.executor.shards import parse_shard
from recallbench.io import write_json_atomic
from recallbench.run.limits import DEFAULT_TEST_TIMEOUT
from recallbench.run.lock import clear_run_folder, run_folder_lock
from recallbench.run.manifest import build_manifest, read_manifest, write_manifest
from recallbench.run.runlog import RUN_LOG, RunLog, completed
from recallbench.run.scenemem_config import (  # noqa: F401 - the run's config, re-exported
    default_run_dir,
    normalise,
    record,
    resume_config,
)
from recallbench.seeding import case_seed
from recallbench.video.reader import check_video

WORKER_HANDLER = "recallbench.run.scenemem_worker:run_test"
# Wall-clock seconds per test without --test_timeout: a 1,500-step robosuite rollout with camera
# observations fits many times over; a policy that hangs costs its test, never the run.


def _record(scenario: Scenario, test_id: str, seed: int, result: TaskResult) -> dict[str, Any]:
    test = scenario.test(test_id)
    base = {
        "key": test_key(scenario.name, test_id),
        "scenario": scenario.name,
        "test_id": test_id,
        "task": test.task,
        "fixture": test.fixture.name,
        "fixture_type": test.fixture.type,
        "category": test.category,
        "seed": seed,
        "wall_time": round(result.wall_time, 3),
    }
    if result.error is not None:  # the worker never returned: timeout, crash
        return {
            **base,
            "memory": False,
            "steps": None,
            "max_steps": None,
            "min_distance": None,
            "max_abs_qpos": None,
            "failed": None,
            "restore_distance": None,
            "error": result.error,
        }
    return {**base, **{k: _finite(v) for k, v in result.value.items()}}


def _finite(value: Any) -> Any:
    # A diverged simulation can report NaN distances; JSON (and the log) cannot hold them.
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def run_scenemem(
    config: ScenememConfig,
    run_dir: Path,
    workers: int,
    resume: bool = False,
    console: Console | None = None,
    execution: ExecutorSettings | None = None,
    overwrite: bool = False,
) -> int:
    """Run (or finish) an evaluation. Exit status 0, or 1 if a scenario failed to load.

    ``execution`` says where tests run (default: ``workers`` local processes); ``overwrite``
    discards a run recorded in ``run_dir`` (after the policy and scenarios loaded)."""
    console = console or Console(stderr=True)
    execution = execution or ExecutorSettings("local", workers)
    # Fail fast on a bad --policy or --env-factory (both from the command line).
    policy = str(config.policy)  # a normalised config (run.scenemem_config) holds every value
    policy_info = check_policy(policy, config.policy_args,  # a server must answer now
                               trusted=bool(config.trust_policy))
    if policy_kind(policy) == "card":
        load_policy_class(policy, config.policy_paths, config.eval_dirs)
    if config.env_factory:
        check_factory_reference(config.env_factory)
    scenarios, errors, unrunnable = _load_scenarios(config, console)
    # a policy that needs images, on scenarios that record none: refused, not failed per test
    check_policy_cameras(policy, config.policy_args, scenarios, config.camera_obs is not False)
    with run_folder_lock(run_dir):  # a second writer is refused before it changes anything
        if overwrite and not resume:  # as every command's --overwrite: the whole folder
            clear_run_folder(run_dir)  # (a stale viewer/ or worker log too), links never followed
        _write_manifest(config, run_dir, execution, resume, scenarios, policy_info)
        done = completed(run_dir / RUN_LOG)
        _record_preflight(config, run_dir, unrunnable, errors, done)
        _execute(config, run_dir, execution, scenarios, errors, done, console)
        return _finish(config, run_dir, scenarios, errors, done, console)


def _load_scenarios(
    config: ScenememConfig, console: Console
) -> tuple[list[Scenario], dict[str, str], dict[str, EvalSpec]]:
    """The scenarios that pass the pre-flight check, the errors of those that do not, and the
    specs of the failed ones whose spec still names its tests (their tests fail, counted)."""
    data_dir = str(config.data_dir)
    roots = discover_scenarios(data_dir, config.filter)
    if not roots:
        where = f" matching --filter {config.filter!r}" if config.filter else ""
        raise InputError(data_dir, None, f"no scenario folders{where}")
    shard = parse_shard(config.shard)
    if shard is not None:
        roots = [r for r in roots if shard.picks(r.name)]
    scenarios: list[Scenario] = []
    errors: dict[str, str] = {}
    unrunnable: dict[str, EvalSpec] = {}
    for root in roots:
        try:
            scenario = load_scenario(root, config.env_factory, bool(config.trust_suite))
            for i, video in enumerate(scenario.video_paths):  # garbage/truncated: before work
                check_video(video, f"videos[{i}]")
            scenarios.append(scenario)
        except InputError as exc:
            errors[root.name] = str(exc)
            spec = _readable_spec(root)
            if spec is not None:
                unrunnable[root.name] = spec
            print_problem(f"{exc} (scenario skipped)", "error", console=console)
    return scenarios, errors, unrunnable


def _readable_spec(root: Path) -> EvalSpec | None:
    try:
        return parse_eval_spec(root / "eval_spec.json")
    except InputError:  # no spec, or not one: its tests are unknown and cannot be counted
        return None


PREFLIGHT_FAILED = "pre-flight check failed"


def _record_preflight(
    config: ScenememConfig,
    run_dir: Path,
    unrunnable: dict[str, EvalSpec],
    errors: dict[str, str],
    done: dict[str, dict[str, Any]],
) -> None:
    """Record each test of a scenario that failed the pre-flight check (malformed XML, a
    missing video, a free joint named in the spec) as failed with the reason, as a scenario
    whose env cannot be built: the card's total counts every test asked for."""
    new: list[dict[str, Any]] = []
    for name, spec in unrunnable.items():
        for test in spec.tests:
            key = test_key(name, test.test_id)
            if key in done:
                continue
            new.append({
                "key": key, "scenario": name, "test_id": test.test_id, "task": test.task,
                "fixture": test.fixture.name, "fixture_type": test.fixture.type,
                "category": test.category, "seed": case_seed(config.seed or 0, key),
                "wall_time": 0.0, "memory": False, "steps": None, "max_steps": None,
                "min_distance": None, "max_abs_qpos": None, "failed": None,
                "restore_distance": None, "preflight": True,
                "error": f"{PREFLIGHT_FAILED}: {errors[name]}",
            })  # fmt: skip
    if not new:
        return
    with RunLog(run_dir / RUN_LOG) as log:
        for record in new:
            log.append(record)
            done[record["key"]] = record


def _write_manifest(
    config: ScenememConfig,
    run_dir: Path,
    execution: ExecutorSettings,
    resume: bool,
    scenarios: list[Scenario],
    policy_info: dict[str, Any],
) -> None:
    run_dir.mkdir(parents=True, exist_ok=True)
    if resume:
        manifest = read_manifest(run_dir)
        manifest.setdefault("resumes", []).append(
            {"command": sys.argv, "workers": execution.workers,
             "executor": execution.manifest(), "time": _now(), "policy": policy_info}
        )
    else:
        if (run_dir / RUN_LOG).exists():
            raise InputError(run_dir / RUN_LOG, None, "run folder already used; pass --resume")
        manifest = build_manifest(
            benchmark="scenemem",
            config=record(config),
            workers=execution.workers,
            executor=execution.manifest(),
            seeds={
                "run": config.seed,
                "per_test": "sha256('<run>:<scenario>/<test_id>')[:4] little-endian; in runlog",
            },
            robocasa_imported=robocasa_available(),
            scenarios=[s.name for s in scenarios],
            policy=policy_info,
            agent_kind=agent_kind(str(config.policy)),  # what its score means (registry.KINDS)
            # A card-interface policy given the live env could read the answer from it.
            policy_simulator_access=not config.observation_only,
        )
    write_manifest(run_dir, manifest)


def _execute(
    config: ScenememConfig,
    run_dir: Path,
    execution: ExecutorSettings,
    scenarios: list[Scenario],
    errors: dict[str, str],
    done: dict[str, dict[str, Any]],
    console: Console,
) -> None:
    """Run every test without a record; append each record the moment its test ends."""
    timeout = config.test_timeout or DEFAULT_TEST_TIMEOUT  # a hung policy must not hang the run
    executor = executor_for(execution, WORKER_HANDLER, timeout=timeout,
                            log_path=run_dir / "workers.log")
    pending: dict[str, tuple[Scenario, str, int]] = {}
    total = 0
    for scenario in scenarios:
        for test in scenario.spec.tests:
            total += 1
            key = test_key(scenario.name, test.test_id)
            # a test recorded as failing the pre-flight check runs once its scenario is fixed
            if key not in done or done[key].get("preflight"):
                seed = case_seed(config.seed or 0, key)
                pending[key] = (scenario, test.test_id, seed)
                executor.submit(Task(key, _payload(config, scenario, test.test_id, seed)))
    progress = progress_bar("scenemem", console, detail=True)
    # tests whose policy server (or Ray node) went away: unrecorded, for --resume
    lost: list[str] = []
    with RunLog(run_dir / RUN_LOG) as log, progress, executor:
        bar = progress.add_task("tests", total=total, completed=total - len(pending), last="")
        for result in executor.results():
            scenario, test_id, seed = pending[result.key]
            if result.lost:  # its machine kept vanishing: nothing said about the policy
                lost.append(f"{result.key}: {result.error}")
                progress.update(bar, advance=1, last=f"lost: {result.key}")
                continue
            if result.value and "policy_server_lost" in result.value:
                lost.append(result.value["policy_server_lost"])
                progress.update(bar, advance=1, last=f"server lost: {result.key}")
                continue
            if result.value and "scenario_error" in result.value:
                # Not logged: a fixed scenario is retried on --resume.
                if scenario.name not in errors:
                    errors[scenario.name] = result.value["scenario_error"]
                    print_problem(f"{errors[scenario.name]} (scenario skipped)", "error",
                                  console=console)
                progress.advance(bar)
                continue
            record = _record(scenario, test_id, seed, result)
            log.append(record)
            done[record["key"]] = record
            status = "ok" if record["memory"] else (record["error"] or record["failed"])
            progress.update(bar, advance=1, last=f"{status}: {result.key}")
    if lost:
        print_problem(f"{len(lost)} test(s) not recorded: {lost[0]}; start the server (or the "
                      "node) again and finish with: recallbench scenemem --resume --run-dir "
                      f"{run_dir}", "error", console=console)


def _finish(
    config: ScenememConfig,
    run_dir: Path,
    scenarios: list[Scenario],
    errors: dict[str, str],
    done: dict[str, dict[str, Any]],
    console: Console,
) -> int:
    """results.json (the card's schema) and summary.json, both from the log's records."""
    loaded = [(s.name, [t.test_id for t in s.spec.tests])
              for s in scenarios if s.name not in errors]
    plan = recorded_plan(loaded, done)  # every recorded result, whatever fails to load now
    keys = {test_key(name, t) for name, ids in plan for t in ids}
    records = [done[k] for k in sorted(keys) if k in done]
    write_json_atomic(str(config.out), card_results(plan, done))
    summary = {
        "by_fixture_type": breakdown(records, "fixture_type"),
        "by_task": breakdown(records, "task"),
        "scenario_errors": dict(sorted(errors.items())),  # not in the order workers found them
        "missing_tests": sorted(keys - set(done)),
    }
    write_json_atomic(run_dir / "summary.json", summary)
    _print_summary(console, summary, len(records))
    if not config.observation_only:
        console.print(SIMULATOR_ACCESS_NOTE, highlight=False)  # wrapped at the width
    return 1 if errors or summary["missing_tests"] else 0


def _payload(config: ScenememConfig, scenario: Scenario, test_id: str, seed: int) -> dict:
    """What a worker runs one test with: the recorded config (policy, max_steps, thresholds...),
    the test, its seed and the run's."""
    return {**record(config), "scenario_dir": str(scenario.root), "test_id": test_id,
            "seed": seed, "run_seed": config.seed}


def _print_summary(console: Console, summary: dict[str, Any], n: int) -> None:
    for title, groups in (
        ("by fixture type", summary["by_fixture_type"]),
        ("by task", summary["by_task"]),
    ):
        table = Table(title=f"SceneMem memory success {title}")
        for col in ("group", "tests", "memory", "rate", "first\nopen", "errors", "no\napproach",
                    "door\nshut"):
            if col == "group":  # long task names fold at 80 columns, never cut to "PnPCoun…"
                table.add_column(col, justify="left", overflow="fold", min_width=12)
            else:
                table.add_column(col, justify="right")
        for name, g in groups.items():
            f = g["failed"]
            table.add_row(
                name,
                str(g["total"]),
                str(g["memory"]),
                f"{g['rate']:.1%}",
                f"{g.get('first_open_rate', 0.0):.1%}",
                str(g["errors"]),
                str(f["approach"] + f["both"]),
                str(f["door"] + f["both"]),
            )
        console.print(table)
    if summary["scenario_errors"]:
        n_bad = len(summary["scenario_errors"])
        print_problem(f"{n_bad} scenario(s) could not be loaded", console=console)
    console.print(f"{n} tests recorded")


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
