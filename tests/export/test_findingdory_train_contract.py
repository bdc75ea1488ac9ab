"""The FindingDory SFT export read as the released trainer reads it (findingdory-train @acb30f2):

- ``findingdory/sft_video_llm.py``: ``load_dataset(name, split="train")`` and
  ``split="validation"`` unconditionally, ``assert "findingdory" in dataset_name``, videos taken
  from ``--video_cache_dir`` when ``videos/`` there is not empty, each row's message
  ``{"type": "video", "video": join(video_cache_dir, row["video"]), "max_pixels": 360 * 420,
  "fps": 1.0}`` then the question, the answer as the assistant's text;
- ``findingdory/evaluate_video_llm.py``: reads ``video``, ``question``, ``answer`` and
  ``task_id`` of each row and writes ``{"individual_results": [{"example_id", "task_id",
  "video": basename, "ground_truth", "model_output", "exact_match"}]}``;
- ``findingdory/evaluate_llm_outputs.py``: exact and relaxed accuracy of that file;
- the frames the model sees: qwen-vl-utils 0.0.14 (``qwen_vl_utils/vision_process.py``,
  ``smart_nframes`` and the readers' ``linspace(0, total - 1, nframes).round()``), re-stated in
  ``sampled_frames`` below (the package imports torch and torchvision, so it is not installed).
"""

from __future__ import annotations

import ast
import json
import math
import os
from pathlib import Path

import av
import numpy as np
import pytest

from recallbench.cli import main

pytestmark = pytest.mark.slow  # a two-day suite exported and read back through HF datasets

datasets = pytest.importorskip("datasets")


def sampled_frames(total: int, video_fps: float, ele: dict) -> list[int]:
    """The frame indices qwen-vl-utils 0.0.14 hands the model for a video element asking
    ``fps`` (smart_nframes: total / video_fps * fps frames, at least 4, at most min(768, total),
    floored to a multiple of 2; then linspace over the video, rounded)."""
    factor = 2
    lo = math.ceil(4 / factor) * factor
    hi = math.floor(min(768, total) / factor) * factor
    n = total / video_fps * ele.get("fps", 2.0)
    n = math.floor(min(max(n, lo), hi, total) / factor) * factor
    assert factor <= n <= total, "the sampler raises ValueError here"
    return sorted({int(i) for i in np.round(np.linspace(0, total - 1, n))})


