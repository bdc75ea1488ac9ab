"""The scripted oracle acts only through HomeEnv.step; its skills are checked here against the
simulator state directly (joint angles, object positions inside interior sites), not against
what the skills report about themselves."""

from __future__ import annotations

import math

import numpy as np
import pytest

from recallbench.generate.recorder import FrameRecorder
from recallbench.video.reader import count_frames
from recallbench.world.skills import Oracle


@pytest.fixture(scope="module")
def kitchen():
    from recallbench.world.env import make_env

    env = make_env("RecallbenchKitchen", seed=0)
    yield env
    env.close()


def _count_steps(env):
    calls = []
    real = env.step

    def step(action):
        calls.append(np.asarray(action, dtype=float).copy())
        return real(action)

    env.step = step
    return calls


def _joint(env, name: str) -> float:
    return float(env.data.qpos[env.model.joint(name).qposadr[0]])


def _inside(env, obj: str, site: str) -> bool:
    m, d = env.model, env.data
    sid = m.site(site).id
    p = d.xpos[m.body(obj).id]
    local = d.site_xmat[sid].reshape(3, 3).T @ (p - d.site_xpos[sid])
    return bool(np.all(np.abs(local) <= m.site_size[sid] + 0.03))


def test_navigate_reaches_a_pose_through_base_velocity_actions(kitchen):
    kitchen.reset()
    oracle = Oracle(kitchen)
    steps = _count_steps(kitchen)
    try:
        goal = np.array(kitchen.fixture("oven")["approach_pose"]) + [0.3, 0.2, 0.4]
        result = oracle.run(oracle.navigate_to(goal))
    finally:
        del kitchen.step
    pose = kitchen.base_pose()
    assert result.success
    assert np.hypot(*(pose[:2] - goal[:2])) < 0.06
    assert abs(math.remainder(pose[2] - goal[2], 2 * math.pi)) < 0.08
    # every action was a legal 12-dim command, and the base moved by velocity, not teleport
    assert len(steps) == result.end_frame - result.start_frame > 10
    assert all(a.shape == (12,) and np.all(np.abs(a) <= 1.0) for a in steps)
    assert any(np.abs(a[7:10]).max() > 0.5 for a in steps)


def test_open_pick_place_close_puts_the_object_inside(kitchen):
    kitchen.reset()
    oracle = Oracle(kitchen)
    mw = kitchen.fixture("microwave")
    joint = mw["doors"][0]["joint"]
    obj = "obj_mug_1"
    assert not _inside(kitchen, obj, mw["interior_site"])
    opened = oracle.run(oracle.open_door("microwave"))
    assert opened.success and _joint(kitchen, joint) > 1.0
    assert kitchen.held_body() is None
    picked = oracle.run(oracle.pick(obj))
    assert picked.success and kitchen.held_body() == kitchen.model.body(obj).id
    placed = oracle.run(oracle.place(obj, "microwave"))
    assert placed.success
    assert kitchen.held_body() is None
    closed = oracle.run(oracle.close_door("microwave"))
    assert closed.success and abs(_joint(kitchen, joint)) < 0.08
    for _ in range(20):  # it stays put once the robot has let go and shut the door
        kitchen.step(np.zeros(12))
    assert _inside(kitchen, obj, mw["interior_site"])
    # the skills tile the timeline: each starts where the previous one ended
    events = [e for e in oracle.events if e.skill in ("open_door", "pick", "place", "close_door")]
    assert [e.skill for e in events] == ["open_door", "pick", "place", "close_door"]
    assert all(a.end_frame == b.start_frame for a, b in zip(events, events[1:], strict=False))


def test_place_refuses_a_closed_fixture_and_pick_needs_free_hands(kitchen):
    kitchen.reset()
    oracle = Oracle(kitchen)
    assert oracle.run(oracle.pick("obj_mug_1")).success
    refused = oracle.run(oracle.place("obj_mug_1", "dishwasher"))
    assert not refused.success and "closed" in refused.detail
    busy = oracle.run(oracle.open_door("dishwasher"))
    assert not busy.success and busy.detail == "hands full"


def test_oracle_turns_the_sink_handle_through_actions_and_places_into_the_basin(kitchen):
    kitchen.reset()
    oracle = Oracle(kitchen)
    joint = kitchen.fixture("sink")["doors"][0]["joint"]
    assert abs(_joint(kitchen, joint)) < 0.05
    steps = _count_steps(kitchen)
    try:
        turned = oracle.run(oracle.turn_sink("sink", angle=1.0))
    finally:
        del kitchen.step
    # the lever turned by physics under 12-dim commands (no teleport, no joint writes)
    assert turned.success and _joint(kitchen, joint) > 0.5
    assert len(steps) == turned.end_frame - turned.start_frame
    assert all(a.shape == (12,) and np.all(np.abs(a) <= 1.0) for a in steps)
    assert kitchen.held_body() is None
    assert oracle.run(oracle.close_door("sink")).success and abs(_joint(kitchen, joint)) < 0.08
    # an open basin: no door to open first, the object goes in from above
    sink = kitchen.fixture("sink")
    obj = next(o["name"] for o in kitchen.world_meta["objects"]
               if oracle.where_is(o["name"]) not in {f["name"] for f in
                                                     kitchen.world_meta["fixtures"]}
               and oracle.where_is(o["name"]) is not None)
    assert oracle.run(oracle.pick(obj)).success
    assert oracle.run(oracle.place(obj, "sink")).success
    for _ in range(20):
        kitchen.step(np.zeros(12))
    assert _inside(kitchen, obj, sink["interior_site"])


def test_recorder_writes_one_frame_per_step_per_camera(tmp_path, kitchen):
    kitchen.reset()
    with FrameRecorder(tmp_path, size=(32, 32)) as rec:
        oracle = Oracle(kitchen, on_step=rec.capture)
        oracle.run(oracle.idle(7))
        rec.note("done")
    for cam in rec.cameras:
        assert count_frames(tmp_path / f"{cam}.mp4") == 7
    assert rec.pose_array().shape == (7, 3)
    assert rec.events == [{"frame": 6, "event": "done"}]
