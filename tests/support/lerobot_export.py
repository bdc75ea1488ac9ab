"""What both LeRobot export test modules do: run ``recallbench export --dataset-format lerobot``
and load the result with LeRobot's own ``LeRobotDataset`` (imported on use: only .venv-lerobot
has it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from recallbench.cli import main


def export_lerobot(suite: Path, out: Path, *extra: str) -> int:
    """The export's exit status (one worker, as the tests compare its files)."""
    return main(["export", str(suite), "--dataset-format", "lerobot", "--out", str(out),
                 "--workers", "1", *extra])


def load_dataset(root: Path, repo_id: str | None = None) -> Any:
    """The dataset at ``root`` (repo id ``recallbench/<folder name>`` unless given), decoded
    with PyAV: torchcodec needs system FFmpeg libraries, PyAV decodes the same files."""
    from lerobot.datasets.lerobot_dataset import LeRobotDataset

    return LeRobotDataset(repo_id or f"recallbench/{root.name}", root=root, video_backend="pyav")
