"""A LeRobotDataset (v3) of generated days and of the privileged oracle recalling them.

Written with LeRobot's own writer (``LeRobotDataset.create``, ``add_frame``, ``save_episode``,
``finalize``) and joined with its ``aggregate_datasets``; read back with ``LeRobotDataset``. Frames
go straight to LeRobot's streaming encoder (``streaming_encoding``: no PNG per frame), made to
wait for the encoder instead of dropping frames, with image stats computed on LeRobot's sample of
each episode's frames as its ordinary path does (``lerobot_encoder``).

- SceneMem suites: each day is an episode with the three cameras, ``observation.state`` and the
  12-dim ``action`` at 20 fps, named as ``benchmarks.scenemem.lerobot_features`` declares (the
  naming ``--policy lerobot:`` reads, so a policy trained on it runs with no map), the subtask
  being done as the frame's task; frame i pairs the observation of recorded frame i with the
  action taken from it (recorded action i+1; the last frame's is zero). Then each probe is an
  episode of its own: the privileged oracle's rollout from the start state with the probe's
  instruction ("Show me where the X is placed."), recorded the same way: a demonstration of
  recall. Needs the ``videos/trajectory.npz`` the generator records (suites generated before it
  lack it).
- FindingDory suites: each day is an episode of the head camera (``observation.images.head``)
  with the base pose (x, y, yaw) as ``observation.state`` and the base displacement to the next
  frame, in the robot's frame (forward, left, yaw), as ``action``: FindingDory days record poses,
  not commands. The frame's task is the interaction under way, else "Explore the home."

``meta/recallbench_memory.json`` says, for every probe episode, which episode holds the day it
must remember (its memory videos) and the probe's test id.

Each day is one unit (``export_day``): a small LeRobotDataset under ``parts/<day>/``, written in a
temp folder of a unique name; ``finish`` aggregates the parts in day order into the folder itself
(``DATASET``: what it writes there and replaces on a rerun) and removes them, so the dataset does
not depend on which shard or worker exported which day. Suite files are read through the checked
readers (``io.read_json``, ``sources.frames``: the resolution cap).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np

from recallbench.benchmarks.scenemem import lerobot_features as naming
from recallbench.benchmarks.scenemem.defaults import DEFAULT_MAX_STEPS
from recallbench.errors import InputError, UsageError
from recallbench.export.lerobot_encoder import encoder_class
from recallbench.export.outdir import remove_written
from recallbench.export.sources import frames
from recallbench.io import read_json

PARTS = "parts"
DATASET = ("meta", "data", "videos")  # what finish writes under the export folder
MEMORY_FILE = "meta/recallbench_memory.json"
VCODEC = "h264"  # LeRobot's default AV1 encoder is far slower; H.264 decodes everywhere
FD_FPS = 10
BASE_NAMES = ["x", "y", "yaw"]
BASE_ACTION_NAMES = ["forward", "left", "yaw"]


def require() -> None:
    try:
        import lerobot  # noqa: F401
    except ImportError:
        raise UsageError("--format", "lerobot is not installed: pip install "
                         "'recallbench[lerobot]' (it needs numpy >= 2; docs/export.md)") from None


require()


def _image(h: int, w: int) -> dict[str, Any]:
    return {"dtype": "video", "shape": (h, w, 3), "names": ["height", "width", "channels"]}


def _vector(names: list[str]) -> dict[str, Any]:
    return {"dtype": "float32", "shape": (len(names),), "names": list(names)}


def _create(root: Path, repo_id: str, fps: int, features: dict[str, Any]) -> Any:
    from datasets import disable_progress_bars
    from lerobot.datasets.lerobot_dataset import LeRobotDataset

    disable_progress_bars()  # one line per day from the command, not a bar per episode
    if root.exists():
        shutil.rmtree(root)  # a part a killed worker left half written
    # streaming: each frame goes to LeRobot's PyAV encoder as it is added (a PNG per frame,
    # written then read back to encode, cost 20x a plain decode), with LeRobot's own settings
    ds = LeRobotDataset.create(repo_id, fps=fps, features=features, root=root,
                               use_videos=True, vcodec=VCODEC, streaming_encoding=True)
    # waits instead of dropping frames; image stats on LeRobot's sample, not every frame
    ds._streaming_encoder.__class__ = encoder_class()
    return ds


def _check_video(ds: Any, n: int, where: Path) -> None:
    """Every camera's video of the episode just saved holds its ``n`` frames."""
    latest = ds.meta.latest_episode
    for key in ds.meta.video_keys:
        span = latest[f"videos/{key}/to_timestamp"][0] - latest[f"videos/{key}/from_timestamp"][0]
        if round(span * ds.fps) != n:
            raise ValueError(f"{where}: {key}: {round(span * ds.fps)} frames encoded, {n} added")


