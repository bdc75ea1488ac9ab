"""The built-in home world: generation, fixtures, physics of doors and grasping, loading paths."""

from __future__ import annotations

import json
import math

import mujoco
import numpy as np
import pytest

from recallbench.errors import InputError
from recallbench.world.asset_store import model_from_xml
from recallbench.world.builder import build_world
from recallbench.world.env import HomeEnv, make_env
from recallbench.world.io import load_world, read_world, save_world
from recallbench.world.objects import CATEGORIES

SCENEMEM_TYPES = {
    "microwave",
    "cabinet",
    "toaster_oven",
    "fridge",
    "freezer",
    "oven",
    "dishwasher",
    "sink",
}


@pytest.fixture(scope="module")
def kitchen() -> HomeEnv:
    return HomeEnv(seed=0, kind="kitchen")


def _drive_eef_to(env: HomeEnv, target, steps: int = 60) -> float:
    a = np.zeros(12)
    for _ in range(steps):
        a[:] = 0
        a[0:3] = env.eef_action_toward(target)
        env.step(a)
    return float(np.linalg.norm(env.eef_pos() - np.asarray(target)))


def test_same_seed_same_xml_and_style_only_recolours():
    a, b = build_world(7, 1), build_world(7, 1)
    assert a.xml == b.xml
    assert json.dumps(a.meta) == json.dumps(b.meta)
    c = build_world(8, 1)
    assert c.xml != a.xml
    d = build_world(7, 3)
    assert [r["bounds"] for r in d.meta["rooms"]] == [r["bounds"] for r in a.meta["rooms"]]
    assert d.xml != a.xml  # colours differ


def test_metadata_names_resolve_in_the_model():
    built = build_world(3, 0, "home")
    model = model_from_xml(built.xml)
    meta = built.meta
    assert "kitchen" in {r["type"] for r in meta["rooms"]} and len(meta["rooms"]) >= 4
    assert {f["type"] for f in meta["fixtures"]} >= SCENEMEM_TYPES | {"drawer"}
    doors = {f["name"]: len(f["doors"]) for f in meta["fixtures"]}
    assert doors["cab_1"] == 1 and doors["cab_2"] == 2
    for r in meta["rooms"]:
        assert model.geom(r["floor_geom"]).name.startswith("floor_")
    for f in meta["fixtures"]:
        assert f["body_name"] == f"{f['name']}_main"
        model.body(f["body_name"])
        model.site(f["interior_site"])
        for j in f["joint_names"]:
            assert j.startswith(f["name"] + "_")
            jid = model.joint(j).id
            lo, hi = model.jnt_range[jid]
            assert hi - lo >= 0.39  # radians for hinges, metres for the drawer slide
        for door in f["doors"]:
            model.body(door["handle_body"])
            model.geom(door["handle_geom"])
            model.equality(f"grasp_{door['handle_body']}")
    oven = next(f for f in meta["fixtures"] if f["name"] == "oven")
    assert model.jnt_range[model.joint("oven_door_joint").id][1] == pytest.approx(1.15)
    for r in meta["receptacles"]:
        model.body(r["body_name"])
        model.site(r["top_site"])
    keys = {"color", "material", "shape", "pattern", "function"}
    for o in meta["objects"]:
        assert set(o["attributes"]) == keys
        assert o["category"] in CATEGORIES
        assert model.joint(o["joint_name"]).type == mujoco.mjtJoint.mjJNT_FREE
    assert len(CATEGORIES) >= 20
    assert oven["approach_pose"] and len(meta["objects"]) >= 10


def test_head_camera_matches_findingdory():
    model = model_from_xml(build_world(0, 0, "kitchen").xml)
    cam = model.camera("robot0_head")
    hfov = 2 * math.degrees(math.atan(math.tan(math.radians(cam.fovy[0]) / 2) * 0.75))
    assert hfov == pytest.approx(43.0, abs=0.01)
    data = mujoco.MjData(model)
    mujoco.mj_resetDataKeyframe(model, data, 0)
    mujoco.mj_forward(model, data)
    assert data.cam_xpos[cam.id][2] == pytest.approx(1.31, abs=1e-6)
    view = -data.cam_xmat[cam.id].reshape(3, 3)[:, 2]  # cameras look along -z
    assert math.degrees(math.asin(-view[2])) == pytest.approx(30.0, abs=1e-3)


