"""Damaged FindingDory inputs are one line naming the file (issue 35): a truncated, object-array or
void-dtype ``frames.npz`` ended a run with "internal error" naming no file, and a 100k-deep line
in `findingdory score --predictions` with a RecursionError."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest

from support.fault_support import squash


@pytest.fixture(scope="module")
def pristine(tmp_path_factory) -> Path:
    from support.findingdory_suite import build_suite

    return build_suite(tmp_path_factory.mktemp("damaged") / "suite")


def _frames(suite: Path) -> dict[str, np.ndarray]:
    with np.load(suite / "episodes" / "ep_a" / "frames.npz") as data:
        return {k: data[k] for k in data.files}


def _truncated(suite: Path, path: Path) -> None:
    path.write_bytes(path.read_bytes()[:300])


def _object_pose(suite: Path, path: Path) -> None:
    arrays = _frames(suite)
    np.savez(path, pose=np.array([{"x": 1}] * len(arrays["pose"]), dtype=object),
             time=arrays["time"])


def _void_pose(suite: Path, path: Path) -> None:
    arrays = _frames(suite)
    np.savez(path, pose=np.zeros((len(arrays["pose"]), 3), dtype="V4"), time=arrays["time"])


def _bad_crc(suite: Path, path: Path) -> None:
    """A member whose stored bytes were changed after zipping (the zip's CRC disagrees)."""
    buffer = io.BytesIO()
    np.savez(buffer, **_frames(suite))
    raw = bytearray(buffer.getvalue())
    with zipfile.ZipFile(io.BytesIO(bytes(raw))) as z:
        info = z.getinfo("pose.npy")
    start = info.header_offset + 30 + len(info.filename) + len(info.extra) + 200
    raw[start:start + 8] = b"\xff" * 8
    path.write_bytes(bytes(raw))


@pytest.mark.parametrize("damage", [_truncated, _object_pose, _void_pose, _bad_crc],
                         ids=["truncated", "object-array", "void-dtype", "bad-crc"])
def test_a_damaged_frames_npz_is_one_line_naming_it(damage, pristine, tmp_path, capsys):
    import shutil

    from recallbench.cli import main

    suite = tmp_path / "suite"
    shutil.copytree(pristine, suite)
    path = suite / "episodes" / "ep_a" / "frames.npz"
    damage(pristine, path)
    capsys.readouterr()
    code = main(["findingdory", "--data", str(suite), "--agent", "random", "--frames", "8",
                 "--out", str(tmp_path / "run"), "--limit", "2"])
    out = "".join(capsys.readouterr())
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert code == 2 and len(errors) == 1 and "internal error" not in out, out
    assert squash(str(path)) in squash(errors[0]), errors


def test_a_deeply_nested_predictions_line_is_one_line_naming_file_and_line(pristine, tmp_path,
                                                                           capsys):
    from recallbench.cli import main

    preds = tmp_path / "preds.jsonl"
    preds.write_text(json.dumps({"id": "ep_a-0", "frame_indices": [1]}) + "\n"
                     + "[" * 100_000 + "\n")
    capsys.readouterr()
    code = main(["findingdory", "score", "--data", str(pristine), "--predictions", str(preds)])
    out = "".join(capsys.readouterr())
    errors = [line for line in out.splitlines() if ": error: " in line]
    assert code == 2 and len(errors) == 1 and "internal error" not in out, out
    assert squash(f"{preds}:line2") in squash(errors[0]), errors
