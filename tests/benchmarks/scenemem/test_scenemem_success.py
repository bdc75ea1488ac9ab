"""The card's success rule and the rollout loop, on a real MuJoCo model."""

from __future__ import annotations

import numpy as np
import pytest

from recallbench.benchmarks.scenemem.backend import check_against_model, load_start
from recallbench.benchmarks.scenemem.rollout import PolicyFault, check_action, run_rollout
from recallbench.benchmarks.scenemem.spec import load_scenario
from recallbench.benchmarks.scenemem.success import Thresholds, failed_condition, measure
from support.scenemem_fixtures.build import mini_scenario, mini_test
from support.scenemem_fixtures.mini_env import make_env
from support.scenemem_fixtures.policies import Faulty, Idle, Oracle

CARD = Thresholds()


def set_qpos(env, joint, value):
    sim = env.sim
    sim.data.qpos[sim.model.jnt_qposadr[sim.model.joint_name2id(joint)]] = value
    sim.forward()


@pytest.fixture
def env():
    e = make_env("MiniKitchen")
    e.reset()
    return e


def test_defaults_are_the_cards():
    assert (CARD.approach_dist, CARD.open_qpos) == (1.2, 0.5)


def test_far_and_closed_then_near_then_open(env):
    # base at (0, 0), cabinet body at (3, 0)
    m = measure(env.sim, "cabinet_main", ["cabinet_door_hinge"], CARD)
    assert m.distance == pytest.approx(3.0)
    assert (m.approached, m.door_open, m.success) == (False, False, False)
    set_qpos(env, "cabinet_door_hinge", 0.6)
    m = measure(env.sim, "cabinet_main", ["cabinet_door_hinge"], CARD)
    assert (m.approached, m.door_open, m.success) == (False, True, False)
    set_qpos(env, "mobilebase0_x", 2.0)
    m = measure(env.sim, "cabinet_main", ["cabinet_door_hinge"], CARD)
    assert m.distance == pytest.approx(1.0)
    assert (m.approached, m.door_open, m.success) == (True, True, True)


def test_thresholds_are_strict_for_distance_inclusive_for_qpos(env):
    set_qpos(env, "mobilebase0_x", 1.8)  # exactly 1.2 m away: not "< 1.2"
    set_qpos(env, "cabinet_door_hinge", 0.5)  # exactly 0.5: ">= 0.5"
    m = measure(env.sim, "cabinet_main", ["cabinet_door_hinge"], CARD)
    assert m.distance == pytest.approx(1.2)
    assert not m.approached and m.door_open
    m = measure(env.sim, "cabinet_main", ["cabinet_door_hinge"], Thresholds(approach_dist=1.3))
    assert m.approached


def test_any_listed_joint_counts_and_slides_are_metres(env):
    set_qpos(env, "drawer_slide", 0.45)  # a drawer open 45 cm is not "open" under the card rule
    both = ["cabinet_door_hinge", "drawer_slide"]
    m = measure(env.sim, "drawer_main", both, CARD)
    assert m.max_abs_qpos == pytest.approx(0.45) and not m.door_open
    set_qpos(env, "drawer_slide", 0.55)
    assert measure(env.sim, "drawer_main", both, CARD).door_open
    # a joint not listed never counts
    assert not measure(env.sim, "cabinet_main", ["cabinet_door_hinge"], CARD).door_open


def test_xy_only_height_is_ignored(env):
    # the support body sits 0.3 m up, the cabinet body 0.5 m up: only xy enters the distance
    set_qpos(env, "mobilebase0_x", 3.0)
    assert measure(env.sim, "cabinet_main", ["cabinet_door_hinge"], CARD).distance < 1e-9


@pytest.mark.parametrize(
    ("approached", "door", "expected"),
    [(True, True, None), (True, False, "door"), (False, True, "approach"), (False, False, "both")],
)
def test_failed_condition(approached, door, expected):
    assert failed_condition(approached, door) == expected


def test_check_action():
    assert check_action([0, 1, 2], 3).dtype == float
    with pytest.raises(PolicyFault, match=r"shape \(4,\), expected \(3,\)"):
        check_action(np.zeros(4), 3)
    with pytest.raises(PolicyFault, match=r"shape \(1, 3\)"):
        check_action(np.zeros((1, 3)), 3)
    with pytest.raises(PolicyFault, match="NaN or inf"):
        check_action([0, np.inf, 0], 3)
    with pytest.raises(PolicyFault, match="non-numeric"):
        check_action("go", 3)


def test_check_action_passes_a_float_vector_through_and_still_catches_nan_and_inf():
    """The loop's shortcut (float64, right length, finite dot with itself) returns the policy's
    own array; NaN, inf and a finite vector whose dot overflows take the full check."""
    action = np.array([0.5, -1.0, 2.0])
    assert check_action(action, 3) is action
    huge = np.array([1e200, -1e200, 0.0])  # dot overflows to inf, every entry finite
    assert check_action(huge, 3) is huge
    for bad in ([0.0, np.nan, 0.0], [np.inf, 0.0, 0.0], [0.0, 0.0, -np.inf]):
        with pytest.raises(PolicyFault, match="NaN or inf"):
            check_action(np.array(bad), 3)
    with pytest.raises(PolicyFault, match="NaN or inf"):
        check_action(np.array([1e200, np.nan, 0.0]), 3)
    assert check_action(np.zeros(3, dtype=np.float32), 3).dtype == np.float64