def test_door_opens_when_the_gripper_pulls_its_handle(kitchen):
    env = kitchen
    env.reset()
    door = env.fixture("microwave")["doors"][0]
    joint = door["joint"]
    env.teleport(env.fixture("microwave")["approach_pose"])
    handle = lambda: env.sim.data.get_body_xpos(door["handle_body"])  # noqa: E731
    assert _drive_eef_to(env, handle()) < 0.02
    jid = env.model.joint(joint).id
    anchor, axis = env.data.xanchor[jid].copy(), env.data.xaxis[jid].copy()
    arm = handle() - anchor

    def pull(steps: int) -> None:
        for k in range(steps):
            th = min(1.3, (k + 1) * 0.03)
            rot = (
                arm * math.cos(th)
                + np.cross(axis, arm) * math.sin(th)
                + axis * (axis @ arm) * (1 - math.cos(th))
            )
            a = np.zeros(12)
            a[0:3] = env.eef_action_toward(anchor + rot)
            env.step(a)

    # without a grasp the same motion leaves the door shut
    pull(20)
    assert env.sim.data.get_joint_qpos(joint) < 0.05
    env.reset()
    env.teleport(env.fixture("microwave")["approach_pose"])
    _drive_eef_to(env, handle())
    a = np.zeros(12)
    a[6] = 1.0  # close the gripper: magic grasp of the nearest handle
    env.step(a)
    assert env.model.body(env.held_body()).name == door["handle_body"]
    pull(60)
    opened = env.sim.data.get_joint_qpos(joint)
    assert opened >= 0.5  # SceneMem's door_open threshold, reached by physics
    a[:] = 0
    a[6] = -1.0
    env.step(a)
    assert env.held_body() is None
    for _ in range(20):
        env.step(np.zeros(12))
    assert env.sim.data.get_joint_qpos(joint) == pytest.approx(opened, abs=0.05)


def _counter_object(env: HomeEnv) -> tuple[dict, dict]:
    """An object that starts on a counter, and that counter (its receptacle)."""
    obj = next(
        o for o in env.world_meta["objects"] if o["initial_location"]["name"].startswith("counter")
    )
    rec = next(
        r for r in env.world_meta["receptacles"] if r["name"] == obj["initial_location"]["name"]
    )
    return obj, rec


def test_grasp_lifts_an_object_and_release_drops_it():
    env = HomeEnv(seed=0, kind="kitchen")
    obj, rec = _counter_object(env)
    env.teleport(rec["approach_pose"])
    start = env.sim.data.get_body_xpos(obj["body_name"])
    assert _drive_eef_to(env, start, 80) < 0.02
    assert env.grasp() == obj["body_name"]
    _drive_eef_to(env, start + np.array([0, 0, 0.2]), 30)
    lifted = env.sim.data.get_body_xpos(obj["body_name"])
    assert lifted[2] - start[2] == pytest.approx(0.2, abs=0.02)
    # carried along by a teleport
    pose = env.base_pose()
    env.teleport(pose + np.array([0.0, 0.0, 0.3]))
    moved = env.sim.data.get_body_xpos(obj["body_name"])
    assert np.linalg.norm(moved - env.eef_pos()) < 0.02
    env.release()
    for _ in range(30):
        env.step(np.zeros(12))
    dropped = env.sim.data.get_body_xpos(obj["body_name"])
    assert dropped[2] < moved[2] - 0.1
    assert env.grasp(reach=0.01) is None  # nothing within 1 cm any more


def _grasp_day(env: HomeEnv, plain: bool) -> list[bytes]:
    """A stretch of acting that touches everything the next step's reuse of the last position
    stage must notice: a grasp and a carried object, a teleport, a release, a state load and
    an outside write to qpos. Returns the state after each step. ``plain``: step with mj_step
    alone (the reuse off)."""
    if plain:
        env._stepper.can_skip = False
    obj, rec = _counter_object(env)
    env.teleport(rec["approach_pose"])
    start = env.sim.data.get_body_xpos(obj["body_name"])
    states: list[bytes] = []
    a = np.zeros(12)
    for i in range(120):
        a[:] = 0.0
        a[0:3] = env.eef_action_toward(start + (0, 0, 0.2 if i >= 60 else 0.0))
        a[7:10] = (0.3, 0.0, 0.2) if 90 <= i < 100 else (0.0, 0.0, 0.0)
        if i == 50:
            a[6] = 1.0  # grasp through the action
        if i == 105:
            a[6] = -1.0
        if i == 70:
            env.teleport(env.base_pose() + np.array([0.0, 0.0, 0.2]))
        if i == 80:
            env.sim.set_state_from_flattened(env.sim.full_state())
        if i == 110:
            env.data.qpos[env.model.joint("robot0_torso_lift_joint").qposadr[0]] += 0.01
        obs, *_ = env.step(a)
        states.append(env.sim.full_state().tobytes() + obs["robot0_eef_pos"].tobytes()
                      + env.data.xpos.tobytes() + env.data.cam_xpos.tobytes())
    assert env.held_body() is None and any(s != states[0] for s in states)
    return states


