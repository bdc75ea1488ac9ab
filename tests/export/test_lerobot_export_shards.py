"""``recallbench export --dataset-format lerobot --shard i/n``: shards exported into one folder,
then merged, give the unsharded LeRobotDataset file for file (videos frame for frame). A module
of its own so that its two generated episodes and four exports run on the other xdist worker than
the other export tests. Runs in .venv-lerobot."""

from __future__ import annotations

from pathlib import Path

import av
import numpy as np
import pytest

from support.lerobot_export import export_lerobot, load_dataset

pytestmark = [pytest.mark.lerobot, pytest.mark.slow]
pytest.importorskip("lerobot.datasets.lerobot_dataset")


def _decoded(path: Path) -> list[np.ndarray]:
    with av.open(str(path)) as c:
        return [f.to_ndarray(format="rgb24") for f in c.decode(c.streams.video[0])]


def test_shards_give_the_unsharded_dataset(findingdory_two_day_suite: Path,
                                           tmp_path: Path) -> None:
    suite = findingdory_two_day_suite
    whole, sharded = tmp_path / "whole", tmp_path / "sharded"
    repo = ["--repo-id", "recallbench/fd"]
    assert export_lerobot(suite, whole, *repo) == 0
    for i in (1, 2):
        assert export_lerobot(suite, sharded, *repo, "--shard", f"{i}/2") == 0
    assert export_lerobot(suite, sharded, *repo) == 0
    files = sorted(p.relative_to(whole) for p in whole.rglob("*")
                   if p.is_file() and p.name != "timings.jsonl")
    assert files == sorted(p.relative_to(sharded) for p in sharded.rglob("*")
                           if p.is_file() and p.name != "timings.jsonl")
    for rel in files:
        if rel.suffix == ".mp4":  # frame for frame (the encoder's bytes may differ)
            a, b = _decoded(whole / rel), _decoded(sharded / rel)
            assert len(a) == len(b) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
        else:
            assert (whole / rel).read_bytes() == (sharded / rel).read_bytes(), rel
    assert load_dataset(whole, "recallbench/fd").meta.total_episodes == 2