# ------------------------------------------------------------------------------ scenemem
def _task_per_frame(subtasks: dict[str, Any], n: int) -> list[str]:
    tasks = ["Wait."] * n
    for t in subtasks.get("tasks", []):
        for i in range(max(0, t["start_frame"]), min(n, t["end_frame"])):
            tasks[i] = t["instruction"]
    return tasks


def scenemem_features(size: tuple[int, int], state_names: list[str]) -> dict[str, Any]:
    feats = {feature: _image(*size) for feature in naming.CAMERAS}
    return {**feats, naming.STATE: _vector(state_names),
            naming.ACTION: _vector(list(naming.ACTION_NAMES))}


def _trajectory(scenario: Path) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """The day's recorded actions, its ``observation.state`` per frame and the state's names
    (the declared parts picked from the recorded columns by name)."""
    traj_path = scenario / "videos" / "trajectory.npz"
    if not traj_path.is_file():
        raise FileNotFoundError(f"{traj_path}: the day's states and actions were not recorded "
                                "(a suite generated before recallbench recorded them)")
    traj = np.load(traj_path, allow_pickle=False)
    names = [str(s) for s in traj["state_names"]]
    try:
        columns = naming.state_columns(names)
    except ValueError as exc:
        raise ValueError(f"{traj_path}: {exc}") from None
    return traj["action"], traj["state"][:, columns], [names[c] for c in columns]


def _scenemem_day(ds: Any, scenario: Path, action: np.ndarray, state: np.ndarray) -> int:
    n = len(state)
    taken = np.concatenate([action[1:], np.zeros((1, len(naming.ACTION_NAMES)), np.float32)])
    tasks = _task_per_frame(read_json(scenario / "videos" / "subtasks.json"), n)
    streams = [frames(scenario / "videos" / f"{cam}.mp4") for cam in naming.CAMERAS.values()]
    ds._streaming_encoder.expect(n)  # keeps only the frames LeRobot's stats sample
    for i, images in enumerate(zip(*streams, strict=True)):
        frame = dict(zip(naming.CAMERAS, images, strict=True))
        ds.add_frame({**frame, naming.STATE: state[i], naming.ACTION: taken[i],
                      "task": tasks[i]})
    ds.save_episode(parallel_encoding=False)
    _check_video(ds, n, scenario)
    return n


class _Recording:
    """Wraps the privileged policy: each step records what the cameras see, the robot's state
    and the action the policy takes from there (LeRobot's frame convention)."""

    def __init__(self, policy: Any, ds: Any, size: tuple[int, int], instruction: str) -> None:
        self.policy, self.ds, self.size, self.instruction = policy, ds, size, instruction
        self.steps = 0

    def reset(self, instruction: str, video_paths: list[str]) -> None:
        self.policy.reset(instruction, video_paths)

    def get_action(self, env: Any) -> np.ndarray:
        action = np.asarray(self.policy.get_action(env), dtype=np.float32)
        h, w = self.size
        frame = {feature: env.renders.rgb(env.data, cam, w, h).copy()
                 for feature, cam in naming.CAMERAS.items()}
        self.ds.add_frame({**frame, naming.ACTION: action, "task": self.instruction,
                           naming.STATE: naming.state_vector(env.proprio())})
        self.steps += 1
        return action


def _scenemem_probes(ds: Any, scenario_dir: Path, size: tuple[int, int]) -> list[dict[str, Any]]:
    """Each probe as the oracle's rollout; probes the oracle fails are left out (and said so)."""
    from dataclasses import replace

    from recallbench.agents.hierarchical import HierarchicalPrivileged
    from recallbench.benchmarks.scenemem.backend import load_start, make_scenario_env
    from recallbench.benchmarks.scenemem.rollout import run_rollout
    from recallbench.benchmarks.scenemem.spec import load_scenario
    from recallbench.benchmarks.scenemem.success import Thresholds

    scenario = load_scenario(scenario_dir)
    args = json.loads(json.dumps(scenario.env_args))
    args.setdefault("env_kwargs", {})["use_camera_obs"] = False  # rendered by the recorder
    scenario = replace(scenario, env_args=args)
    env = make_scenario_env(scenario)
    probes = []
    try:
        for test in scenario.spec.tests:
            load_start(env, scenario)
            policy = _Recording(HierarchicalPrivileged(), ds, size, test.instruction or "")
            out = run_rollout(env, policy, scenario, test, test.max_steps or DEFAULT_MAX_STEPS,
                              Thresholds())
            if out.memory and policy.steps:
                ds.save_episode(parallel_encoding=False)
                _check_video(ds, policy.steps, scenario_dir)
                probes.append({"test_id": test.test_id, "steps": policy.steps})
            else:
                ds.clear_episode_buffer()
                probes.append({"test_id": test.test_id, "dropped": out.error or "oracle failed"})
    finally:
        env.close()
    return probes