def test_step_reusing_the_position_stage_gives_mj_steps_bits():
    """env.step starts each step from the position stage its last step computed for the
    observations (instead of computing it again): the states, poses and observations equal a
    plain mj_step's bit for bit, through grasps, teleports, state loads and outside writes."""
    fast = _grasp_day(HomeEnv(seed=0, kind="kitchen"), plain=False)
    plain = _grasp_day(HomeEnv(seed=0, kind="kitchen"), plain=True)
    assert [i for i, (f, p) in enumerate(zip(fast, plain, strict=True)) if f != p] == []


def test_proprio_gathered_in_one_read_equals_the_data_it_reads(kitchen):
    """The robot state is one gather over MjData's buffer: every key equals a direct read of
    the arrays it comes from (quaternions as x, y, z, w), the concatenating fallback gives
    the same bits, and last_action is the clipped action of the last step."""
    from recallbench.world.observations import RobotState

    env = kitchen
    env.reset()
    action = np.zeros(12)
    action[[0, 7, 9, 10]] = (2.0, 0.5, -0.3, 1.0)
    env.step(action)
    assert env.last_action.tolist() == [1.0, 0, 0, 0, 0, 0, 0, 0.5, 0, -0.3, 1.0, 0]
    d = env.data
    args = (d, env._base_body, env._eef_site, env._eef_body, env._base_q, env._arm_q)
    for held in (None, 3):
        obs = env._robot_state(held is not None, held)
        wxyz = [1, 2, 3, 0]
        rel = d.site_xpos[env._eef_site] - d.xpos[env._base_body]
        yaw = d.qpos[env._base_q[2]]
        c, s = math.cos(yaw), math.sin(yaw)
        direct = {
            "robot0_base_pos": d.xpos[env._base_body],
            "robot0_base_quat": d.xquat[env._base_body][wxyz],
            "robot0_base_pose": d.qpos[env._base_q],
            "robot0_eef_pos": d.site_xpos[env._eef_site],
            "robot0_eef_quat": d.xquat[env._eef_body][wxyz],
            "robot0_base_to_eef_pos": [c * rel[0] + s * rel[1], -s * rel[0] + c * rel[1], rel[2]],
            "robot0_arm_qpos": d.qpos[env._arm_q],
            "robot0_gripper_qpos": [0.0, 0.0] if held is not None else [0.04, -0.04],
            "robot0_grasped": [0.0 if held is None else 1.0],
        }
        assert list(obs) == list(direct)
        fallback = RobotState(*args, one_buffer=False)(held is not None, held)
        for k, v in direct.items():
            want = np.asarray(v, dtype=np.float64)
            assert obs[k].tobytes() == want.tobytes() == fallback[k].tobytes(), k


def test_discrete_moves_stop_at_walls_and_furniture(kitchen):
    from recallbench.world.navigation import DiscreteAction

    env = kitchen
    env.reset()
    grid = env.nav_grid
    pose = env.base_pose()
    assert grid.is_navigable(pose[:2])
    env.step_discrete(DiscreteAction.TURN_LEFT)
    assert env.base_pose()[2] == pytest.approx(pose[2] + math.radians(10), abs=1e-9)
    env.step_discrete(DiscreteAction.TURN_RIGHT)
    # the start pose faces the kitchen run: walk into it
    poses = []
    for _ in range(20):
        env.step_discrete(DiscreteAction.MOVE_FORWARD)
        poses.append(env.base_pose())
        assert grid.is_navigable(poses[-1][:2])
    steps = np.linalg.norm(np.diff([p[:2] for p in poses], axis=0), axis=1)
    assert steps.max() <= 0.25 + 1e-9
    assert np.allclose(poses[-1], poses[-2])  # stuck against the counters, not through them
    run = env.world_meta["kitchen_run"]
    wall_dist = abs(poses[-1][1] - run["origin"][1])  # kitchen-only worlds face the south wall
    assert wall_dist >= 0.62 + 0.28 - 0.05  # counters are 0.62 deep, robot radius 0.28
    assert env.data.qpos[env._base_q][2] == pytest.approx(pose[2])


