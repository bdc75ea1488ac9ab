"""``recallbench export --dataset-format lerobot``: generated days and the oracle's recall rollouts
as a LeRobotDataset v3, loaded back with LeRobot's own ``LeRobotDataset`` and DataLoader, values
equal to what the generator recorded (images within codec tolerance). Runs in .venv-lerobot."""

from __future__ import annotations

import json
from pathlib import Path

import av
import numpy as np
import pytest

from recallbench.benchmarks.scenemem import lerobot_features as naming
from recallbench.cli import main
from support.lerobot_export import export_lerobot, load_dataset

pytestmark = [pytest.mark.lerobot, pytest.mark.slow]
pytest.importorskip("lerobot.datasets.lerobot_dataset")
torch = pytest.importorskip("torch")

SCENEMEM = ["generate", "scenemem", "--n", "1", "--seed", "5", "--tasks", "1", "--pick-place",
            "1", "--size", "48", "--no-camera-obs", "--workers", "1"]


def _frame(path: Path, index: int) -> np.ndarray:
    with av.open(str(path)) as c:
        for k, frame in enumerate(c.decode(c.streams.video[0])):
            if k == index:
                return frame.to_ndarray(format="rgb24").astype(float)
    raise IndexError(index)


def _image(item, key: str) -> np.ndarray:
    return item[key].numpy().transpose(1, 2, 0) * 255.0


def _reencoded(path: Path, fps: int, out: Path) -> list[np.ndarray]:
    """The source video's frames encoded once more as LeRobot encodes (its own codec options
    for the export's codec, yuv420p, a PIL image per frame), then decoded: what the export's
    video must hold frame for frame. The second encode's loss depends on the picture's detail
    (textured walls: 6.6 mean, 11 max on a SceneMem day), so the export is compared with the
    same loss, not with a bound on it."""
    from fractions import Fraction

    from lerobot.datasets.video_utils import _get_codec_options
    from PIL import Image

    from recallbench.export.lerobot_format import VCODEC

    with av.open(str(path)) as c:
        frames = [f.to_ndarray(format="rgb24") for f in c.decode(c.streams.video[0])]
    with av.open(str(out), "w") as c:
        stream = c.add_stream(VCODEC, fps, options=_get_codec_options(VCODEC))
        stream.pix_fmt = "yuv420p"
        stream.height, stream.width = frames[0].shape[:2]
        stream.time_base = Fraction(1, fps)
        for i, rgb in enumerate(frames):
            frame = av.VideoFrame.from_image(Image.fromarray(rgb))
            frame.pts, frame.time_base = i, Fraction(1, fps)
            c.mux(stream.encode(frame))
        c.mux(stream.encode())
    with av.open(str(out)) as c:
        return [f.to_ndarray(format="rgb24").astype(float) for f in c.decode(c.streams.video[0])]


