"""Generate SceneMem scenarios: a scripted robot does 5-7 kitchen tasks back to back while three
cameras record; the end-of-video world and the memory probes are written in the card's format.

One scenario folder ``combo_<id>_L<layout>_S<style>_<seed>/``:

- ``videos/{robot0_agentview_left,robot0_agentview_right,robot0_eye_in_hand}.mp4`` (20 fps,
  H.264, short GOP) and ``videos/subtasks.json`` (each task's frame segment and instruction);
  ``videos/trajectory.npz``: per frame, the 12-dim action that led to it and the robot's state
  (``recorder.STATE_KEYS``; scenarios generated before it was recorded lack it);
- ``eval_spec.json``: the probes that passed verification (``find_target``: objects the robot
  put into a fixture with a door; ``find_distractor``: objects that sat in such a fixture all
  along);
- ``env/{unified_model.xml, env_args.json, ep_meta.json, start_state.npy}``: the end-of-video
  world, rebuilt by the card's five loading steps (env_args.json names the built-in env);
- ``generation.json``: seeds, attempts, frame count, probe counts (what ``suite.json`` sums).

The folder is written under ``.tmp_combo_<id>`` and renamed when complete, so a killed
generation leaves no half scenario and a rerun skips finished ones. Every probe is verified
before it is written: the privileged policy must reach memory_success through the env's normal
actions in the SceneMem runner's own rollout code, and a do-nothing start must not already
succeed; failing probes are dropped and counted.
"""

from __future__ import annotations

import json
import os
import shutil
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from recallbench.benchmarks.scenemem.defaults import DEFAULT_MAX_STEPS
from recallbench.generate.fingerprint import scenemem_fingerprint
from recallbench.generate.recorder import SCENEMEM_VIEWS, TRAJECTORY_FILE
from recallbench.generate.scenemem_day import AttemptFailed, Day
from recallbench.generate.scenemem_probes import candidate_probes, verify_probes
from recallbench.io import write_json_atomic

if TYPE_CHECKING:  # imported lazily where used (MuJoCo, the video encoder)
    from recallbench.generate.recorder import FrameRecorder
    from recallbench.world.builder import BuiltWorld
    from recallbench.world.env import HomeEnv

GENERATOR_VERSION = 2  # 2: PandaOmron pace, 1,500-step probes, the day ends somewhere random
FPS = 20
# SceneMem's eight destination fixture types (a sink's probe is passed by turning its handle)
DESTINATION_TYPES = ("microwave", "cabinet", "toaster_oven", "freezer", "fridge", "oven",
                     "dishwasher", "sink")
ALL_DESTINATION_TYPES = DESTINATION_TYPES
ROOM_COUNTS = (1, 4, 6)
# The score report and audit put first (suite.json): under the card's rule, checked every step
# with 1,500 steps, memoryless search opens most of a kitchen's ten fixtures at PandaOmron's pace
# and passes far more than 25% of probes; recallbench's strict metric (the first fixture opened
# must be the target; benchmarks.scenemem.openings) leaves search and random choice far below.
PRIMARY_METRIC = "first_open_success"