def test_segmentation_equals_the_renderers_own_segmentation_mode(kitchen):
    """Renders.segmentation decodes the id colours itself; it must agree pixel for pixel with
    mujoco.Renderer's segmentation mode mapped to bodies."""
    env = kitchen
    env.reset()
    env.teleport(env.fixture("oven")["approach_pose"])
    seg = env.render_camera("robot0_head", 120, 160, mode="segmentation")
    r = env.renders.renderer(120, 160)
    r.enable_segmentation_rendering()
    try:
        r.update_scene(env.data, camera="robot0_head", scene_option=env.renders.scene_option)
        ref = r.render()
    finally:
        r.disable_segmentation_rendering()
    is_geom = (ref[..., 1] == int(mujoco.mjtObj.mjOBJ_GEOM)) & (ref[..., 0] >= 0)
    expected = np.where(is_geom, env.model.geom_bodyid[np.where(is_geom, ref[..., 0], 0)], -1)
    assert len(np.unique(expected)) > 3  # several bodies in view, so the check means something
    np.testing.assert_array_equal(seg, expected)
    # the id-colour render leaves the RGB flags as they were
    rgb = env.render_camera("robot0_head", 120, 160)
    assert rgb.std() > 10 and len(np.unique(rgb.reshape(-1, 3), axis=0)) > 50


def test_body_pixel_counts_match_the_segmentation_image(kitchen):
    """The counts coverage uses, taken from the id image directly, equal a bincount of the
    per-pixel body image; a render-only teleport shows the same picture as a full one."""
    env = kitchen
    env.reset()
    env.teleport(env.fixture("oven")["approach_pose"])
    seg = env.render_camera("robot0_head", 120, 160, mode="segmentation")
    counts = env.renders.body_pixel_counts(env.data, "robot0_head", 120, 160)
    assert counts.shape == (env.model.nbody + 1,)
    np.testing.assert_array_equal(counts, np.bincount(seg.ravel() + 1, minlength=len(counts)))
    assert (counts[1:] > 0).sum() > 3
    pose = np.asarray(env.fixture("fridge")["approach_pose"], dtype=float)
    env.teleport(pose, for_render=True)
    light = env.render_camera("robot0_head", 120, 160)
    env.teleport(pose)
    np.testing.assert_array_equal(light, env.render_camera("robot0_head", 120, 160))


@pytest.mark.slow
def test_frustum_culling_changes_no_pixel():
    """Renders leave out the geoms a camera cannot see: at poses all over a house, every
    camera's RGB, depth and segmentation equal the unculled renders exactly, while most of
    the house's geoms were culled (so the comparison covers real culling)."""
    from recallbench.world.frustum import hidden_geoms
    from recallbench.world.render import Renders

    env = HomeEnv(seed=3, kind="home", n_objects=12)
    m, d = env.model, env.data
    culled, full = Renders(m), Renders(m, cull=False)
    rng = np.random.default_rng(0)
    cells = np.argwhere(env.nav_grid.navigable)
    fractions = []
    for ij in cells[rng.choice(len(cells), 12, replace=False)]:
        x, y = env.nav_grid.to_world(ij)
        env.teleport([x, y, rng.uniform(-np.pi, np.pi)], for_render=True)
        for cam, (w, h) in (("robot0_head", (60, 80)), ("robot0_agentview_left", (64, 64)),
                            ("robot0_eye_in_hand", (64, 64))):
            np.testing.assert_array_equal(culled.rgb(d, cam, w, h), full.rgb(d, cam, w, h))
            np.testing.assert_array_equal(
                culled.segmentation(d, cam, w, h), full.segmentation(d, cam, w, h)
            )
            np.testing.assert_array_equal(culled.depth(d, cam, w, h), full.depth(d, cam, w, h))
        fractions.append(hidden_geoms(m, d, m.camera("robot0_head").id, 60, 80).mean())
    assert np.median(fractions) > 0.5
    culled.close()
    full.close()
    env.close()


