"""One SceneMem rollout: reset the policy, step until the first success or max_steps.

Success is checked after every step and the rollout stops at the first success (the card leaves
this open; see docs/scenemem.md). A policy fault (raise, NaN/inf, wrong shape) ends only this
rollout, as a failure with the reason recorded.
"""

from __future__ import annotations

import json
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

    def score() -> tuple[Any, float | None, bool]:
        m = probe()
        if restore:
            d = restore_distance(env.sim, test.object_body_name or "", test.target_pos or [])
            return m, d, d < thresholds.restore_dist
        return m, None, m.success

    m, rd, _ = score()
    min_dist, max_q, min_rd = m.distance, m.max_abs_qpos, rd
    trace = RolloutTrace(env.sim, fixture.name, fixture.joint_names,
                         scenario_fixtures(env, scenario.spec.tests), room_bounds(env))
    trace.sample(0, m.distance)
    openings = OpeningLog(env.sim, watched_fixtures(env, scenario.spec.tests), thresholds.open_qpos)
    steps, success, error = 0, False, None
    action_dim = int(env.action_dim)
    seen = ObservationOnlyEnv(env) if observation_only else env
    try:
        try:
            policy.reset(test.instruction, scenario.video_paths)
        except Exception as exc:
            raise PolicyFault(_describe("policy.reset", exc)) from exc
        while steps < max_steps:
            try:
                raw = policy.get_action(seen)
            except Exception as exc:
                raise PolicyFault(_describe("policy.get_action", exc)) from exc
            action = check_action(raw, action_dim)
            try:
                env.step(action)  # return value ignored: robosuite gives 4 values, gymnasium 5
            except Exception as exc:  # e.g. robosuite's "unstable simulation" after wild actions
                raise PolicyFault(_describe("env.step", exc)) from exc
            steps += 1
            m, rd, success = score()
            trace.sample(steps, m.distance)
            openings.update(steps)
            min_dist, max_q = min(min_dist, m.distance), max(max_q, m.max_abs_qpos)
            if rd is not None:
                min_rd = rd if min_rd is None else min(min_rd, rd)
            if success:
                break
    except PolicyFault as exc:
        error, success = str(exc), False
    if success:
        failed = None
    else:
        failed = "restore" if restore else failed_condition(m.approached, m.door_open)
    info, info_error = _policy_info(policy)
    strict = {} if restore else strict_outcome(openings.opened, fixture.name, bool(success),
                                               steps if success else None)
    return Outcome(
        memory=bool(success),
        steps=steps,
        min_distance=min_dist,
        max_abs_qpos=max_q,
        failed=failed,
        error=error or info_error,
        restore_distance=min_rd,
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
    if not isinstance(info, dict):
        return None, f"policy.rollout_info returned {type(info).__name__}, expected dict"
    return info, None