@dataclass(frozen=True)
class ScenememKnobs:
    """Difficulty knobs (recorded in suite.json and every generation.json).

    ``tasks``: tasks per scenario (None: 5..7 drawn per scenario); ``pick_place``: how many of
    them put an object into a fixture (the rest are auxiliary: open/close a door, move an object
    between counters); ``idle``: steps the robot stands still after each task (a longer video
    with the same content); ``revisits``: extra tasks that open and close a fixture the robot
    filled earlier (the object is seen again); ``distractors``: objects added to the world's
    default count; ``rooms``: 1 for a kitchen alone, 4 or 6 for a kitchen-centred home.
    """

    tasks: int | None = None
    pick_place: int = 3
    idle: int = 0
    revisits: int = 0
    distractors: int = 0
    rooms: int = 1
    size: int = 256
    max_steps: int = DEFAULT_MAX_STEPS  # the card's budget per probe
    destinations: tuple[str, ...] = DESTINATION_TYPES
    use_camera_obs: bool = True
    verify: bool = True
    attempts: int = 5

    def __post_init__(self) -> None:
        if self.tasks is not None and self.tasks < 1:
            raise ValueError(f"tasks must be >= 1, got {self.tasks}")
        if self.pick_place < 1:
            raise ValueError(f"pick_place must be >= 1, got {self.pick_place}")
        if self.tasks is not None and self.pick_place > self.tasks:
            raise ValueError(f"pick_place ({self.pick_place}) exceeds tasks ({self.tasks})")
        for name in ("idle", "revisits", "distractors"):
            if getattr(self, name) < 0:
                raise ValueError(f"{name} must be >= 0, got {getattr(self, name)}")
        if self.rooms not in ROOM_COUNTS:
            raise ValueError(f"rooms must be one of {ROOM_COUNTS}, got {self.rooms}")
        if self.size < 16 or self.size % 2:
            raise ValueError(f"size must be even and >= 16, got {self.size}")
        bad = [d for d in self.destinations if d not in ALL_DESTINATION_TYPES]
        if bad or not self.destinations:
            raise ValueError(f"destinations must be among {ALL_DESTINATION_TYPES}, got {bad}")
        if self.attempts < 1 or self.max_steps < 1:
            raise ValueError("attempts and max_steps must be >= 1")

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["destinations"] = list(self.destinations)
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ScenememKnobs:
        d = dict(d)
        if "destinations" in d:
            d["destinations"] = tuple(d["destinations"])
        return cls(**d)


# ---------------------------------------------------------------------------------- naming
def scenario_prefix(index: int) -> str:
    return f"combo_{index:04d}_"


def scenario_name(index: int, layout: int, style: int, seed: int) -> str:
    return f"{scenario_prefix(index)}L{layout}_S{style}_{seed}"


def find_complete(out_dir: Path, index: int) -> Path | None:
    """The finished folder of scenario ``index``, if any (only complete ones are renamed)."""
    found = sorted(p for p in Path(out_dir).glob(f"{scenario_prefix(index)}*") if p.is_dir())
    return found[0] if found else None


def _room_count(layout_seed: int) -> int:
    from recallbench.world.layout import plan_layout

    # the same first draw build_world makes for a home (rng seeded with [seed, kind index 0])
    return len(plan_layout(np.random.default_rng([layout_seed, 0])).rooms)


def draw_world(rng: np.random.Generator, rooms: int) -> tuple[int, int]:
    """(layout seed, style) for one attempt; for homes, a layout with ``rooms`` rooms."""
    style = int(rng.integers(0, 5))
    for _ in range(200):
        layout = int(rng.integers(0, 10000))
        if rooms == 1 or _room_count(layout) == rooms:
            return layout, style
    raise ValueError(f"no home with {rooms} rooms found in 200 draws")


# ---------------------------------------------------------------------------------- writing
def _write_env(env: Any, root: Path, layout: int, style: int, knobs: ScenememKnobs,
               index: int, seed: int) -> None:
    env_dir = root / "env"
    env_dir.mkdir(parents=True, exist_ok=True)
    (env_dir / "unified_model.xml").write_text(env.xml)
    env_name = "RecallbenchKitchen" if env.kind == "kitchen" else "RecallbenchHome"
    write_json_atomic(env_dir / "env_args.json", {
        "env_name": env_name,
        "env_kwargs": {"seed": layout, "style": style, "n_objects": len(env.world_meta["objects"]),
                       "camera_names": list(SCENEMEM_VIEWS), "camera_widths": knobs.size,
                       "camera_heights": knobs.size, "use_camera_obs": knobs.use_camera_obs,
                       "control_freq": FPS, "arm_step": env.arm_step},
    })
    ep_meta = env.get_ep_meta()
    ep_meta["generator"] = {"name": "recallbench", "version": GENERATOR_VERSION,
                            "suite_seed": seed, "index": index}
    write_json_atomic(env_dir / "ep_meta.json", ep_meta)
    np.save(env_dir / "start_state.npy", env.sim.get_state().flatten())