def test_segmentation_coverage_counts_the_fixture_in_view(kitchen):
    from recallbench.world.render import coverage, subtree_bodies

    env = kitchen
    env.reset()
    env.teleport(env.fixture("oven")["approach_pose"])
    seg = env.render_camera("robot0_head", 120, 160, mode="segmentation")
    assert seg.shape == (160, 120)
    oven = coverage(seg, subtree_bodies(env.model, "oven_main"))
    assert 0.1 < oven < 1.0
    # every pixel is one body or background: coverages of all bodies sum to the geom fraction
    total = coverage(seg, range(env.model.nbody))
    assert total == pytest.approx(float((seg >= 0).mean()))
    # a body hidden behind the oven's closed door is not covered
    inside = [o for o in env.world_meta["objects"] if o["initial_location"]["name"] == "fridge"]
    for o in inside:
        assert coverage(seg, [env.model.body(o["body_name"]).id]) == 0.0
    depth = env.render_camera("robot0_head", 120, 160, mode="depth")
    assert depth.shape == (160, 120) and np.all(depth > 0) and depth.max() < 10
    rgb = env.render_camera("robot0_head", 120, 160)
    assert rgb.shape == (160, 120, 3) and rgb.dtype == np.uint8 and rgb.std() > 10


def test_save_rebuild_gives_the_same_trajectory(tmp_path):
    env = HomeEnv(seed=1, kind="kitchen")
    rng = np.random.default_rng(0)
    obj = env.world_meta["objects"][0]
    for _ in range(5):
        env.step(rng.uniform(-1, 1, 12))
    # hold something while saving, so the grasp weld must survive the round trip
    env.data.qpos[env.model.jnt_qposadr[env.model.joint(obj["joint_name"]).id] :][:3] = (
        env.eef_pos()
    )
    mujoco.mj_forward(env.model, env.data)
    assert env.grasp() == obj["body_name"]
    save_world(env, tmp_path / "w")
    assert {p.name for p in (tmp_path / "w").iterdir()} == {"model.xml", "world.json", "state.npy"}
    env2 = load_world(tmp_path / "w")
    assert env2.held_body() == env.held_body()
    assert env2.world_meta == env.world_meta  # survives the JSON round trip unchanged
    assert env2.xml == env.xml
    actions = rng.uniform(-1, 1, (40, 12))
    actions[:, 6] = 0.0
    for a in actions:
        env.step(a)
        env2.step(a)
    assert np.array_equal(env.data.qpos, env2.data.qpos)
    assert np.array_equal(env.data.qvel, env2.data.qvel)


def test_load_world_names_the_bad_file_and_field(tmp_path):
    env = HomeEnv(seed=2, kind="kitchen", n_objects=3)
    save_world(env, tmp_path)
    meta = json.loads((tmp_path / "world.json").read_text())
    del meta["fixtures"]
    (tmp_path / "world.json").write_text(json.dumps(meta))
    with pytest.raises(InputError) as err:
        read_world(tmp_path)
    assert err.value.field == "fixtures" and err.value.path.endswith("world.json")
    (tmp_path / "world.json").write_text("{not json")
    with pytest.raises(InputError, match="world.json"):
        read_world(tmp_path)
    (tmp_path / "world.json").write_text(json.dumps(env.world_meta))
    np.save(tmp_path / "state.npy", np.zeros(5))
    with pytest.raises(InputError, match="state.npy"):
        load_world(tmp_path)


def test_scenemem_five_step_loading_path():
    src = HomeEnv(seed=2, kind="kitchen")
    for _ in range(5):
        a = np.zeros(12)
        a[7] = 0.5
        src.step(a)
    xml, ep_meta = src.xml, src.get_ep_meta()
    state = src.sim.get_state().flatten()
    assert state.size == 1 + src.model.nq + src.model.nv
    env = make_env("RecallbenchKitchen", seed=5)
    assert env.xml != xml
    env.set_ep_meta(ep_meta)
    env.reset()
    env.reset_from_xml_string(env.edit_model_xml(xml))
    env.sim.reset()
    env.sim.set_state_from_flattened(state)
    env.sim.forward()
    assert env.world_meta == src.world_meta
    assert np.array_equal(env.data.qpos, src.data.qpos)
    # SceneMem's success function, written against robosuite's sim API
    fixture = env.fixture("microwave")
    bid = env.sim.model.body_name2id(fixture["body_name"])
    sid = env.sim.model.body_name2id("mobilebase0_support")
    dist = np.linalg.norm(env.sim.data.body_xpos[bid][:2] - env.sim.data.body_xpos[sid][:2])
    assert dist == pytest.approx(
        np.linalg.norm(
            src.data.xpos[src.model.body("microwave_main").id][:2]
            - src.data.xpos[src.model.body("mobilebase0_base").id][:2]
        )
    )
    assert env.sim.model.body_id2name(bid) == "microwave_main"
    assert all(abs(env.sim.data.get_joint_qpos(j)) < 0.5 for j in fixture["joint_names"])
    obs, *_ = env.step(np.zeros(12))
    assert set(obs) >= {"robot0_base_pos", "robot0_eef_pos", "robot0_gripper_qpos"}


