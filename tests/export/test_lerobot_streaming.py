"""``--format lerobot`` hands frames to LeRobot's streaming encoder: no PNG per frame (the
round trip that made the export 20x a plain decode), and no frame lost when the encoder falls
behind (LeRobot's own streaming encoder drops a frame it cannot queue within 0.1 s: made for live
capture). Every frame of the episode's video is the day's frame, in order, at i / fps. Runs in
.venv-lerobot."""

from __future__ import annotations

import json
from pathlib import Path

import av
import numpy as np
import pytest

pytestmark = [pytest.mark.lerobot]
lerobot_dataset = pytest.importorskip("lerobot.datasets.lerobot_dataset")


def _decoded(path: Path) -> tuple[list[np.ndarray], list[float]]:
    with av.open(str(path)) as c:
        frames = list(c.decode(c.streams.video[0]))
    return [f.to_ndarray(format="rgb24") for f in frames], [float(f.time) for f in frames]


@pytest.mark.slow
def test_every_frame_reaches_the_video_without_a_png(findingdory_generated_suite: Path,
                                                      tmp_path: Path, monkeypatch) -> None:
    from recallbench.export.lerobot_format import write_part

    pngs: list[Path] = []
    real = lerobot_dataset.write_image

    def counted(image, fpath, *args, **kwargs):  # the real writer, counted
        pngs.append(Path(fpath))
        return real(image, fpath, *args, **kwargs)

    monkeypatch.setattr(lerobot_dataset, "write_image", counted)
    part = tmp_path / "part"
    write_part(findingdory_generated_suite, "ep_0", part, {"repo_id": "recallbench/t"})
    assert pngs == []  # the old path wrote one per frame
    ep = findingdory_generated_suite / "episodes" / "ep_0"
    source, _ = _decoded(ep / "video.mp4")
    info = json.loads((part / "meta" / "info.json").read_text())
    videos = list((part / "videos").rglob("*.mp4"))
    assert len(videos) == 1 and info["total_frames"] == len(source)
    got, times = _decoded(videos[0])
    fps = info["fps"]
    assert len(got) == len(source)
    np.testing.assert_allclose(times, np.arange(len(source)) / fps, atol=1e-6)
    err = [np.abs(a.astype(float) - b).mean() for a, b in zip(got, source, strict=True)]
    assert max(err) < 10.0  # one more lossy encode (LeRobot's crf 30), frame for frame
    # a frame matches its own source frame better than the one half a day away
    half = len(source) // 2
    assert np.abs(got[0].astype(float) - source[half]).mean() > err[0]
    _image_stats_are_lerobots_ordinary_ones(part, source, tmp_path / "png")


def _image_stats_are_lerobots_ordinary_ones(part: Path, source: list[np.ndarray],
                                            png_dir: Path) -> None:
    """The image stats are what LeRobot's ordinary path writes for the same frames:
    ``compute_episode_stats`` on a PNG of each (its sample of them), not the streaming
    encoder's running stats over every frame (count = every frame's pixels, approximate
    quantiles)."""
    from lerobot.datasets.compute_stats import compute_episode_stats

    png_dir.mkdir()
    paths = []
    for i, img in enumerate(source):
        paths.append(str(png_dir / f"{i}.png"))
        lerobot_dataset.write_image(img, paths[-1], compress_level=1)
    key = "observation.images.head"
    want = compute_episode_stats({key: paths}, {key: {"dtype": "video"}})[key]
    got = json.loads((part / "meta" / "stats.json").read_text())[key]
    assert sorted(got) == sorted(want)
    for name, value in want.items():
        np.testing.assert_array_equal(np.asarray(got[name]), value, err_msg=name)


def test_the_encoder_waits_instead_of_dropping_frames(tmp_path: Path) -> None:
    """A one-frame queue and frames that take the encoder far longer than LeRobot's 0.1 s
    wait: LeRobot's encoder drops most of them, the export's keeps all."""
    from recallbench.export.lerobot_encoder import encoder_class

    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (720, 1280, 3), dtype=np.uint8) for _ in range(8)]
    encoder = encoder_class()(fps=10, vcodec="h264", queue_maxsize=1)
    encoder.start_episode(["cam"], tmp_path)
    for frame in frames:
        encoder.feed_frame("cam", frame)
    (path, stats), = encoder.finish_episode().values()
    got, _ = _decoded(path)
    assert len(got) == len(frames) and stats is not None
