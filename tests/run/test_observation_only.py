"""--observation-only: a card-interface policy that reads the simulator fails its test saying
why; without the flag it runs, and the manifest says the policy had simulator access."""

from __future__ import annotations

import json
import subprocess

import numpy as np
import pytest

from recallbench.benchmarks.scenemem.observation_env import ObservationOnlyEnv
from support.policy_server import ENV, RECALLBENCH
from support.scenemem_fixtures.build import MINI_FACTORY, mini_scenario, mini_test, policy
from support.scenemem_fixtures.mini_env import MINI_XML, make_env


def _run(tmp_path, name: str, *extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [RECALLBENCH, "scenemem", "--data_dir", str(tmp_path / "data"), "--policy",
         policy("SimReader"), "--out", str(tmp_path / f"{name}.json"), "--max_steps", "3",
         "--workers", "1", "--env_factory", MINI_FACTORY, *extra],
        env=ENV, capture_output=True, text=True, timeout=120)


@pytest.mark.slow
def test_a_policy_reading_env_sim_fails_under_observation_only(tmp_path):
    mini_scenario(tmp_path / "data" / "combo_000_L1_S1_0001", [mini_test("t0", "bowl")])
    refused = _run(tmp_path, "only", "--observation-only")
    assert refused.returncode == 1, refused.stderr
    (line,) = (tmp_path / "only_run" / "runlog.jsonl").read_text().splitlines()
    error = json.loads(line)["error"]
    assert "raised SimulatorAccessError: observation-only" in error
    assert "not env.sim" in error
    manifest = json.loads((tmp_path / "only_run" / "manifest.json").read_text())
    assert manifest["policy_simulator_access"] is False

    allowed = _run(tmp_path, "live")
    assert allowed.returncode == 0, allowed.stderr
    (line,) = (tmp_path / "live_run" / "runlog.jsonl").read_text().splitlines()
    assert json.loads(line)["error"] is None
    manifest = json.loads((tmp_path / "live_run" / "manifest.json").read_text())
    assert manifest["policy_simulator_access"] is True
    assert "policy had simulator access" in allowed.stderr
    assert "policy had simulator access" not in refused.stderr
    summary = json.loads((tmp_path / "live_run" / "summary.json").read_text())
    assert summary["policy_simulator_access"] is True
    # the report says it too, and only of the run that had the access
    for run, said in (("live_run", True), ("only_run", False)):
        shown = subprocess.run([RECALLBENCH, "report", str(tmp_path / run)], env=ENV,
                               capture_output=True, text=True, timeout=120)
        assert shown.returncode == 0, shown.stderr
        assert ("policy had simulator access" in shown.stdout + shown.stderr) is said


@pytest.mark.parametrize("name", ["sim", "data", "world_meta", "get_ep_meta", "step", "reset"])
def test_the_proxy_offers_observations_and_the_action_spec_only(name):
    env = make_env("Mini")
    env.reset_from_xml_string(MINI_XML)
    seen = ObservationOnlyEnv(env)
    assert seen.action_dim == env.action_dim == 4
    assert np.array_equal(seen._get_observations()["base_pos"],
                          env._get_observations()["base_pos"])
    low, high = seen.action_spec
    assert low.shape == high.shape == (4,)
    assert not hasattr(seen, name)
    with pytest.raises(AttributeError, match=f"not env.{name} "):
        getattr(seen, name)
    with pytest.raises(AttributeError, match="cannot set env.sim"):
        seen.sim = None  # type: ignore[attr-defined]