def _attempt(tmp: Path, index: int, seed: int, attempt: int, knobs: ScenememKnobs
             ) -> dict[str, Any]:
    """One try at scenario ``index`` in ``tmp``: draw the world, record the day, write the
    files, verify the probes; the generation summary, or AttemptFailed."""
    rng = np.random.default_rng(np.random.SeedSequence([seed, index, attempt]))
    layout, style, kind, built, env = _open_world(rng, knobs)
    item_seed = int(rng.integers(0, 2**31 - 1))
    try:
        day, tests, frames, rec = _record_day(env, tmp, knobs, item_seed)
        if not tests:
            raise AttemptFailed("no probe candidates")
        name = scenario_name(index, layout, style, item_seed)
        _write_videos_meta(tmp, rec, day, frames)
        _write_env(env, tmp, layout, style, knobs, index, seed)
    finally:
        env.close()
    spec = {"scenario": name, "tests": tests}
    write_json_atomic(tmp / "eval_spec.json", spec)
    dropped: list[dict[str, Any]] = []
    if knobs.verify:
        tests, dropped = verify_probes(tmp)
        if not tests:
            raise AttemptFailed(f"all {len(dropped)} probes failed verification")
        write_json_atomic(tmp / "eval_spec.json", {"scenario": name, "tests": tests})
    summary: dict[str, Any] = {
        "name": name, "index": index, "suite_seed": seed, "attempt": attempt,
        "layout": layout, "style": style, "kind": kind, "rooms": knobs.rooms,
        "objects": len(built.meta["objects"]), "seed": item_seed, "frames": frames,
        "tasks": len(day.tasks), "tasks_failed": sum(not t.success for t in day.tasks),
        "pick_place": sum(t.kind == "pick_place" and t.success for t in day.tasks),
        "probes": len(tests), "probes_by_task": _count(tests, "task"),
        "probes_by_fixture": _count([t["fixture"] for t in tests], "type"),
        "dropped_probes": len(dropped),
        "dropped": [{"test_id": d["test_id"], "reason": d["dropped"]} for d in dropped],
    }
    objects = [str(o["name"]) for o in built.meta["objects"]]
    tasks_json = json.loads((tmp / "videos" / "subtasks.json").read_text())["tasks"]
    summary["fingerprint"] = scenemem_fingerprint(summary, objects, tasks_json)  # leakage key
    return summary


def _open_world(rng: np.random.Generator, knobs: ScenememKnobs
                ) -> tuple[int, int, str, BuiltWorld, HomeEnv]:
    """Draw the attempt's world and open it: (layout, style, kind, built world, env).
    AttemptFailed (the env closed) if the layout has another number of rooms than asked."""
    from recallbench.world.builder import build_world
    from recallbench.world.env import PANDAOMRON_ARM_STEP, HomeEnv

    layout, style = draw_world(rng, knobs.rooms)
    kind = "kitchen" if knobs.rooms == 1 else "home"
    n_default = 10 if kind == "kitchen" else 16
    n_objects = n_default + knobs.distractors
    built = build_world(layout, style, kind, n_objects)
    env = HomeEnv(layout, style, kind, n_objects=n_objects, xml=built.xml, world_meta=built.meta,
                  arm_step=PANDAOMRON_ARM_STEP)
    if len(built.meta["rooms"]) != knobs.rooms:
        env.close()
        raise AttemptFailed(f"layout {layout} has {len(built.meta['rooms'])} rooms, not "
                            f"{knobs.rooms}")
    return layout, style, kind, built, env


def _record_day(env: HomeEnv, tmp: Path, knobs: ScenememKnobs, item_seed: int
                ) -> tuple[Day, list[dict[str, Any]], int, FrameRecorder]:
    """The oracle does the day while the three views are recorded into ``tmp/videos``:
    (day, probe candidates, frames recorded, the closed recorder)."""
    from recallbench.generate.recorder import FrameRecorder
    from recallbench.world.skills import Oracle

    size = (knobs.size, knobs.size)
    with FrameRecorder(tmp / "videos", SCENEMEM_VIEWS, size, FPS) as rec:
        oracle = Oracle(env, on_step=rec.capture, on_event=lambda r: rec.note(
            r.skill, success=r.success, start_frame=r.start_frame, detail=r.detail))
        day = Day(env, oracle, np.random.default_rng(item_seed), knobs)
        day.run()
        tests = candidate_probes(day, knobs.max_steps)
        frames = rec.frames
    return day, tests, frames, rec


