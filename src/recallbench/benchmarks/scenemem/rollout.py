"""One SceneMem rollout: reset the policy, step until the first success or max_steps.

Success is checked after every step and the rollout stops at the first success (the card leaves
this open; see docs/scenemem.md). A policy fault (raise, NaN/inf, wrong shape) ends only this
rollout, as a failure with the reason recorded.
"""

from __future__ import annotations

import json
import math
import sys
import traceback
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from recallbench.benchmarks.scenemem.observation_env import ObservationOnlyEnv
from recallbench.benchmarks.scenemem.openings import OpeningLog, strict_outcome, watched_fixtures
from recallbench.benchmarks.scenemem.spec import Scenario, TestSpec
from recallbench.benchmarks.scenemem.success import (
    Probe,
    Thresholds,
    failed_condition,
    restore_distance,
)
from recallbench.benchmarks.scenemem.trace import RolloutTrace, room_bounds, scenario_fixtures


class PolicyFault(Exception):
    """The rollout cannot go on (policy broke the interface, or the env failed on its action);
    the message is what the run log records."""


@dataclass
class Outcome:
    """Per-test record fields (the runner adds keys, task, fixture type and wall time)."""

    memory: bool
    steps: int
    min_distance: float
    max_abs_qpos: float
    failed: str | None
    error: str | None = None
    restore_distance: float | None = None
    # What the policy reports about its own decision (``policy.rollout_info()``, optional), e.g.
    # the fixture a memory module chose; kept in the run log beside the outcome.
    policy_info: dict[str, Any] | None = None
    # Per-step base pose, distance and joint qpos (benchmarks.scenemem.trace, versioned).
    trace: dict[str, Any] | None = None
    # recallbench's strict metric (benchmarks.scenemem.openings): the first fixture opened was
    # the target; other fixtures opened before success; every fixture opened, in order. None
    # for restore tests, which open nothing.
    first_open_success: bool | None = None
    fixtures_opened_before_success: int | None = None
    opened: list[str] | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def check_action(action: Any, action_dim: int) -> np.ndarray:
    # The common case, a float64 vector of the right length, in one reduction: its dot with
    # itself is finite only when every entry is (a huge finite vector that overflows falls
    # through to the full check, which passes it).
    if (type(action) is np.ndarray and action.dtype == np.float64
            and action.shape == (action_dim,) and math.isfinite(action.dot(action))):
        return action  # what np.asarray(action, dtype=float) returns for it: the same array
    try:
        arr = np.asarray(action, dtype=float)
    except (TypeError, ValueError) as exc:
        raise PolicyFault(f"get_action returned a non-numeric value: {exc}") from exc
    if arr.shape != (action_dim,):
        raise PolicyFault(f"get_action returned shape {arr.shape}, expected ({action_dim},)")
    if not np.isfinite(arr).all():
        raise PolicyFault("get_action returned NaN or inf")
    return arr


def _describe(where: str, exc: BaseException) -> str:
    frame = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
    at = f" at {frame[0].filename}:{frame[0].lineno}" if frame else ""
    return f"{where} raised {type(exc).__name__}: {exc}{at}"


def stepper(env: Any) -> Any:
    """What the loop steps ``env`` with (its return value is never read: a policy asks the env
    for observations itself). The built-in world's ``advance`` is its ``step`` without building
    the observation, so a camera image is rendered once per request instead of also on every
    step; any other env (robosuite, a subclass with a ``step`` of its own) steps as it is."""
    world = sys.modules.get("recallbench.world.env")  # not loaded: not the built-in world
    home = getattr(world, "HomeEnv", None)
    if home is not None and isinstance(env, home) and type(env).step is home.step:
        return env.advance
    return env.step


@dataclass
class _Progress:
    """Where a rollout stands: the last step's readings, the best seen so far, and how it ended."""

    steps: int
    distance: float
    max_q: float
    min_dist: float
    max_q_seen: float
    min_rd: float | None
    success: bool = False
    error: str | None = None


def run_rollout(
    env: Any,
    policy: Any,
    scenario: Scenario,
    test: TestSpec,
    max_steps: int,
    thresholds: Thresholds,
    observation_only: bool = False,
) -> Outcome:
    """Run one test from the already-loaded start state and score it. ``observation_only``:
    the policy's ``env`` is an ``ObservationOnlyEnv`` (no simulator, no episode metadata)."""
    fixture = test.fixture
    restore = test.task == "restore"
    probe = Probe(env.sim, fixture.body_name, fixture.joint_names, thresholds)
    distance, max_q = probe.read()
    rd = (restore_distance(env.sim, test.object_body_name or "", test.target_pos or [])
          if restore else None)
    start = _Progress(0, distance, max_q, distance, max_q, rd)
    trace = RolloutTrace(env.sim, fixture.name, fixture.joint_names,
                         scenario_fixtures(env, scenario.spec.tests), room_bounds(env))
    trace.sample(0, distance)
    openings = OpeningLog(env.sim, watched_fixtures(env, scenario.spec.tests), thresholds.open_qpos)
    action_dim = int(env.action_dim)
    seen = ObservationOnlyEnv(env) if observation_only else env
    reset_error = _reset_policy(policy, test, scenario)
    if reset_error is None:
        end = _step_until_done(env, policy, seen, action_dim, test, max_steps, thresholds,
                               probe, trace, openings, start)
    else:
        end = start
        end.error = reset_error
    return _outcome(policy, test, probe, trace, openings, end)


