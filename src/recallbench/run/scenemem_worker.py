"""The task a worker process runs for one SceneMem test: build/load the env, roll out, score.

Per worker, the policy is constructed once (loading a model is the expensive part) and the env of
the current scenario is kept; every test still runs the card's full five-step load and reseeds
all generators from the test's own seed first, so its outcome never depends on what ran before
it in the same worker. A policy must reset its own per-rollout state in ``reset``, as the card
requires.
"""

from __future__ import annotations

import contextlib
import math
import traceback
from typing import Any

import numpy as np

from recallbench.agents.remote import ServedPolicy
from recallbench.agents.vla import make_policy
from recallbench.benchmarks.scenemem.backend import (
    check_against_model,
    load_start,
    make_scenario_env,
)
from recallbench.benchmarks.scenemem.defaults import DEFAULT_MAX_STEPS
from recallbench.benchmarks.scenemem.policy import load_policy_class
from recallbench.benchmarks.scenemem.rollout import run_rollout
from recallbench.benchmarks.scenemem.spec import Scenario, TestSpec, load_scenario
from recallbench.benchmarks.scenemem.success import Thresholds
from recallbench.errors import InputError, SuiteRefusal, shorten
from recallbench.seeding import seed_globals

_policies: dict[str, Any] = {}
_scenarios: dict[str, Scenario] = {}
_bad: dict[str, str] = {}
_env_failed: dict[str, str] = {}  # scenario root -> why its env could not be built or loaded
_env: dict[str, Any] = {}  # at most one: the current scenario's env


def _scenario_env(scenario: Scenario, cameras: bool = True) -> Any:
    key = str(scenario.root)
    if key not in _env:
        for old in _env.values():  # one env at a time bounds worker memory
            with contextlib.suppress(Exception):
                old.close()
        _env.clear()
        _env[key] = make_scenario_env(scenario, cameras)
    return _env[key]


def _policy(ref: str, paths: list[str], eval_dirs: list[str], run_seed: int,
            args: dict[str, Any] | None = None, trusted: bool = False) -> Any:
    """The worker's policy instance; a constructor failure is kept, not retried per test.
    ``trusted``: --trust-policy (a lerobot: folder loads unchecked)."""
    if ref not in _policies:
        # Seeded by the run, not by whichever test reaches this worker first.
        seed_globals(run_seed)
        try:
            # openpi://, ws:// (served) and lerobot: (a checkpoint folder), else a class
            policy = make_policy(ref, args or {}, trusted)
            _policies[ref] = policy or load_policy_class(ref, paths, eval_dirs)()
        except Exception as exc:
            _policies[ref] = PolicyConstructionError(
                f"policy constructor raised {type(exc).__name__}: {exc}"
            )
    if isinstance(_policies[ref], PolicyConstructionError):
        raise _policies[ref]
    return _policies[ref]


class PolicyConstructionError(Exception):
    pass


def _failed(error: str, max_steps: int) -> dict[str, Any]:
    """The outcome of a test that could not run: failed, with the reason."""
    return {
        "memory": False,
        "steps": 0,
        "min_distance": None,
        "max_abs_qpos": None,
        "failed": None,
        "error": error,
        "restore_distance": None,
        "max_steps": max_steps,
    }


def run_test(payload: dict[str, Any]) -> dict[str, Any]:
    """Payload: scenario_dir, test_id, policy, policy_paths, max_steps, thresholds, seeds,
    camera_obs.

    Returns the outcome fields (a test whose env cannot be built or loaded fails with the
    error), {"scenario_error": msg} when the scenario's spec itself is bad, or
    {"policy_server_lost": msg} when a served policy's server went away (not the policy's
    fault: nothing is recorded and --resume runs the test again).
    """
    root = payload["scenario_dir"]
    if root in _bad:
        return {"scenario_error": _bad[root]}
    policy, policy_error = _payload_policy(payload)
    try:
        scenario, test = _scenario_test(root, payload)
    except InputError as exc:  # the spec itself is bad: a scenario error
        _bad[root] = str(exc)
        return {"scenario_error": str(exc)}
    max_steps = payload.get("max_steps") or test.max_steps or DEFAULT_MAX_STEPS
    if root in _env_failed:
        return _failed(_env_failed[root], max_steps)
    try:
        env = _started_env(scenario, payload)
    except SuiteRefusal as exc:  # the suite asked for what data may not do: refused whole
        _bad[root] = str(exc)
        return {"scenario_error": str(exc)}
    except Exception as exc:
        return _env_failure(exc, root, scenario, max_steps)
    if policy_error is not None:
        return _failed(policy_error, max_steps)
    thresholds = Thresholds(**payload.get("thresholds", {}))
    outcome = run_rollout(env, policy, scenario, test, max_steps, thresholds,
                          observation_only=bool(payload.get("observation_only")))
    lost = policy.server_lost if isinstance(policy, ServedPolicy) else None
    if lost:
        return {"policy_server_lost": lost}
    return _finite({**outcome.to_dict(), "max_steps": max_steps})


def _payload_policy(payload: dict[str, Any]) -> tuple[Any, str | None]:
    """(the payload's policy, None), or (None, why its constructor failed)."""
    try:
        policy = _policy(
            payload["policy"],
            payload.get("policy_paths", []),
            payload.get("eval_dirs", []),
            payload["run_seed"],
            payload.get("policy_args") or {},
            bool(payload.get("trust_policy")),
        )
    except PolicyConstructionError as exc:
        return None, str(exc)
    return policy, None


def _scenario_test(root: str, payload: dict[str, Any]) -> tuple[Scenario, TestSpec]:
    """The scenario at ``root`` (loaded once per worker) and the payload's test in it;
    InputError when its spec is bad."""
    scenario = _scenarios.get(root) or load_scenario(
        root, payload.get("env_factory"), bool(payload.get("trust_suite"))
    )
    _scenarios[root] = scenario
    return scenario, scenario.test(payload["test_id"])


def _started_env(scenario: Scenario, payload: dict[str, Any]) -> Any:
    """The scenario's env, every generator reseeded from the test's seed, at the start state
    by the card's load (checked against the model)."""
    seed_globals(payload["seed"])
    env = _scenario_env(scenario, payload.get("camera_obs", True))
    if hasattr(env, "rng") and isinstance(env.rng, np.random.Generator):
        env.rng = np.random.default_rng(payload["seed"])  # robosuite's placement sampler
    load_start(env, scenario)
    check_against_model(env, scenario)
    return env


def _env_failure(exc: Exception, root: str, scenario: Scenario, max_steps: int
                 ) -> dict[str, Any]:
    """The spec parsed but the env could not be built or loaded: each of the scenario's
    tests is recorded as failed with this error, so the totals stay true. Called while
    ``exc`` is being handled (its trace goes to the run folder's workers.log)."""
    if not isinstance(exc, InputError):
        traceback.print_exc()  # the full trace goes to the run folder's workers.log
    if isinstance(exc, InputError):
        msg = f"env loading failed: {exc}"
    else:
        msg = f"{root}: env loading failed: {type(exc).__name__}: {exc} (see workers.log)"
    _env_failed[root] = shorten(msg, 2000)
    _env.pop(str(scenario.root), None)
    return _failed(_env_failed[root], max_steps)


def _finite(value: Any) -> Any:
    """NaN and inf (a diverged simulation's distances) as None: the result crosses to the
    runner as strict JSON, which has no NaN."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    return value