@pytest.fixture(scope="module")
def scenemem_suite(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("lr_sm") / "suite"
    assert main([*SCENEMEM, "--out", str(out)]) == 0
    return out


def test_scenemem_days_and_recall_demonstrations_load_with_lerobot(scenemem_suite: Path,
                                                                   tmp_path: Path) -> None:
    out = tmp_path / "lr"
    assert export_lerobot(scenemem_suite, out) == 0
    ds = load_dataset(out)
    scenario = next(p for p in scenemem_suite.iterdir() if p.name.startswith("combo_"))
    traj = np.load(scenario / "videos" / "trajectory.npz")
    n = len(traj["state"])
    assert ds.fps == 20 and ds.meta.info["codebase_version"] == "v3.0"
    assert ds.meta.episodes[0]["length"] == n
    subtasks = json.loads((scenario / "videos" / "subtasks.json").read_text())["tasks"]
    i = (subtasks[0]["start_frame"] + subtasks[0]["end_frame"]) // 2
    item = ds[i]
    assert int(item["episode_index"]) == 0 and int(item["frame_index"]) == i
    np.testing.assert_array_equal(item["observation.state"].numpy(), traj["state"][i])
    np.testing.assert_array_equal(item["action"].numpy(), traj["action"][i + 1])
    assert item["task"] == subtasks[0]["instruction"]
    want = {key: _reencoded(scenario / "videos" / f"{cam}.mp4", ds.fps, tmp_path / f"{cam}.mp4")
            for key, cam in naming.CAMERAS.items()}
    for j in (i, n - 1):
        got = {key: _image(ds[j], key) for key in naming.CAMERAS}
        for key in naming.CAMERAS:  # its own frame, exactly; not another frame or camera's
            assert np.abs(got[key] - want[key][j]).max() <= 1.0, (key, j)
            assert np.abs(got[key] - want[key][(j + n // 2) % n]).mean() > 1.0
            for other in set(naming.CAMERAS) - {key}:
                assert np.abs(got[key] - want[other][j]).mean() > 1.0
    # every verified probe is an episode of its own, pointing at its day as memory
    spec = json.loads((scenario / "eval_spec.json").read_text())["tests"]
    memory = json.loads((out / "meta" / "recallbench_memory.json").read_text())
    assert ds.meta.total_episodes == 1 + len(memory["probes"]) and memory["probes"]
    first = ds.meta.episodes[1]
    assert memory["probes"]["1"] == {"day": scenario.name, "memory_episode": 0,
                                     "test_id": spec[0]["test_id"]}
    assert list(first["tasks"]) == [spec[0]["instruction"]]
    assert first["length"] == spec[0]["verified_steps"]  # the oracle's verified rollout
    # a trainer's view: one shuffled batch through torch's DataLoader
    batch = next(iter(torch.utils.data.DataLoader(ds, batch_size=8, shuffle=True)))
    assert batch["action"].shape == (8, 12) and batch["observation.state"].shape == (8, 13)
    assert batch["observation.images.agentview_right"].shape == (8, 3, 48, 48)
    assert "observation.state" in ds.meta.stats and "action" in ds.meta.stats
    # the summary counts what the dataset holds: the day's frames and the probes' (it used to
    # count the day's frames only)
    counts = json.loads((out / "export.json").read_text())["counts"]
    assert counts["frames"] == len(ds) > n and counts["episodes"] == ds.meta.total_episodes
    assert counts["probes"] == len(memory["probes"])
    # named as the loader reads them (benchmarks.scenemem.lerobot_features)
    assert ds.meta.features["observation.state"]["names"] == list(traj["state_names"])
    assert ds.meta.features["action"]["names"] == list(naming.ACTION_NAMES)


def test_findingdory_day_is_a_head_camera_episode_with_base_actions(
        findingdory_generated_suite: Path, tmp_path: Path) -> None:
    from recallbench.export.lerobot_format import base_actions

    out = tmp_path / "lr_fd"
    assert export_lerobot(findingdory_generated_suite, out) == 0
    ds = load_dataset(out)
    ep = findingdory_generated_suite / "episodes" / "ep_0"
    pose = np.load(ep / "frames.npz")["pose"]
    assert ds.meta.total_episodes == 1 and len(ds) == len(pose)
    i = len(pose) // 3
    item = ds[i]
    np.testing.assert_array_equal(item["observation.state"].numpy(), pose[i])
    np.testing.assert_allclose(item["action"].numpy(), base_actions(pose.astype(float))[i],
                               atol=1e-6)
    got = _image(item, "observation.images.head")
    assert np.abs(got - _frame(ep / "video.mp4", i)).mean() < 10.0
    # moving forward: the displacement to the next pose, in the robot's frame
    moving = np.flatnonzero(np.abs(base_actions(pose.astype(float))[:, 0]) > 1e-4)
    assert moving.size, "the day never drives"


def test_a_scenemem_suite_without_recorded_actions_is_refused_before_work(
        scenemem_suite: Path, tmp_path: Path, capsys) -> None:
    import shutil

    old = tmp_path / "old_suite"  # as generated before states and actions were recorded
    shutil.copytree(scenemem_suite, old)
    for traj in old.glob("combo_*/videos/trajectory.npz"):
        traj.unlink()
    assert export_lerobot(old, tmp_path / "lr") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "trajectory.npz" in err and "regenerate" in err
    assert not (tmp_path / "lr").exists()


def test_the_dataset_replaces_only_what_this_export_wrote(findingdory_generated_suite: Path,
                                                          tmp_path: Path, capsys) -> None:
    """Issue 35: the finish step moved its meta/, data/ and videos/ over whatever --out held,
    the suite itself included."""
    import shutil

    suite = tmp_path / "suite"
    shutil.copytree(findingdory_generated_suite, suite)
    before = sorted(p.relative_to(suite) for p in suite.rglob("*"))
    assert export_lerobot(suite, suite) == 2  # the suite itself: refused before any work
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--out" in err[0]
    assert sorted(p.relative_to(suite) for p in suite.rglob("*")) == before
    out = tmp_path / "lr"
    assert export_lerobot(suite, out, "--shard", "1/1") == 0  # the day's part, no dataset yet
    (out / "videos").mkdir()
    (out / "videos" / "mine.mp4").write_bytes(b"mine")  # put there between the runs
    capsys.readouterr()
    assert export_lerobot(suite, out) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "videos" in err[0] and "not written by this export" in err[0]
    assert (out / "videos" / "mine.mp4").read_bytes() == b"mine"
    shutil.rmtree(out / "videos")
    assert export_lerobot(suite, out) == 0
    assert json.loads((out / "export.json").read_text())["written"] == ["meta", "data", "videos"]
    assert load_dataset(out).meta.total_episodes == 1
    assert [p.name for p in out.iterdir() if p.name.startswith(".") and p.name != ".lock"] == []