def test_actions_move_the_base_in_its_own_frame_and_cameras_render_on_request():
    env = make_env(
        "RecallbenchKitchen",
        seed=0,
        cameras=["robot0_agentview_left"],
        camera_width=64,
        camera_height=48,
    )
    obs, _ = env.reset()
    assert obs["robot0_agentview_left_image"].shape == (48, 64, 3)
    assert "robot0_head_image" not in obs
    assert env.action_dim == 12 and env.action_space.shape == (12,)
    with pytest.raises(ValueError):
        env.step(np.zeros(7))
    with pytest.raises(ValueError):
        make_env("NotAWorld")
    env.teleport((3.0, 2.5, math.pi))  # facing -x, in the open middle of the kitchen
    a = np.zeros(12)
    a[7] = 1.0  # forward
    for _ in range(10):
        env.step(a)
    pose = env.base_pose()
    assert pose[0] < 3.0 - 0.2 and abs(pose[1] - 2.5) < 0.02
    a[:] = 0
    a[9] = 1.0  # yaw left
    for _ in range(5):
        env.step(a)
    assert env.base_pose()[2] > pose[2] + 0.2 or env.base_pose()[2] < -math.pi + 0.4


def test_make_env_accepts_robosuite_kwargs_as_robosuite_make_does():
    # the call the SceneMem harness makes for robosuite, pointed at the built-in world
    env = make_env(
        "RecallbenchKitchen",
        seed=0,
        has_renderer=False,
        has_offscreen_renderer=True,
        use_camera_obs=True,
        camera_names=["robot0_agentview_left", "robot0_eye_in_hand"],
        camera_widths=[40, 24],
        camera_heights=32,
        camera_depths=[False, True],
        ignore_done=True,
        horizon=5,
        control_freq=20,
        render_camera="robot0_agentview_left",
        reward_shaping=True,
    )
    obs, _ = env.reset()
    assert obs["robot0_agentview_left_image"].shape == (32, 40, 3)
    assert obs["robot0_eye_in_hand_image"].shape == (32, 24, 3)
    assert obs["robot0_eye_in_hand_depth"].shape == (32, 24)
    assert env.kind == "kitchen" and env.control_freq == 20
    for _ in range(6):  # ignore_done: robosuite's horizon does not end the rollout
        *_, truncated, _ = env.step(np.zeros(12))
    assert not truncated
    env.close()
    # use_camera_obs=False: no images (a blind policy evaluates without rendering)
    blind = make_env("RecallbenchKitchen", seed=0, use_camera_obs=False, horizon=3,
                     camera_names="robot0_agentview_left", camera_widths=16, camera_heights=16)
    obs, _ = blind.reset()
    assert not any(k.endswith("_image") for k in obs) and blind.cameras == []
    for _ in range(3):
        *_, truncated, _ = blind.step(np.zeros(12))
    assert truncated  # without ignore_done the horizon still counts
    blind.close()
    with pytest.raises(ValueError, match="camera_widths"):
        make_env("RecallbenchKitchen", camera_names=["robot0_eye_in_hand"], camera_widths=[8, 8])
    with pytest.raises(ValueError, match="camera_segmentations"):
        make_env("RecallbenchKitchen", camera_names=["robot0_eye_in_hand"],
                 camera_segmentations="class")
    with pytest.raises(TypeError, match="not_a_kwarg"):  # unknown names still fail
        make_env("RecallbenchKitchen", not_a_kwarg=1)


