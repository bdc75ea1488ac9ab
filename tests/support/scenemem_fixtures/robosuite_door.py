"""A real SceneMem-format scenario recorded from robosuite's stock ``Door`` env (PandaOmron)."""

from __future__ import annotations

from pathlib import Path

from support.scenemem_fixtures.build import write_scenario

ENV_KWARGS = {
    "env_name": "Door",
    "robots": "PandaOmron",
    "use_camera_obs": False,  # cheap on CPU; the policy gets proprio/object state only
    "control_freq": 20,
}
DOOR_START = 0.3  # the hinge starts ajar (not open): proves the start state is applied


def door_test(test_id: str, **extra) -> dict:
    return {
        "test_id": test_id,
        "object": "door_1",
        "category": "door",
        "fixture": {
            "name": "Door",
            "type": "door",
            "body_name": "Door_main",
            "joint_names": ["Door_hinge"],
        },
        **extra,
    }


def door_scenario(root: Path, tests: list[dict]) -> Path:
    """Build the env as a SceneMem author would and save what the card's folder holds."""
    import robosuite

    kw = dict(ENV_KWARGS)
    name = kw.pop("env_name")
    env = robosuite.make(
        name, **kw, has_renderer=False, has_offscreen_renderer=False, ignore_done=True
    )
    try:
        env.reset()
        sim = env.sim
        sim.data.qpos[sim.model.get_joint_qpos_addr("Door_hinge")] = DOOR_START
        sim.forward()
        state = sim.get_state().flatten()
        xml = sim.model.get_xml()
        ep_meta = env.get_ep_meta() if hasattr(env, "get_ep_meta") else {}
    finally:
        env.close()
    return write_scenario(
        root,
        tests,
        xml,
        state,
        {"env_name": name, "env_kwargs": ENV_KWARGS, "type": 1},
        ep_meta,
    )