def _reset_policy(policy: Any, test: TestSpec, scenario: Scenario) -> str | None:
    """Start the policy on this test; if it raises, the fault that ends the rollout at step 0."""
    try:
        policy.reset(test.instruction, scenario.video_paths)
    except Exception as exc:
        return _describe("policy.reset", exc)
    return None


def _step_until_done(env: Any, policy: Any, seen: Any, action_dim: int, test: TestSpec,
                     max_steps: int, thresholds: Thresholds, probe: Probe, trace: RolloutTrace,
                     openings: OpeningLog, start: _Progress) -> _Progress:
    """Step until the first success, ``max_steps`` or a policy fault, measuring after each step."""
    restore = test.task == "restore"
    object_body, target_pos = test.object_body_name or "", test.target_pos or []
    steps, distance, max_q = start.steps, start.distance, start.max_q
    min_dist, max_q_seen, min_rd = start.min_dist, start.max_q_seen, start.min_rd
    success, error = False, None
    # looked up once: the loop's own work is what bench/bench_scenemem.py weighs against its step
    get_action, env_step = policy.get_action, stepper(env)
    sample, watch, read = trace.sample, openings.update, probe.read
    approach, open_qpos = thresholds.approach_dist, thresholds.open_qpos
    try:
        while steps < max_steps:
            try:
                raw = get_action(seen)
            except Exception as exc:
                raise PolicyFault(_describe("policy.get_action", exc)) from exc
            action = check_action(raw, action_dim)
            try:
                env_step(action)  # return value ignored: robosuite gives 4 values, gymnasium 5
            except Exception as exc:  # e.g. robosuite's "unstable simulation" after wild actions
                raise PolicyFault(_describe("env.step", exc)) from exc
            steps += 1
            distance, max_q = read()
            sample(steps, distance)
            watch(steps)
            # min()/max() of two: keep the first unless the new one is strictly better
            min_dist = distance if distance < min_dist else min_dist
            max_q_seen = max_q if max_q > max_q_seen else max_q_seen
            if restore:
                rd = restore_distance(env.sim, object_body, target_pos)
                min_rd = rd if min_rd is None else min(min_rd, rd)
                success = rd < thresholds.restore_dist
            else:
                success = distance < approach and max_q >= open_qpos  # Measure.success
            if success:
                break
    except PolicyFault as exc:
        error, success = str(exc), False
    return _Progress(steps, distance, max_q, min_dist, max_q_seen, min_rd, success, error)


def _outcome(policy: Any, test: TestSpec, probe: Probe, trace: RolloutTrace,
             openings: OpeningLog, end: _Progress) -> Outcome:
    """Score where the rollout ended: which condition failed, the strict metric, the policy's
    own report."""
    restore = test.task == "restore"
    success = end.success
    m = probe.judge(end.distance, end.max_q)  # the last step's
    failed = (None if success else "restore" if restore
              else failed_condition(m.approached, m.door_open))
    info, info_error = _policy_info(policy)
    strict = {} if restore else strict_outcome(openings.opened, test.fixture.name, bool(success),
                                               end.steps if success else None)
    return Outcome(
        memory=bool(success),
        steps=end.steps,
        min_distance=end.min_dist,
        max_abs_qpos=end.max_q_seen,
        failed=failed,
        error=end.error or info_error,
        restore_distance=end.min_rd,
        policy_info=info,
        trace=trace.to_dict(),
        **strict,
    )


def _policy_info(policy: Any) -> tuple[dict[str, Any] | None, str | None]:
    """The policy's optional ``rollout_info()``, if it is a JSON-safe dict; a broken report is
    recorded as an error, never raised, and never turns a success into a failure."""
    report = getattr(policy, "rollout_info", None)
    if not callable(report):
        return None, None
    try:
        info = report()
        json.dumps(info, allow_nan=False)
    except Exception as exc:
        return None, _describe("policy.rollout_info", exc)
    if info is None:  # nothing to report for this rollout
        return None, None
    if not isinstance(info, dict):
        return None, f"policy.rollout_info returned {type(info).__name__}, expected dict"
    return info, None