def _write_videos_meta(tmp: Path, rec: FrameRecorder, day: Day, frames: int) -> None:
    """Beside the videos: subtasks.json (tasks and events), base_poses.npy, the trajectory."""
    write_json_atomic(tmp / "videos" / "subtasks.json", {
        "fps": FPS, "num_frames": frames, "frame_convention":
        "frame i shows the state after control step i+1; segments are [start, end)",
        "tasks": [t.to_dict(i) for i, t in enumerate(day.tasks)],
        "events": rec.events,  # every skill (navigate included) as it ended
    })
    np.save(tmp / "videos" / "base_poses.npy", np.round(rec.pose_array(), 6))
    rec.save_trajectory(tmp / "videos" / TRAJECTORY_FILE)  # for LeRobot exports


def _count(items: list[dict[str, Any]], key: str) -> dict[str, int]:
    out: dict[str, int] = {}
    for it in items:
        out[it[key]] = out.get(it[key], 0) + 1
    return dict(sorted(out.items()))


def generate_scenario(out_dir: str | Path, index: int, seed: int,
                      knobs: ScenememKnobs | dict[str, Any] | None = None) -> dict[str, Any]:
    """Write scenario ``index`` of the suite at ``out_dir``; returns its generation summary.

    Deterministic in (seed, index, knobs). A complete scenario already there is returned as is.
    """
    from recallbench.world.gl import select_backend

    select_backend()
    if not isinstance(knobs, ScenememKnobs):
        knobs = ScenememKnobs.from_dict(knobs or {})
    out_dir = Path(out_dir)
    done = find_complete(out_dir, index)
    if done is not None:
        return json.loads((done / "generation.json").read_text())
    tmp = out_dir / f".tmp_{scenario_prefix(index)}"
    failures = []
    for attempt in range(knobs.attempts):
        if tmp.exists():
            shutil.rmtree(tmp)
        tmp.mkdir(parents=True)
        try:
            summary = _attempt(tmp, index, seed, attempt, knobs)
        except AttemptFailed as exc:
            failures.append(f"attempt {attempt}: {exc}")
            continue
        summary["failed_attempts"] = failures
        write_json_atomic(tmp / "generation.json", summary)
        os.replace(tmp, out_dir / summary["name"])  # complete: appears atomically
        return summary
    shutil.rmtree(tmp, ignore_errors=True)
    raise RuntimeError(f"scenario {index}: no clean scenario in {knobs.attempts} attempts: "
                       + "; ".join(failures))


def suite_manifest(out_dir: Path, seed: int, n: int, knobs: ScenememKnobs,
                   items: list[dict[str, Any]]) -> dict[str, Any]:
    """suite.json: knobs, seed, versions and per-scenario summaries (no clock: deterministic)."""
    import platform
    import sys

    from recallbench.versions import package_versions

    probes = sum(i["probes"] for i in items)
    return {
        "benchmark": "scenemem", "generator": "recallbench", "generator_version":
        GENERATOR_VERSION, "seed": seed, "n": n, "knobs": knobs.to_dict(),
        "primary_metric": PRIMARY_METRIC,
        "python": sys.version.split()[0], "platform": platform.machine(),
        "packages": package_versions(), "mujoco_gl": os.environ.get("MUJOCO_GL"),
        "complete": len(items) == n,
        "totals": {"scenarios": len(items), "probes": probes,
                   "dropped_probes": sum(i["dropped_probes"] for i in items),
                   "frames": sum(i["frames"] for i in items),
                   "minutes_of_video": round(sum(i["frames"] for i in items) / FPS / 60, 2)},
        "items": sorted(items, key=lambda i: i["index"]),
    }