@pytest.fixture
def loaded(tmp_path):
    root = mini_scenario(
        tmp_path / "combo_001_L1_S1_0001",
        [mini_test("bowl", "bowl"), mini_test("cup", "cup", "drawer"), mini_test("nan", "nan")],
        base_xy=(0.5, 0.0),
    )
    scenario = load_scenario(root)
    env = make_env("MiniKitchen")
    load_start(env, scenario)
    check_against_model(env, scenario)
    return env, scenario


def test_start_state_is_applied(loaded):
    env, _ = loaded
    assert env.sim.data.qpos[0] == pytest.approx(0.5)


def test_rollout_stops_at_first_success(loaded):
    env, scenario = loaded
    out = run_rollout(env, Oracle(), scenario, scenario.test("bowl"), 300, CARD)
    assert out.memory and out.failed is None and out.error is None
    assert 10 < out.steps < 300
    assert out.max_abs_qpos >= 0.5 and out.min_distance < 1.2
    assert measure(env.sim, "cabinet_main", ["cabinet_door_hinge"], CARD).success
    # the first step where both held: from the same start, one step fewer is not a success
    load_start(env, scenario)
    shorter = run_rollout(env, Oracle(), scenario, scenario.test("bowl"), out.steps - 1, CARD)
    assert not shorter.memory and shorter.steps == out.steps - 1


def test_idle_rollout_runs_to_max_steps_and_says_why_it_failed(loaded):
    env, scenario = loaded
    out = run_rollout(env, Idle(), scenario, scenario.test("cup"), 7, CARD)
    assert (out.memory, out.steps, out.failed, out.error) == (False, 7, "both", None)
    assert out.min_distance == pytest.approx(np.hypot(3.5, 2.0))


def test_policy_fault_fails_the_test_with_the_reason(loaded):
    env, scenario = loaded
    out = run_rollout(env, Faulty(), scenario, scenario.test("nan"), 50, CARD)
    assert not out.memory and out.steps == 0
    assert out.error == "get_action returned NaN or inf"


def test_the_rollouts_resolved_reads_equal_the_reads_by_name_on_the_real_world():
    """Probe (measure with ids resolved once) and the trace's resolved sample give exactly the
    values read by name, step after step of a moving robot and opening doors."""
    from recallbench.benchmarks.scenemem.success import Probe
    from recallbench.benchmarks.scenemem.trace import RolloutTrace
    from recallbench.world.env import make_env as make_world

    world = make_world("RecallbenchKitchen", seed=1)
    try:
        world.reset()
        fridge = world.world_meta["fixtures"][0]
        joints = [fridge["joint_names"][0], world.world_meta["fixtures"][1]["joint_names"][0]]
        probe = Probe(world.sim, fridge["body_name"], joints, CARD)
        fast = RolloutTrace(world.sim, fridge["name"], joints, {})
        by_name = RolloutTrace(world.sim, fridge["name"], joints, {})
        by_name._resolved = None  # the reads by name that sample() falls back to
        rng = np.random.default_rng(0)
        for step in range(40):
            world.step(rng.uniform(-1, 1, world.action_dim))
            world.sim.data.set_joint_qpos(joints[step % 2], float(rng.uniform(-0.8, 0.8)))
            m = probe()
            assert m == measure(world.sim, fridge["body_name"], joints, CARD)
            assert probe.read() == (m.distance, m.max_abs_qpos)
            fast.sample(step, m.distance)
            by_name.sample(step, m.distance)
        assert fast.rows == by_name.rows and len({r[1] for r in fast.rows}) > 1
    finally:
        world.close()


def test_the_rollouts_reads_follow_the_sim_to_new_data():
    """Probe, trace and opening watch keep views into the sim's arrays between steps; when the
    sim hands out another data object, they read that one, never the old buffers."""
    from recallbench.benchmarks.scenemem.openings import OpeningLog
    from recallbench.benchmarks.scenemem.success import Probe
    from recallbench.benchmarks.scenemem.trace import RolloutTrace
    from recallbench.world.env import make_env as make_world

    first = make_world("RecallbenchKitchen", seed=0)
    second = make_world("RecallbenchKitchen", seed=0)
    try:
        first.reset()
        second.reset()
        fridge = first.world_meta["fixtures"][0]
        joint = fridge["joint_names"][0]

        class Swapping:  # the model both worlds share, data that changes hands
            model, data = first.sim.model, first.sim.data

        sim = Swapping()
        probe = Probe(sim, fridge["body_name"], [joint], CARD)
        trace = RolloutTrace(sim, fridge["name"], [joint], {})
        log = OpeningLog(sim, {fridge["name"]: [joint]}, CARD.open_qpos)
        before = probe.read()
        second.step(np.ones(second.action_dim))  # the base moves in the second world only
        second.sim.data.set_joint_qpos(joint, 0.9)
        sim.data = second.sim.data
        after = probe.read()
        assert after != before
        assert after == (measure(second.sim, fridge["body_name"], [joint], CARD).distance, 0.9)
        trace.sample(1, after[0])
        assert trace.rows[0][5] == 0.9
        log.update(1)
        assert log.opened == [(fridge["name"], 1)]
    finally:
        first.close()
        second.close()