@pytest.fixture(scope="module")
def sft_export(findingdory_two_day_suite: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh export with the default options, into a folder whose path names findingdory
    (the trainer asserts it of the dataset name it is given)."""
    out = tmp_path_factory.mktemp("train") / "findingdory_sft"
    assert main(["export", str(findingdory_two_day_suite), "--dataset-format", "findingdory-sft",
                 "--out", str(out), "--workers", "1"]) == 0
    return out


def _load(out: Path, split: str, cache: Path):
    return datasets.load_dataset(str(out), split=split, cache_dir=str(cache))


def _decode(path: Path) -> tuple[int, float]:
    """Frame count and frame rate of a video, as the sampler's readers get them."""
    with av.open(str(path)) as c:
        stream = c.streams.video[0]
        return sum(1 for _ in c.decode(stream)), float(stream.average_rate)


def test_the_trainer_data_path_sees_every_offered_frame(sft_export: Path, tmp_path: Path) -> None:
    dataset_name = video_cache_dir = str(sft_export)  # the documented command line
    assert "findingdory" in dataset_name
    videos = os.path.join(video_cache_dir, "videos")
    assert os.path.isdir(videos) and os.listdir(videos)  # no videos.zip download
    seen: dict[str, tuple[int, list[int]]] = {}
    for split in ("train", "validation"):  # both loaded unconditionally, neither empty
        rows = _load(sft_export, split, tmp_path / "hf")
        assert len(rows) > 0
        for example in rows:
            path = os.path.join(video_cache_dir, example["video"])
            assert os.path.exists(path)
            user = [{"type": "video", "video": path, "max_pixels": 360 * 420, "fps": 1.0},
                    {"type": "text", "text": example["question"]}]
            assistant = [{"type": "text", "text": example["answer"]}]
            assert isinstance(user[1]["text"], str) and isinstance(assistant[0]["text"], str)
            if path not in seen:
                total, fps = _decode(Path(path))
                seen[path] = (total, sampled_frames(total, fps, user[0]))
            total, sampled = seen[path]
            assert sampled == list(range(total))  # every offered frame reaches the model
            assert total == 96  # the default K: the frames the benchmark offers
            answer = ast.literal_eval(example["answer"])
            indices = [i for goal in answer for i in goal if i != -1]
            assert set(indices) <= set(sampled), example["id"]
    assert len(seen) == 2  # both days' videos


def test_the_offered_frames_are_the_days_frames_in_order(sft_export: Path,
                                                          findingdory_two_day_suite: Path) -> None:
    """The export reads the generator's 96-frame video where it holds the offered frames: they
    are the day's frames at the benchmark's linspace, each stamped with its position."""
    from recallbench.benchmarks.findingdory.annotations import load_episode
    from recallbench.video.reader import VideoFrames
    from recallbench.video.sampling import subsample_indices
    from recallbench.video.stamp import stamp_frame

    ep_dir = findingdory_two_day_suite / "episodes" / "ep_1"
    episode = load_episode(ep_dir)
    offered = subsample_indices(episode.num_frames, 96)
    day = VideoFrames(ep_dir / "video.mp4", offered, stamp=False).frames()
    with av.open(str(sft_export / "videos" / "ep_1.mp4")) as c:
        got = [f.to_ndarray(format="rgb24") for f in c.decode(c.streams.video[0])]
    assert len(got) == len(offered)
    for p in range(len(offered)):
        want = stamp_frame(day[p], p, episode.times[offered[p]]).astype(int)
        err = np.abs(got[p].astype(int) - want).mean()
        other = np.abs(got[p].astype(int) - stamp_frame(
            day[p - 1 if p else 1], p, episode.times[offered[p]]).astype(int)).mean()
        assert err < 4.0 and (err < other or other < 4.0), p  # codec tolerance


def test_the_evaluator_reads_every_column_it_needs(sft_export: Path, tmp_path: Path) -> None:
    rows = _load(sft_export, "validation", tmp_path / "hf")
    card = set(rows.features)
    assert {"ep_id", "video", "question", "answer", "task_id", "high_level_category",
            "low_level_category", "num_interactions"} <= card  # the released columns
    assert rows.features["num_interactions"].dtype == "int64"
    for example in rows:  # prepare_custom_dataset of evaluate_video_llm.py
        prepared = {"video": os.path.basename(example["video"]), "task_id": example["task_id"],
                    "ground_truth": example["answer"].strip()}
        assert isinstance(prepared["task_id"], str) and prepared["task_id"]
        assert prepared["video"] == f"{example['ep_id']}.mp4"


# ---- evaluate_llm_outputs.py's contract, re-stated from its source ------------------------

def released_parse(text: str):
    """parse_list_string: a literal; else the last [...] of the text, a flat int list as one
    goal; else []."""
    try:
        return ast.literal_eval(text)
    except Exception:
        pass
    start, end = text.rfind("["), text.rfind("]")
    if start == -1 or end == -1:
        return []
    try:
        value = ast.literal_eval(text[start:end + 1])
    except Exception:
        return []
    if isinstance(value, list) and value and isinstance(value[0], (int, list)):
        return [value] if isinstance(value[0], int) else value
    return []


def released_scores(results: list[dict]) -> dict:
    """evaluate_results: exact = text equality; relaxed = product over goals where both lists
    are non-empty of the predicted share inside the truth, 0 on a goal-count mismatch, an
    empty parse or any exception; both averaged over every entry of the file."""
    exact, relaxed = 0, []
    for r in results:
        try:
            gt, pred = r["ground_truth"], r["model_output"]
            exact += gt == pred
            g, p = released_parse(gt), released_parse(pred)
            if not g or not p:
                relaxed.append(0.0)
                continue
            if len(p) != len(g):
                relaxed.append(0.0)
                continue
            shares = [sum(x in gs for x in ps) / len(ps) for ps, gs in zip(p, g, strict=True)
                      if len(ps) and len(gs)]
            relaxed.append(float(np.prod(shares)))
        except Exception:
            relaxed.append(0.0)
    return {"total_examples": len(results), "exact_matches": exact,
            "exact_accuracy": exact / len(results), "avg_relaxed_score": float(np.mean(relaxed))}


def _answers(rows: list[dict]) -> list[dict]:
    """Hand-made model outputs, one per validation row, in evaluate_video_llm.py's format,
    covering what the evaluator distinguishes (in reverse order: the join is by key)."""
    out = []
    for n, row in enumerate(rows):
        truth = ast.literal_eval(row["answer"])
        first = truth[0][0]
        kinds = [
            row["answer"],                                    # exact
            json.dumps([[first, 10_000]] + truth[1:]),        # half right on goal 1
            json.dumps(truth + [[first]]),                    # one goal too many
            f"The frames are {json.dumps(truth[-1])}.",       # last list in prose
            "I cannot tell.",                                 # unparsable
            json.dumps([[]] + truth[1:]),                     # an empty goal: skipped
            "[[1], 2]",                                       # raises in the released code
        ]
        result = {"example_id": n, "task_id": row["task_id"],
                  "video": os.path.basename(row["video"]), "ground_truth": row["answer"],
                  "model_output": kinds[n % len(kinds)]}
        out.append(result if n % 11 != 10 else {"example_id": n, "error": "CUDA out of memory"})
    return out[::-1]


def test_scores_of_exported_rows_equal_the_released_evaluator(sft_export: Path,
                                                              tmp_path: Path) -> None:
    from recallbench.export.findingdory_sft_score import score_results

    rows = list(_load(sft_export, "validation", tmp_path / "hf"))
    assert len(rows) >= 12
    results = _answers(rows)
    path = tmp_path / "checkpoint-1.json"
    path.write_text(json.dumps({"individual_results": results, "average_exact_match": 0.0}))
    ours = score_results(sft_export, path)
    released = released_scores(results)
    assert ours["total_examples"] == released["total_examples"] == len(rows)
    assert ours["exact_matches"] == released["exact_matches"]
    assert 0 < ours["exact_accuracy"] == released["exact_accuracy"] < 1
    assert ours["avg_relaxed_score"] == pytest.approx(released["avg_relaxed_score"], abs=1e-12)
    assert ours["exact_accuracy"] < ours["avg_relaxed_score"] < 1
    # per row: each scored against its own row, joined by day (video) + task_id
    by_row = {(r["ep_id"], r["id"]): r for r in ours["rows"]}
    for res in results:
        if "error" in res:
            continue
        row = next(r for r in rows if r["answer"] == res["ground_truth"]
                   and r["task_id"] == res["task_id"] and res["video"] == f"{r['ep_id']}.mp4")
        mine = by_row[(row["ep_id"], row["id"])]
        assert mine["relaxed"] == pytest.approx(released_scores([res])["avg_relaxed_score"])


def test_an_answer_for_no_row_is_one_line_naming_it(sft_export: Path, tmp_path: Path) -> None:
    from recallbench.errors import InputError
    from recallbench.export.findingdory_sft_score import score_results

    path = tmp_path / "other.json"
    path.write_text(json.dumps({"individual_results": [
        {"task_id": "no_such_task", "video": "ep_0.mp4", "model_output": "[[1]]"}]}))
    with pytest.raises(InputError, match=r"individual_results\[0\].*no_such_task"):
        score_results(sft_export, path)