def _scenemem_export(scenario: Path, part: Path, options: dict[str, Any]) -> dict[str, Any]:
    from recallbench.world.gl import select_backend

    select_backend()
    action, state, names = _trajectory(scenario)
    env_args = read_json(scenario / "env" / "env_args.json")["env_kwargs"]
    size = (int(env_args["camera_heights"]), int(env_args["camera_widths"]))
    ds = _create(part, options["repo_id"], 20, scenemem_features(size, names))
    frames = _scenemem_day(ds, scenario, action, state)
    probes = _scenemem_probes(ds, scenario, size) if options.get("probes", True) else []
    ds.finalize()
    return {"frames": frames, "probes": probes}


# --------------------------------------------------------------------------- findingdory
def base_actions(pose: np.ndarray) -> np.ndarray:
    """The displacement to the next pose in the robot's frame (forward, left, yaw); 0 last."""
    out = np.zeros((len(pose), 3), np.float32)
    d = pose[1:] - pose[:-1]
    c, s = np.cos(pose[:-1, 2]), np.sin(pose[:-1, 2])
    out[:-1, 0] = c * d[:, 0] + s * d[:, 1]
    out[:-1, 1] = -s * d[:, 0] + c * d[:, 1]
    out[:-1, 2] = (d[:, 2] + math.pi) % (2 * math.pi) - math.pi
    return out


def findingdory_tasks(episode: dict[str, Any], n: int) -> list[str]:
    tasks = ["Explore the home."] * n
    for it in episode.get("interactions", []):
        what = (f"Move the {it['object'].removeprefix('obj_').rsplit('_', 1)[0].replace('_', ' ')}"
                f" from the {it['pick_receptacle'].replace('_', ' ')} to the "
                f"{it['place_receptacle'].replace('_', ' ')}.")
        for i in range(max(0, it["pick_start"]), min(n, it["place_end"] + 1)):
            tasks[i] = what
    return tasks


def _findingdory_export(ep_dir: Path, part: Path, options: dict[str, Any]) -> dict[str, Any]:
    episode = read_json(ep_dir / "episode.json")
    pose = np.load(ep_dir / "frames.npz", allow_pickle=False)["pose"].astype(np.float64)
    n = len(pose)
    knobs = episode.get("knobs", {})
    fps = int(knobs.get("fps", FD_FPS))
    h, w = int(knobs["height"]), int(knobs["width"])
    feats = {"observation.images.head": _image(h, w), "observation.state": _vector(BASE_NAMES),
             "action": _vector(BASE_ACTION_NAMES)}
    ds = _create(part, options["repo_id"], fps, feats)
    actions, tasks = base_actions(pose), findingdory_tasks(episode, n)
    count = 0
    ds._streaming_encoder.expect(n)
    for i, img in enumerate(frames(ep_dir / "video.mp4")):
        ds.add_frame({"observation.images.head": img,
                      "observation.state": pose[i].astype(np.float32), "action": actions[i],
                      "task": tasks[i]})
        count += 1
    if count != n:
        raise ValueError(f"{ep_dir / 'video.mp4'}: {count} frames, {n} poses")
    ds.save_episode(parallel_encoding=False)
    _check_video(ds, n, ep_dir)
    ds.finalize()
    return {"frames": n, "probes": []}


# ------------------------------------------------------------------------------ the unit
Exporter = Callable[[Path, Path, dict[str, Any]], dict[str, Any]]


def _source(suite_dir: Path, day: str) -> tuple[Exporter, Path]:
    """How a day is exported, and its folder: an episode's or a scenario's."""
    if (suite_dir / "episodes" / day / "episode.json").is_file():
        return _findingdory_export, suite_dir / "episodes" / day
    return _scenemem_export, suite_dir / day


