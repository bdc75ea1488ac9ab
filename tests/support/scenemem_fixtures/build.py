"""Writers of real SceneMem-format scenario folders for tests (real mp4s, real start states)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import av
import numpy as np

from recallbench.benchmarks.scenemem.spec import VIDEO_NAMES

HERE = Path(__file__).resolve().parent
MINI_FACTORY = f"{HERE / 'mini_env.py'}:make_env"
POLICIES = HERE / "policies.py"


def write_video(path: Path, frames: int = 6, size: int = 32, seed: int = 0) -> None:
    """A small real H.264 mp4 at 20 fps, as the card's videos are (only smaller)."""
    rng = np.random.default_rng(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    with av.open(str(path), "w") as container:
        stream = container.add_stream("libx264", rate=20)
        stream.width = stream.height = size
        stream.pix_fmt = "yuv420p"
        for _ in range(frames):
            img = rng.integers(0, 255, (size, size, 3), dtype=np.uint8)
            for packet in stream.encode(av.VideoFrame.from_ndarray(img, format="rgb24")):
                container.mux(packet)
        for packet in stream.encode():
            container.mux(packet)


def write_scenario(
    root: Path,
    tests: list[dict[str, Any]],
    xml: str,
    start_state: np.ndarray,
    env_args: dict[str, Any],
    ep_meta: dict[str, Any],
    spec_extra: dict[str, Any] | None = None,
) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    spec = {"scenario": root.name, "tests": tests, **(spec_extra or {})}
    (root / "eval_spec.json").write_text(json.dumps(spec, indent=2))
    for i, name in enumerate(VIDEO_NAMES):
        write_video(root / "videos" / name, seed=i)
    env = root / "env"
    env.mkdir(exist_ok=True)
    (env / "unified_model.xml").write_text(xml)
    (env / "env_args.json").write_text(json.dumps(env_args))
    (env / "ep_meta.json").write_text(json.dumps(ep_meta))
    np.save(env / "start_state.npy", start_state)
    return root


def mini_test(test_id: str, category: str, fixture: str = "cabinet", **extra: Any) -> dict:
    fixtures = {
        "cabinet": {
            "name": "cabinet",
            "type": "cabinet",
            "body_name": "cabinet_main",
            "joint_names": ["cabinet_door_hinge"],
        },
        "drawer": {
            "name": "drawer",
            "type": "drawer",
            "body_name": "drawer_main",
            "joint_names": ["drawer_slide"],
        },
    }
    return {
        "test_id": test_id,
        "object": f"{category}_1",
        "category": category,
        "fixture": fixtures[fixture],
        **extra,
    }


def mini_scenario(root: Path, tests: list[dict[str, Any]], base_xy=(0.0, 0.0)) -> Path:
    """A scenario in the mini kitchen, the start state taken from the compiled model."""
    from support.scenemem_fixtures.mini_env import FIXTURE_ACTUATOR, MINI_XML, make_env

    env = make_env("MiniKitchen")
    env.reset()
    qpos = env.sim.data.qpos
    qpos[0], qpos[1] = base_xy
    env.sim.forward()
    state = env.sim.get_state().flatten()
    answers = {t["category"]: t["fixture"]["body_name"] for t in tests}
    return write_scenario(
        root,
        tests,
        MINI_XML,
        state,
        # No env_factory: a suite may not name code; runs pass --env_factory MINI_FACTORY.
        {"env_name": "MiniKitchen", "env_kwargs": {"use_camera_obs": False}},
        {"layout_id": 1, "style_id": 1, "answers": answers, "actuators": FIXTURE_ACTUATOR},
    )


def policy(name: str) -> str:
    return f"{POLICIES}:{name}"