@pytest.mark.slow
def test_preview_cli_writes_pictures(tmp_path):
    from PIL import Image

    from recallbench.cli import main

    assert (
        main(["world", "preview", "--seed", "0", "--kind", "kitchen", "--out", str(tmp_path)]) == 0
    )
    names = {p.name for p in tmp_path.glob("*.png")}
    assert {
        "map.png",
        "overview.png",
        "kitchen.png",
        "robot0_head.png",
        "robot0_agentview_left.png",
        "robot0_agentview_right.png",
        "robot0_eye_in_hand.png",
    } <= names
    head = np.asarray(Image.open(tmp_path / "robot0_head.png"))
    assert head.shape == (640, 480, 3) and head.std() > 10


@pytest.mark.parametrize("seed", [0, 6])
def test_objects_rest_where_the_metadata_says(seed):
    env = HomeEnv(seed=seed, style=seed)
    m, d = env.model, env.data
    sites = {f["name"]: f["interior_site"] for f in env.world_meta["fixtures"]}
    sites.update({r["name"]: r["top_site"] for r in env.world_meta["receptacles"]})
    for _ in range(10):
        env.step(np.zeros(12))
    assert np.abs(d.qvel[6 * 0 :]).max() < 0.05  # settled: nothing slides or rolls
    for o in env.world_meta["objects"]:
        sid = m.site(sites[o["initial_location"]["name"]]).id
        rel = d.site_xmat[sid].reshape(3, 3).T @ (
            d.xpos[m.body(o["body_name"]).id] - d.site_xpos[sid]
        )
        half = m.site_size[sid]
        assert np.all(np.abs(rel[:2]) <= half[:2] + 0.03), o["name"]
        bottom = rel[2] + half[2] - o["half_height"]  # object bottom above the surface
        assert -0.02 < bottom < 0.03, o["name"]
        room = env.room_of(d.xpos[m.body(o["body_name"]).id])
        assert room == o["initial_location"]["room"]
    for f in env.world_meta["fixtures"][:3] + env.world_meta["receptacles"][:3]:
        pose = env.approach_pose(f["name"])
        assert env.nav_grid.is_navigable(pose[:2])


@pytest.mark.filterwarnings("ignore:.*infinity:UserWarning")
def test_gymnasium_env_checker_accepts_the_env():
    from gymnasium.utils.env_checker import check_env

    env = make_env("RecallbenchKitchen", seed=0, n_objects=3)
    check_env(env, skip_render_check=True)


def test_same_seed_same_world_across_processes():
    import hashlib
    import subprocess
    import sys

    code = (
        "import hashlib; from recallbench.world.builder import build_world; "
        "print(hashlib.sha256(build_world(4, 2, 'kitchen').xml.encode()).hexdigest())"
    )
    runs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            env={"PYTHONHASHSEED": str(h), "PATH": ""},
        ).stdout.strip()
        for h in (1, 2)
    }
    assert runs == {hashlib.sha256(build_world(4, 2, "kitchen").xml.encode()).hexdigest()}


def test_reset_rebuilds_the_world_named_by_ep_meta():
    src = HomeEnv(seed=3, kind="kitchen", n_objects=4)
    env = HomeEnv(seed=9, kind="kitchen", n_objects=2)
    env.set_ep_meta(src.get_ep_meta())
    env.reset()
    assert env.xml == src.xml and env.world_meta == src.world_meta


@pytest.mark.parametrize(
    ("fixture", "door", "lateral", "dist"),
    [
        ("fridge", 0, 0.3, 0.75),
        ("freezer", 0, 0.3, 0.75),
        ("cab_2", 1, -0.25, 0.95),
        ("dishwasher", 0, 0.0, 0.95),
        ("sink", 0, 0.0, 0.9),
        ("drawer_1", 0, 0.0, 0.8),
    ],
)
def test_every_door_kind_opens_by_physics(kitchen, fixture, door, lateral, dist):
    """Stand in front of the handle (beside the swing for side hinges), grasp, pull along the
    joint's arc (or straight out for a drawer) and check SceneMem-style opening."""
    env = kitchen
    env.reset()
    m, d = env.model, env.data
    info = env.fixture(fixture)["doors"][door]
    hid = m.body(info["handle_body"]).id
    yaw = env.fixture(fixture)["yaw"]
    c, s = math.cos(yaw), math.sin(yaw)
    hp = d.xpos[hid].copy()
    env.teleport(
        (hp[0] + c * lateral - s * dist, hp[1] + s * lateral + c * dist, yaw - math.pi / 2)
    )
    assert _drive_eef_to(env, d.xpos[hid].copy()) < 0.02
    assert env.grasp() == info["handle_body"]
    jid = m.joint(info["joint"]).id
    anchor, axis = d.xanchor[jid].copy(), d.xaxis[jid].copy()
    p0 = d.xpos[hid] - anchor
    a = np.zeros(12)
    for k in range(60):
        if info["kind"] == "slide":
            goal = anchor + p0 + axis * min(0.38, (k + 1) * 0.02)
        else:
            th = min(0.8, (k + 1) * 0.02)
            goal = anchor + (
                p0 * math.cos(th)
                + np.cross(axis, p0) * math.sin(th)
                + axis * (axis @ p0) * (1 - math.cos(th))
            )
        a[0:3] = env.eef_action_toward(goal)
        env.step(a)
    q = env.sim.data.get_joint_qpos(info["joint"])
    assert q >= (0.35 if info["kind"] == "slide" else 0.5)