def export_day(suite_dir: Path, out_dir: Path, day: str, options: dict[str, Any]
               ) -> dict[str, Any]:
    part = out_dir / PARTS / day
    part.parent.mkdir(parents=True, exist_ok=True)
    # a unique temp folder: two writers of one day (a shard run twice) never share one
    holder = Path(tempfile.mkdtemp(dir=part.parent, prefix=f".{day}.", suffix=".partial"))
    tmp = holder / "part"
    try:
        info = _write_part_fixed_seed(suite_dir, day, tmp, options)
        if part.exists():
            shutil.rmtree(part)
        tmp.rename(part)  # complete: appears atomically
    finally:
        shutil.rmtree(holder, ignore_errors=True)
    return info


def _write_part_fixed_seed(suite_dir: Path, day: str, tmp: Path, options: dict[str, Any]
                           ) -> dict[str, Any]:
    if os.environ.get("PYTHONHASHSEED") == "0":
        write_part(suite_dir, day, tmp, options)
    else:  # LeRobot's task order follows the hash seed: written where it is fixed
        from recallbench.export.part_writer import write_in_fixed_seed

        try:
            write_in_fixed_seed(f"{__name__}:write_part", [str(suite_dir), day, str(tmp), options])
        except RuntimeError as exc:
            raise RuntimeError(f"day {day}: {exc}") from None
    return dict(json.loads((tmp / "recallbench_part.json").read_text()))


def write_part(suite_dir: str | Path, day: str, tmp: str | Path, options: dict[str, Any]
               ) -> None:
    run, source = _source(Path(suite_dir), day)
    info = run(source, Path(tmp), options)
    (Path(tmp) / "recallbench_part.json").write_text(json.dumps(info, sort_keys=True))


def check_suite(suite_dir: Path, days: list[str]) -> None:
    """SceneMem days need the states and actions the generator records since this version."""
    for day in days:
        run, source = _source(suite_dir, day)
        traj = source / "videos" / "trajectory.npz"
        if run is _scenemem_export and not traj.is_file():
            raise InputError(traj, None, "missing: this scenario was generated before "
                             "recallbench recorded per-frame states and actions (regenerate "
                             "the suite with the same seed to export it)")


def day_done(out_dir: Path, day: str) -> bool:
    return (out_dir / PARTS / day / "recallbench_part.json").is_file()


def finish(out_dir: Path, days: list[str], options: dict[str, Any]) -> dict[str, int]:
    """Aggregate the parts in day order into ``out_dir`` (LeRobot's own aggregation), write the
    memory map, and remove the parts. It replaces only ``DATASET`` under ``out_dir``, which the
    export job checked this export wrote (``outdir.check_replaceable``)."""
    from datasets import disable_progress_bars
    from lerobot.datasets.aggregate import aggregate_datasets

    disable_progress_bars()

    parts = [out_dir / PARTS / d for d in days]
    infos = [json.loads((p / "recallbench_part.json").read_text()) for p in parts]
    holder = Path(tempfile.mkdtemp(dir=out_dir, prefix=".aggregate."))  # unique
    joined = holder / "dataset"  # LeRobot aggregates into a folder of its own
    try:
        aggregate_datasets([options["repo_id"]] * len(parts), options["repo_id"], roots=parts,
                           aggr_root=joined)
        for sub in DATASET:
            remove_written(out_dir / sub)
            (joined / sub).rename(out_dir / sub)
    finally:
        shutil.rmtree(holder, ignore_errors=True)
    memory: dict[str, Any] = {}
    episode = 0
    for day, info in zip(days, infos, strict=True):
        day_episode = episode
        episode += 1
        for probe in info["probes"]:
            if "dropped" in probe:
                continue
            memory[str(episode)] = {"day": day, "memory_episode": day_episode,
                                    "test_id": probe["test_id"]}
            episode += 1
    (out_dir / MEMORY_FILE).write_text(json.dumps(
        {"note": "probe episode -> the day episode whose videos are its memory",
         "days": {d: i for d, i in _day_episodes(days, infos)}, "probes": memory}, indent=1))
    remove_written(out_dir / PARTS)
    # what the dataset holds (days and probe episodes), as LeRobot recorded it
    held = read_json(out_dir / "meta" / "info.json")
    return {"episodes": int(held["total_episodes"]), "days": len(days),
            "probes": len(memory), "frames": int(held["total_frames"])}


def _day_episodes(days: list[str], infos: list[dict[str, Any]]) -> Iterator[tuple[str, int]]:
    episode = 0
    for day, info in zip(days, infos, strict=True):
        yield day, episode
        episode += 1 + sum("dropped" not in p for p in info["probes"])