def test_gl_falls_back_to_osmesa_when_egl_fails():
    import ctypes.util
    import os
    import subprocess
    import sys

    if not ctypes.util.find_library("OSMesa"):
        pytest.skip("libOSMesa not installed")
    code = """
import os
import recallbench.world.gl as g   # the package import already chose a backend: undo it
for k in ("MUJOCO_GL", "PYOPENGL_PLATFORM"):
    os.environ.pop(k, None)
g._CHOSEN = None
g._egl_works = lambda: False       # EGL unusable on this machine
print(g.select_backend())
import mujoco
m = mujoco.MjModel.from_xml_string(
    '<mujoco><worldbody><light pos="0 0 3"/><geom type="sphere" size=".5" rgba="1 0 0 1"/>'
    '<camera name="c" pos="0 -3 0" xyaxes="1 0 0 0 0 1"/></worldbody></mujoco>')
d = mujoco.MjData(m)
mujoco.mj_forward(m, d)
r = mujoco.Renderer(m, 32, 32)
r.update_scene(d, "c")
img = r.render()
print(int(img[16, 16, 0]), int(img[0, 0, 0]))
r.close()
"""
    env = {k: v for k, v in os.environ.items() if k not in ("MUJOCO_GL", "PYOPENGL_PLATFORM")}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=True,
    ).stdout.split()
    assert out[0] == "osmesa"
    assert int(out[1]) > 100 and int(out[2]) < int(out[1])  # the red sphere is drawn


def test_world_build_cli_round_trips_and_cli_import_is_cheap(tmp_path):
    import subprocess
    import sys

    from recallbench.cli import main

    assert main(["world", "build", "--seed", "2", "--kind", "kitchen", "--out", str(tmp_path)]) == 0
    env = load_world(tmp_path)
    assert env.xml == build_world(2, 0, "kitchen").xml
    assert main(["world", "build", "--seed", "-1", "--out", str(tmp_path)]) == 2
    code = "import sys, recallbench.cli.world; print('mujoco' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.strip()
    assert out == "False"  # `recallbench --help` must not load MuJoCo


def test_sim_data_keeps_each_state_array_view_and_passes_scalars_through():
    """sim.data looks fixed-size state arrays up once (a rollout reads them every step); the
    kept views follow every step and state load, and changing scalars are never kept."""
    env = make_env("RecallbenchKitchen", seed=0)
    try:
        env.reset()
        d = env.sim.data
        qpos, xpos = d.qpos, d.body_xpos
        d.time  # noqa: B018 (read: a scalar, never kept)
        assert {"qpos", "body_xpos"} <= set(vars(d)) and "time" not in vars(d)  # kept once
        assert d.qpos is qpos and d.body_xpos is xpos
        start = env.sim.get_state().flatten()
        for _ in range(5):
            env.step(np.r_[np.zeros(7), 1.0, 0.0, 0.0, np.zeros(2)])  # drive forward
        assert np.array_equal(d.qpos, env.data.qpos) and np.array_equal(xpos, env.data.xpos)
        assert d.time == env.data.time > start[0]
        env.sim.set_state_from_flattened(start)
        env.sim.forward()
        assert np.array_equal(d.qpos, start[1 : 1 + env.model.nq]) and d.time == start[0]
        assert np.array_equal(xpos, env.data.xpos)
    finally:
        env.close()
